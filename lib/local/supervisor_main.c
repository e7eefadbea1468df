/*
 * supervisor_main.c: the air-local-supervisor program.
 *
 *     air-local-supervisor STATE_DIR RUN_ID LIBAIR_VERSION go-ahead-cpus SUBMITTER_PID CPUS
 *
 * Started by libair (spawn.c) with the run's lock held on fd 3 and the
 * secret values on fd 4. It forks at once: the parent exits (libair reaps
 * it), the child takes the submitter's CPUS again (it loaded on the others:
 * spawn.c), starts a new session (no terminal, no signal from the
 * caller's process group reaches it), waits for the secrets (sent once the
 * run's records are written; none: the run was given up, and it exits) and
 * supervises the run until it ends.
 * SIGTERM, SIGINT and SIGHUP stop the run (CANCELED). Its messages go to
 * the run's supervisor.log. On Linux it is the subreaper of what its nodes
 * start (node.c).
 */
#include "local/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* How often a supervisor waiting for its go-ahead checks that its
 * submitter is still there. */
#define GO_AHEAD_CHECK_MS 200

static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	int saved = errno;
	char b = 0;

	if (sig != SIGCHLD)
		stop_signal = sig;
	if (write(wake_pipe[1], &b, 1) < 0)
		errno = saved; /* full: a wake-up is pending anyway */
	errno = saved;
}

static int install_signals(void)
{
	static const int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP};
	struct sigaction sa;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) != 0)
			return -1;
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit makes writes fail (EFBIG), reported like a full disk,
	 * instead of ending the supervisor. */
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

/* A descriptor that becomes readable once @submitter has ended (-1 where
 * the system has none: it is then polled). *gone: it had ended already,
 * this launcher is no longer its child. */
static int watch_submitter(pid_t submitter, bool *gone)
{
	int fd = -1;

#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, submitter, 0);
#endif
	/* Checked after the open: a descriptor of the submitter itself, not of
	 * a process that took its pid. */
	*gone = getppid() != submitter;
	if (fd >= 0 && *gone) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* The secret values from fd 4, read to its end: the go-ahead, sent once the
 * run's records are written by @submitter (@watch: watch_submitter()).
 * NULL when they are not a whole JSON object: the submission gave the run
 * up, or ended before (also while a copy of it, forked without exec, keeps
 * the socket open). */
static json_t *read_secrets(pid_t submitter, int watch, bool gone)
{
	air__buf b = AIR__BUF_INIT;
	char chunk[4096];
	json_t *v = NULL;
	ssize_t r;

	for (;;) {
		struct pollfd p[2] = {{AIR__LOCAL_SECRETS_FD, POLLIN, 0}, {watch, POLLIN, 0}};
		int ready = poll(p, watch >= 0 ? 2 : 1, gone ? 0 : GO_AHEAD_CHECK_MS);

		if (ready < 0 && errno != EINTR)
			break;
		if (ready > 0 && p[0].revents) {
			if ((r = read(AIR__LOCAL_SECRETS_FD, chunk, sizeof(chunk))) == 0)
				break;
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r < 0 || b.len + (size_t)r > AIR__LOCAL_MAX_SECRETS)
				break;
			air__buf_put(&b, chunk, (size_t)r);
			continue;
		}
		if (ready < 0)
			continue;
		/* Nothing to read now: is the submitter there still to send it? */
		if (gone || (watch >= 0 && ready > 0) ||
		    (watch < 0 && kill(submitter, 0) != 0 && errno == ESRCH))
			break;
	}
	close(AIR__LOCAL_SECRETS_FD);
	if (b.len > 0 && !air__buf_oom(&b))
		v = json_loadb(b.ptr, b.len, 0, NULL);
	if (b.ptr)
		explicit_bzero(b.ptr, b.len);
	air__buf_dispose(&b);
	if (!json_is_object(v)) {
		json_decref(v);
		v = NULL;
	}
	return v;
}

int main(int argc, char **argv)
{
	int64_t run_id, submitter = 0;
	json_t *secrets;
	char *extractor;
	pid_t pid;
	bool gone;
	int rc, watch;

	/* Everything libair did not mean to hand over. */
	air__lclose_from(AIR__LOCAL_SECRETS_FD + 1);
	/* A libair that speaks another way is named, whatever its arguments. */
	if (argc >= 5 && (strcmp(argv[3], AIR_VERSION_STRING) != 0 ||
	                  strcmp(argv[4], AIR__LOCAL_PROTOCOL) != 0)) {
		fprintf(stderr, "air-local-supervisor %s (%s) cannot run a run of libair %s (%s)\n",
		        AIR_VERSION_STRING, AIR__LOCAL_PROTOCOL, argv[3], argv[4]);
		return 3;
	}
	if (argc != 7 || !air__parse_int64(argv[2], &run_id) || run_id <= 0 ||
	    !air__parse_int64(argv[5], &submitter) || submitter <= 0 || submitter > INT_MAX) {
		fprintf(stderr, "usage: %s STATE_DIR RUN_ID LIBAIR_VERSION %s SUBMITTER_PID CPUS "
		        "(started by libair)\n", argv[0], AIR__LOCAL_PROTOCOL);
		return 2;
	}
	watch = watch_submitter((pid_t)submitter, &gone);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "air-local-supervisor: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid > 0)
		_exit(0); /* libair reaps this one; the child lives on */
	air__lnode_take_cpus(argv[6]);
	setsid();
	/* Found before the chdir: argv[0] may be relative to the working directory. */
	if (!(extractor = air__lextractor_beside(argv[0]))) {
		fprintf(stderr, "air-local-supervisor: out of memory\n");
		return 1;
	}
	/* Not the submitter's working directory for the whole run (it would
	 * keep that file system busy): paths here are absolute. */
	if (argv[1][0] == '/' && chdir("/") != 0)
		fprintf(stderr, "air-local-supervisor: chdir /: %s\n", strerror(errno));
	air__lnode_adopt_orphans();
	fcntl(AIR__LOCAL_LOCK_FD, F_SETFD, FD_CLOEXEC);
	secrets = read_secrets((pid_t)submitter, watch, gone);
	if (watch >= 0)
		close(watch);
	if (!secrets) {
		fprintf(stderr, "air-local-supervisor: run %lld: no go-ahead from the submission (it "
		        "gave the run up, or stopped): nothing done\n", (long long)run_id);
		air__free(extractor);
		return 0;
	}
	if (install_signals() != 0) {
		fprintf(stderr, "air-local-supervisor: cannot set up signals: %s\n", strerror(errno));
		air__lsecrets_wipe(secrets);
		air__free(extractor);
		return 1;
	}
	rc = air__lsupervise(argv[1], run_id, secrets, extractor, wake_pipe[0], &stop_signal);
	air__free(extractor);
	air__lsecrets_wipe(secrets);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	return rc;
}
