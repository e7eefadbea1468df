/*
 * spawn.c: finding and starting the supervisor program of a local run.
 *
 * The supervisor is a separate program (air-local-supervisor), never a fork
 * of the caller: libair may live in a multi-threaded process (Python, Go),
 * where only an exec is safe after fork. posix_spawn() starts it with the
 * run's lock on fd 3 (held all along: readers never see the run without a
 * live owner) and the secret values on fd 4 (a socket, read to its end);
 * the program forks, the child calls setsid() and supervises the run, and
 * the parent exits at once, so the caller reaps it here and is left with
 * no child. Its stdout and stderr go to the run's supervisor.log.
 *
 * It is started as soon as the run's folder and lock exist, and loads
 * while the submission writes the run's records; the secrets, sent once
 * the run is made, are its go-ahead. A socket closed with less than a
 * whole JSON object tells it the run was given up: it exits untouched.
 *
 * Where the program is: $AIR_LOCAL_SUPERVISOR, else next to the loaded
 * libair (a build tree), else the libexec directory libair was installed
 * with.
 */
#include "local/endpoints.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AIR_LOCAL_LIBEXECDIR
#  define AIR_LOCAL_LIBEXECDIR "/usr/local/libexec/libair"
#endif

extern char **environ;

int air__lprogram_problem(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EISDIR; /* not a program, whatever its mode */
	return access(path, X_OK) == 0 ? 0 : errno;
}

static bool executable(const char *path)
{
	return path && air__lprogram_problem(path) == 0;
}

/* The directory of the object libair's code was loaded from, or NULL. */
static char *library_dir(void)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)(uintptr_t)&library_dir, &info) || !info.dli_fname)
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	return slash ? air__strndup(info.dli_fname, (size_t)(slash - info.dli_fname)) : NULL;
}

bool air__lsupervisor_path(const air__local *ws, char **path)
{
	const char *env = getenv(AIR__LOCAL_SUPERVISOR_ENV);
	char *dir;

	(void)ws;
	*path = NULL;
	if (env && *env) {
		*path = air__strdup(env);
		return executable(*path);
	}
	if ((dir = library_dir()) != NULL) {
		*path = air__sprintf("%s/%s", dir, AIR__LOCAL_SUPERVISOR);
		air__free(dir);
		if (executable(*path))
			return true;
		air__free(*path);
	}
	*path = air__strdup(AIR_LOCAL_LIBEXECDIR "/" AIR__LOCAL_SUPERVISOR);
	return executable(*path);
}

char *air__lsupervisor_missing(void)
{
	const char *env = getenv(AIR__LOCAL_SUPERVISOR_ENV);
	char *dir, *why;

	if (env && *env)
		return air__sprintf("the local runtime's supervisor program is not an executable file: "
		                    "%s=%s; point it at %s (installed in %s, built in a build tree's "
		                    "lib/) or unset it",
		                    AIR__LOCAL_SUPERVISOR_ENV, env, AIR__LOCAL_SUPERVISOR,
		                    AIR_LOCAL_LIBEXECDIR);
	dir = library_dir();
	why = air__sprintf("the local runtime is not installed: its supervisor program %s is "
	                   "neither beside libair (in %s) nor in %s; install libair with it "
	                   "(meson install) or set %s to the program's path",
	                   AIR__LOCAL_SUPERVISOR, dir ? dir : "an unknown directory",
	                   AIR_LOCAL_LIBEXECDIR, AIR__LOCAL_SUPERVISOR_ENV);
	air__free(dir);
	return why;
}

/* The CPUs this thread may run on, as a list ("0,1,3") for the
 * supervisor's last argument: those it runs on once loaded; "-" when they
 * cannot be told (it then keeps the ones it starts with). */
static void cpu_list(char *out, size_t size, cpu_set_t *cpus)
{
	size_t len = 0;

	CPU_ZERO(cpus);
	snprintf(out, size, "-");
	if (sched_getaffinity(0, sizeof(*cpus), cpus) != 0)
		return;
	for (int i = 0; i < CPU_SETSIZE && len + 8 < size; i++)
		if (CPU_ISSET(i, cpus))
			len += (size_t)snprintf(out + len, size - len, "%s%d", len ? "," : "", i);
	if (len == 0 || len + 8 >= size) { /* none, or too many to name */
		CPU_ZERO(cpus);
		snprintf(out, size, "-");
	}
}

/* Let the launcher of @st load on another CPU than this thread's, one of
 * @cpus (this thread's). A process woken from posix_spawn() is often put
 * back on the CPU its child runs on, and preempts it there while another
 * CPU idles: the program would load only once the submission waits. Best
 * effort, and only while the submission writes the run's records: the
 * go-ahead gives the launcher all of @cpus again (air__lspawn_go()), and
 * its daemon takes them as soon as it has forked (supervisor_main.c). */
static void load_elsewhere(air__lstarting *st, const cpu_set_t *cpus)
{
	cpu_set_t others = *cpus;
	int here = sched_getcpu();

	if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, cpus) || CPU_COUNT(cpus) < 2)
		return;
	CPU_CLR(here, &others);
	st->cpus = *cpus;
	st->aside = sched_setaffinity(st->pid, sizeof(others), &others) == 0;
}

/* How long the supervisor may take to read its secrets. */
#define SECRETS_WAIT_MS 30000

/* Wait until @fd (-1: none) has @events, @ms pass (cut to @ctx's deadline)
 * or one of @ctx's interrupts is raised: 1 ready, 0 after @ms, -1
 * interrupted or past the deadline (the callers say which, in their words). */
static int wait_for(int fd, short events, int64_t ms, const air__ctx *ctx)
{
	bool ready;

	if (air__ctx_wait_fd(ctx, fd, events, ms, &ready, NULL, NULL) != AIR_OK)
		return -1;
	return ready ? 1 : 0;
}

/* "interrupted" or "past its deadline", after wait_for() returned -1. */
static const char *stopped(const air__ctx *ctx)
{
	return air__ctx_interrupted(ctx) ? "interrupted" : "past its deadline";
}

/* Send the secret values into @fd (a socket) and close it. The supervisor
 * reads them as they come (they may be more than the socket holds); the
 * call's interrupt and deadline stop the wait. */
static int send_secrets(int fd, const json_t *secrets, const air__ctx *ctx, air__buf *why)
{
	int64_t deadline = air__mono_ms() + SECRETS_WAIT_MS;
	char *text = json_dumps(secrets, JSON_COMPACT);
	size_t len = text ? strlen(text) : 0, off = 0;
	int rc = text ? AIR_OK : AIR_ENOMEM;

	if (len > AIR__LOCAL_MAX_SECRETS) {
		air__buf_printf(why, "cannot hand the secrets to the supervisor: too large (%zu bytes, "
		                "at most %u)", len, AIR__LOCAL_MAX_SECRETS);
		rc = AIR_EIO;
	}

	while (rc == AIR_OK && off < len) {
		ssize_t n = send(fd, text + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int64_t left = deadline - air__mono_ms();
			int ready = left > 0 ? wait_for(fd, POLLOUT, left, ctx) : 0;

			if (ready > 0)
				continue;
			if (ready < 0)
				air__buf_printf(why, "cannot hand the secrets to the supervisor: the "
				                "submission was %s", stopped(ctx));
			else
				air__buf_printf(why, "cannot hand the secrets to the supervisor: it did not "
				                "read them in %d s", SECRETS_WAIT_MS / 1000);
			rc = AIR_EIO;
			break;
		}
		if (n < 0) {
			air__buf_printf(why, "cannot hand the secrets to the supervisor: %s",
			                strerror(errno));
			rc = AIR_EIO;
			break;
		}
		off += (size_t)n;
	}
	if (text) {
		explicit_bzero(text, len);
		free(text); /* jansson's allocator */
	}
	/* A part of them is no go-ahead: the supervisor reads whole JSON only. */
	shutdown(fd, SHUT_WR);
	close(fd);
	return rc;
}

/* How often a launcher is looked at where there is no pidfd. */
#define LAUNCHER_POLL_MS 10

/* Keep @pidfd, the launcher an interrupted submission leaves, to reap it
 * later (the oldest is let go when too many are kept). */
static void leave(air__local *ws, int pidfd)
{
	air__lspawn_reap_left(ws);
	pthread_mutex_lock(&ws->left_lock);
	if (ws->n_left_launchers == AIR__LOCAL_LEFT_LAUNCHERS) {
		close(ws->left_launchers[0]);
		memmove(ws->left_launchers, ws->left_launchers + 1,
		        (size_t)(--ws->n_left_launchers) * sizeof(int));
	}
	ws->left_launchers[ws->n_left_launchers++] = pidfd;
	pthread_mutex_unlock(&ws->left_lock);
}

void air__lspawn_reap_left(air__local *ws)
{
	pthread_mutex_lock(&ws->left_lock);
	for (int i = 0; i < ws->n_left_launchers;) {
		siginfo_t info;
		int r;

		memset(&info, 0, sizeof(info));
		do
			r = waitid(P_PIDFD, (id_t)ws->left_launchers[i], &info, WEXITED | WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0 && info.si_pid == 0) { /* still running */
			i++;
			continue;
		}
		/* reaped here, or already (by the caller: ECHILD); the others keep
		 * their order, oldest first */
		close(ws->left_launchers[i]);
		memmove(ws->left_launchers + i, ws->left_launchers + i + 1,
		        (size_t)(--ws->n_left_launchers - i) * sizeof(int));
	}
	pthread_mutex_unlock(&ws->left_lock);
}

void air__lspawn_forget_left(air__local *ws)
{
	air__lspawn_reap_left(ws);
	pthread_mutex_lock(&ws->left_lock);
	while (ws->n_left_launchers > 0)
		close(ws->left_launchers[--ws->n_left_launchers]);
	pthread_mutex_unlock(&ws->left_lock);
}

/* Reap the launcher @pid, which exits once the supervisor has detached:
 * AIR_OK, or AIR_EIO when it failed. The call's interrupt and deadline stop
 * the wait (a stopped or hung launcher: AIR_EINTERRUPTED, AIR_ETIMEOUT),
 * and it is then left to start the run on its own: watched through its
 * pidfd, @ws reaps it once it has ended (leave()); without one (an old
 * kernel, valgrind) it stays unreaped until the caller's process ends. */
static int wait_launcher(air__local *ws, pid_t pid, const air__ctx *ctx, air__buf *why)
{
	int st, pfd = -1;
	pid_t r;

#ifdef SYS_pidfd_open
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	/* readable once it has ended; without one (an old kernel, valgrind),
	 * looked at every LAUNCHER_POLL_MS */
	while ((r = waitpid(pid, &st, WNOHANG)) != pid) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* SIGCHLD ignored or reaped by the caller's handler: the
			 * outcome is unknown here, and the run's status will tell. */
			if (pfd >= 0)
				close(pfd);
			return AIR_OK;
		}
		if (wait_for(pfd, POLLIN, pfd >= 0 ? INT64_MAX : LAUNCHER_POLL_MS, ctx) < 0) {
			if (pfd >= 0)
				leave(ws, pfd);
			air__buf_printf(why, "the submission was %s while the supervisor started",
			                stopped(ctx));
			return air__ctx_interrupted(ctx) ? AIR_EINTERRUPTED : AIR_ETIMEOUT;
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return AIR_OK;
	if (WIFEXITED(st))
		air__buf_printf(why, "the supervisor exited with status %d at start",
		                WEXITSTATUS(st));
	else
		air__buf_printf(why, "the supervisor was killed by signal %d at start",
		                WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return AIR_EIO;
}

int air__lspawn_start(air__local *ws, const char *program, int64_t run_id,
                      const char *build_dir, int lock_fd, air__lstarting *st, air__buf *why)
{
	char id[24], me[24], cpus[4096], *log = air__lpath(build_dir, "supervisor.log");
	char *argv[] = {(char *)program, ws->dir, id, (char *)AIR_VERSION_STRING,
	                (char *)AIR__LOCAL_PROTOCOL, me, cpus, NULL};
	cpu_set_t mine;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int sv[2] = {-1, -1}, lock_hi = -1, sec_hi = -1, rc = AIR_OK, e;

	st->ws = ws;
	st->pid = -1;
	st->sock = -1;
	st->aside = false;
	snprintf(id, sizeof(id), "%lld", (long long)run_id);
	snprintf(me, sizeof(me), "%lld", (long long)getpid()); /* watched until the go-ahead */
	cpu_list(cpus, sizeof(cpus), &mine);
	if (!log)
		return AIR_ENOMEM;
	/* Descriptors above the ones the program expects, so that dup2 always
	 * copies (a dup2 onto itself would keep close-on-exec). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    (lock_hi = fcntl(lock_fd, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (sec_hi = fcntl(sv[1], F_DUPFD_CLOEXEC, 10)) < 0) {
		air__buf_printf(why, "cannot prepare the supervisor's descriptors: %s", strerror(errno));
		rc = AIR_EIO;
	}
	if (rc == AIR_OK) {
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		posix_spawn_file_actions_adddup2(&fa, lock_hi, AIR__LOCAL_LOCK_FD);
		posix_spawn_file_actions_adddup2(&fa, sec_hi, AIR__LOCAL_SECRETS_FD);
		/* A clean start whatever the caller did with its signals. */
		posix_spawnattr_init(&attr);
		sigemptyset(&none);
		sigfillset(&all);
		sigdelset(&all, SIGKILL);
		sigdelset(&all, SIGSTOP);
		posix_spawnattr_setsigmask(&attr, &none);
		posix_spawnattr_setsigdefault(&attr, &all);
		/* Its own session from the start: a Ctrl-C, or any signal to the
		 * caller's process group, never reaches it while it loads. */
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
#ifdef POSIX_SPAWN_SETSID
		                                    | POSIX_SPAWN_SETSID
#endif
		);
		e = posix_spawn(&st->pid, program, &fa, &attr, argv, environ);
		posix_spawnattr_destroy(&attr);
		posix_spawn_file_actions_destroy(&fa);
		if (e == 0) {
			load_elsewhere(st, &mine);
		} else {
			air__buf_printf(why, "cannot start %s: %s", program, strerror(e));
			st->pid = -1;
			rc = AIR_EIO;
		}
	}
	if (sv[1] >= 0)
		close(sv[1]);
	if (rc == AIR_OK)
		st->sock = sv[0];
	else if (sv[0] >= 0)
		close(sv[0]);
	if (lock_hi >= 0)
		close(lock_hi);
	if (sec_hi >= 0)
		close(sec_hi);
	air__free(log);
	return rc;
}

int air__lspawn_go(air__lstarting *st, const json_t *secrets, const air__ctx *ctx, bool *whole,
                   air__buf *why)
{
	air__buf sent = AIR__BUF_INIT, exited = AIR__BUF_INIT;
	int rc, launched;

	/* The records are written: a launcher still loading may use this
	 * thread's CPU too (its daemon, forked later, then has them all). */
	if (st->aside)
		sched_setaffinity(st->pid, sizeof(st->cpus), &st->cpus);
	rc = send_secrets(st->sock, secrets, ctx, &sent);

	*whole = rc == AIR_OK;
	st->sock = -1;
	launched = wait_launcher(st->ws, st->pid, ctx, &exited);
	/* A launcher that failed also says why the secrets could not be sent;
	 * a wait stopped by the call says less than the secrets' reason. */
	if (launched == AIR_EIO || (launched != AIR_OK && rc == AIR_OK)) {
		rc = launched;
		air__buf_puts(why, air__buf_cstr(&exited));
	} else if (rc != AIR_OK) {
		air__buf_puts(why, air__buf_cstr(&sent));
	}
	st->pid = -1;
	air__buf_dispose(&sent);
	air__buf_dispose(&exited);
	return rc;
}

void air__lspawn_abandon(air__lstarting *st, const air__ctx *ctx)
{
	air__buf why = AIR__BUF_INIT;

	/* Shut down, not only closed: a copy of the descriptor in a process
	 * the caller forked meanwhile would keep the socket open. */
	if (st->sock >= 0) {
		shutdown(st->sock, SHUT_RDWR);
		close(st->sock);
	}
	/* A supervisor told nothing exits at once; one that hangs is waited
	 * for only until the call's interrupt or deadline (then left, and
	 * reaped later). */
	if (st->pid > 0)
		wait_launcher(st->ws, st->pid, ctx, &why);
	air__buf_dispose(&why);
	st->sock = -1;
	st->pid = -1;
}
