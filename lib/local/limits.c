/* limits.c: how many nodes a local workspace runs on this machine. */
#include "local/local.h"

#include <sys/resource.h>
#include <unistd.h>

/* Descriptors the supervisor keeps for itself; each node holds two more
 * (its output pipe and its log). */
#define OWN_FDS 64
#define FDS_PER_NODE 2

int64_t air__local_max_nodes(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t n = cpus > 0 ? 2 * (int64_t)cpus : AIR__LOCAL_MIN_NODES_LIMIT;
	struct rlimit fds;

	if (n < AIR__LOCAL_MIN_NODES_LIMIT)
		n = AIR__LOCAL_MIN_NODES_LIMIT;
	if (n > AIR__LOCAL_MAX_NODES_LIMIT)
		n = AIR__LOCAL_MAX_NODES_LIMIT;
	if (getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur != RLIM_INFINITY &&
	    (int64_t)fds.rlim_cur < OWN_FDS + n * FDS_PER_NODE)
		n = (int64_t)fds.rlim_cur > OWN_FDS + FDS_PER_NODE
		        ? ((int64_t)fds.rlim_cur - OWN_FDS) / FDS_PER_NODE
		        : 1;
	return n;
}

int air__local_check_nodes(int64_t nodes, const char *type, int64_t count, air__buf *why)
{
	int64_t max = air__local_max_nodes();

	if (nodes <= max)
		return AIR_OK;
	air__buf_printf(why, "the workload needs %lld nodes (num_accelerators %lld of %s); a local "
	                "workspace runs at most %lld nodes on this machine",
	                (long long)nodes, (long long)count, type, (long long)max);
	return AIR_EINVAL;
}
