/* limits.c: how many nodes a local workspace runs on this machine, and how
 * large an environment its nodes can be started with. */
#include "local/local_priv.h"

#include <string.h>
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

/* Bytes an exec takes for the assignment "@name=@value": the string, its
 * NUL and its pointer. */
static size_t assignment(const char *name, size_t value_len)
{
	return strlen(name) + 1 + value_len + 1 + sizeof(char *);
}

/* Whether @assign ("NAME=value") sets a name of @obj. */
static bool set_by(const json_t *obj, const char *assign)
{
	const char *eq = strchr(assign, '=');
	const char *name;
	const json_t *v;

	json_object_foreach((json_t *)obj, name, v)
		if (eq && strlen(name) == (size_t)(eq - assign) && !strncmp(assign, name, strlen(name)))
			return true;
	return false;
}

/* The first of @obj's values too long to be one variable of a node (its
 * name), else NULL. */
static const char *too_long(const json_t *obj)
{
	const char *name;
	const json_t *v;

	json_object_foreach((json_t *)obj, name, v)
		if (json_is_string(v) &&
		    strlen(name) + 2 + json_string_length(v) > AIR__LOCAL_MAX_ENV_ENTRY)
			return name;
	return NULL;
}

/* What an exec may take for its command line and environment: a quarter
 * of the stack limit (sysconf(_SC_ARG_MAX)), and on Linux never more than
 * 6 MiB (three quarters of its default stack limit), 0 when unknown. */
static size_t exec_room(void)
{
	long max = sysconf(_SC_ARG_MAX);
	size_t room = max > 0 ? (size_t)max : 0;

#ifdef __linux__
	if (room > (size_t)6 << 20)
		room = (size_t)6 << 20;
#endif
	return room;
}

int air__local_check_env(const json_t *env_vars, const json_t *secrets, char **path,
                         air__buf *why)
{
	size_t room = exec_room(), mine = 0, vars = 0, sec = 0;
	const char *name;
	const json_t *v;

	/* (A secret too long is refused as its value is read: secrets.c.) */
	if ((name = too_long(env_vars))) {
		*path = air__sprintf("env_variables.%s", name);
		air__buf_printf(why, "its value is too long for a node's environment: %s=<value> may "
		                "take at most %d bytes", name, AIR__LOCAL_MAX_ENV_ENTRY - 1);
		return AIR_EINVAL;
	}
	*path = NULL;
	/* This process's environment goes to the nodes, but for what they set. */
	for (char **e = environ; e && *e; e++)
		if (!set_by(env_vars, *e) && !set_by(secrets, *e))
			mine += strlen(*e) + 1 + sizeof(char *);
	json_object_foreach((json_t *)env_vars, name, v)
		vars += assignment(name, json_string_length(v));
	json_object_foreach((json_t *)secrets, name, v)
		sec += assignment(name, json_string_length(v));
	if (room <= AIR__LOCAL_ENV_MARGIN || mine + vars + sec <= room - AIR__LOCAL_ENV_MARGIN)
		return AIR_OK;
	*path = air__strdup(sec > vars ? "secrets" : "env_variables");
	air__buf_printf(why, "the nodes' environment would take %zu bytes (this machine's "
	                "environment %zu, env_variables %zu, secrets %zu), more than the %zu a "
	                "program may be started with here", mine + vars + sec, mine, vars, sec,
	                room - AIR__LOCAL_ENV_MARGIN);
	return AIR_EINVAL;
}
