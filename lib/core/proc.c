/* proc.c: posix_spawnp with pipes, poll() and limits (proc.h). */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_STDOUT_LIMIT (64 * 1024)
#define DEFAULT_STDERR_LIMIT (8 * 1024)
#define POLL_SLICE_MS 50
#define EXIT_POLL_MS 10 /* pipes closed: how often the program's exit is checked */

static size_t name_len(const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	return eq ? (size_t)(eq - assignment) : strlen(assignment);
}

/* environ minus the names in @add, then @add. The strings are borrowed. */
static char **build_env(const char *const *add)
{
	size_t n = 0, k = 0, nadd = 0;
	char **env;

	while (environ && environ[n])
		n++;
	while (add && add[nadd])
		nadd++;
	env = air__calloc(n + nadd + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < nadd && !replaced; j++) {
			size_t l = name_len(add[j]);
			replaced = l == name_len(environ[i]) && !strncmp(add[j], environ[i], l);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < nadd; j++)
		env[k++] = (char *)add[j];
	return env;
}

/* Append to @b keeping at most @limit bytes: the newest ones. */
static void put_tail(air__buf *b, const char *data, size_t len, size_t limit)
{
	if (len >= limit) {
		air__buf_clear(b);
		air__buf_put(b, data + len - limit, limit);
		return;
	}
	if (b->len + len > limit) {
		size_t drop = b->len + len - limit;
		memmove(b->ptr, b->ptr + drop, b->len - drop);
		b->len -= drop;
		b->ptr[b->len] = '\0';
	}
	air__buf_put(b, data, len);
}

/* @pid 0: the program was already reaped; its id may belong to another. */
static void kill_child(pid_t pid)
{
	if (pid > 0)
		kill(pid, SIGKILL);
}

/* Read once from a readable pipe: the bytes read (0: try again), -1 at EOF
 * or on a read error. */
static ssize_t drain(int fd, air__proc_result *r, bool is_out, const air__proc_opts *o,
                     size_t out_limit, size_t err_limit, pid_t pid)
{
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	if (!is_out) {
		put_tail(&r->err, chunk, (size_t)n, err_limit);
	} else if (r->overflow) {
		/* already killed: discard what is still in the pipe */
	} else if (o->stdout_keep_tail) {
		put_tail(&r->out, chunk, (size_t)n, out_limit);
	} else if (r->out.len + (size_t)n > out_limit) {
		kill_child(pid);
		r->overflow = true;
	} else {
		air__buf_put(&r->out, chunk, (size_t)n);
	}
	return n;
}

/* Write what is left of the program's input; false once it is all written
 * or the program stopped reading (EPIPE, without dying of SIGPIPE). */
static bool feed(int fd, const air__proc_opts *o, size_t *off)
{
	sigset_t pipe_set, old;
	ssize_t n;
	bool more;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, (const char *)o->stdin_data + *off, o->stdin_len - *off);
	if (n < 0 && errno == EPIPE) {
		/* Consume the SIGPIPE this thread just raised, unless one was pending before. */
		struct timespec zero = {0, 0};
		if (!sigismember(&old, SIGPIPE))
			sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n > 0)
		*off += (size_t)n;
	more = n >= 0 ? *off < o->stdin_len : errno == EINTR || errno == EAGAIN;
	return more;
}

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The executable @name names: itself when it contains a '/', else the first
 * match on PATH. Looked up here rather than by posix_spawnp() because some
 * spawn implementations only report a failed exec as exit status 127. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return executable(name) ? air__strdup(name) : NULL;
	for (const char *p = path ? path : "/usr/bin:/bin"; p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *full = air__sprintf("%.*s/%s", (int)n, n ? p : ".", name);
		if (!full || executable(full))
			return full;
		air__free(full);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

bool air__proc_found(const char *name)
{
	char *exe = find_program(name);
	bool found = exe != NULL;

	air__free(exe);
	return found;
}

static int spawn(const char *const *argv, const air__proc_opts *o, int in_r, int out_w, int err_w,
                 pid_t *pid, air_error **err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t mask;
	char **env, *exe = find_program(argv[0]);
	int rc;

	if (!exe)
		return air__failf(err, AIR_EIO, 0, "cannot run %s: not found%s", argv[0],
		                  strchr(argv[0], '/') ? "" : " on PATH");
	if (!(env = build_env(o->env_add))) {
		air__free(exe);
		return air__failf(err, AIR_ENOMEM, 0, "out of memory starting %s", argv[0]);
	}
	posix_spawn_file_actions_init(&fa);
	if (in_r >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_r, STDIN_FILENO);
	else
		posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_w, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err_w, STDERR_FILENO);
	/* The caller's signal mask, but SIGXFSZ: a program started while
	 * libair holds it back (core_fsize.h) gets it as programs do. */
	posix_spawnattr_init(&attr);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGXFSZ);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(pid, exe, &fa, &attr, (char *const *)argv, env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	air__free(env);
	air__free(exe);
	if (rc != 0)
		return air__failf(err, AIR_EIO, 0, "cannot run %s: %s", argv[0], strerror(rc));
	return AIR_OK;
}

/* Read what is already in the pipes of a program that has exited: all it
 * wrote before exiting, without waiting for the pipes' end (a process it
 * left behind may hold them open). What it wrote is at the front of each
 * pipe, at most the pipe's capacity: reading stops there, as a process left
 * behind may keep writing. */
static void drain_after_exit(int out_fd, int err_fd, air__proc_result *r, const air__proc_opts *o,
                             size_t out_limit, size_t err_limit)
{
	int fds[2] = {out_fd, err_fd};

	for (int i = 0; i < 2; i++) {
		struct pollfd pfd = {fds[i], POLLIN, 0};
		int cap = fds[i] >= 0 ? fcntl(fds[i], F_GETPIPE_SZ) : 0;
		ssize_t left = cap > 0 ? cap : 1 << 20, n = 0;

		while (fds[i] >= 0 && left > 0 && n >= 0 && poll(&pfd, 1, 0) > 0 &&
		       (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			if ((n = drain(fds[i], r, fds[i] == out_fd, o, out_limit, err_limit, 0)) > 0)
				left -= n;
	}
}

int air__proc_run(const char *const *argv, const air__proc_opts *opts, air__proc_result *r,
                  air_error **err)
{
	static const air__proc_opts defaults = AIR__PROC_OPTS_INIT;
	const air__proc_opts *o = opts ? opts : &defaults;
	size_t out_limit = o->stdout_limit ? o->stdout_limit : DEFAULT_STDOUT_LIMIT;
	size_t err_limit = o->stderr_limit ? o->stderr_limit : DEFAULT_STDERR_LIMIT;
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, in_p[2] = {-1, -1}, status = 0, rc;
	size_t in_off = 0;
	int64_t deadline = o->timeout_ms > 0 ? air__mono_ms() + o->timeout_ms : 0;
	bool out_open, err_open = true, interrupted = false, past_deadline = false;
	int ifds[2];
	size_t nifd = air__ctx_fds(o->ctx, ifds);
	pid_t pid;

	memset(r, 0, sizeof(*r));
	air__buf_init(&r->out);
	air__buf_init(&r->err);
	r->exit_code = 127;
	/* O_CLOEXEC: a program started concurrently by another thread must not
	 * inherit our pipe ends (it would hold our EOF back). */
	if ((o->stdout_fd < 0 && pipe2(out_p, O_CLOEXEC) != 0) || pipe2(err_p, O_CLOEXEC) != 0 ||
	    (o->stdin_data && (pipe2(in_p, O_CLOEXEC) != 0 ||
	                       fcntl(in_p[1], F_SETFL, O_NONBLOCK) != 0))) {
		rc = air__failf(err, AIR_EIO, 0, "cannot run %s: %s", argv[0], strerror(errno));
		goto close_all;
	}
	rc = spawn(argv, o, in_p[0], o->stdout_fd >= 0 ? o->stdout_fd : out_p[1], err_p[1], &pid, err);
	if (rc != AIR_OK)
		goto close_all;
	if (out_p[1] >= 0)
		close(out_p[1]);
	close(err_p[1]);
	out_p[1] = err_p[1] = -1;
	if (in_p[0] >= 0) {
		close(in_p[0]);
		in_p[0] = -1;
		/* The child's read end is blocking; ours is not, so a program that
		 * does not read never stalls this loop. */
		if (!o->stdin_len || !feed(in_p[1], o, &in_off)) {
			close(in_p[1]);
			in_p[1] = -1;
		}
	}
	out_open = out_p[0] >= 0;

	/* The program is done when it exits, not when its pipes end: a process it
	 * started in the background may hold them open for as long as it lives. */
	for (;;) {
		struct pollfd pfd[5];
		int nfd = 0, nio;
		pid_t w;

		if (!interrupted && !r->timed_out && !past_deadline) {
			interrupted = air__ctx_interrupted(o->ctx);
			past_deadline = !interrupted && o->ctx && o->ctx->deadline &&
			                air__ctx_remaining(o->ctx) == 0;
			r->timed_out = !interrupted && deadline && air__mono_ms() >= deadline;
			if (interrupted || r->timed_out || past_deadline) {
				/* Stop reading: a grandchild may keep the pipes open. */
				kill_child(pid);
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
				break;
			}
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			drain_after_exit(out_open ? out_p[0] : -1, err_open ? err_p[0] : -1, r, o,
			                 out_limit, err_limit);
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		if (!out_open && !err_open && in_p[1] >= 0) {
			/* a program still reading its input sees the end */
			close(in_p[1]);
			in_p[1] = -1;
		}
		if (out_open)
			pfd[nfd++] = (struct pollfd){out_p[0], POLLIN, 0};
		if (err_open)
			pfd[nfd++] = (struct pollfd){err_p[0], POLLIN, 0};
		nio = nfd;
		if (in_p[1] >= 0)
			pfd[nfd++] = (struct pollfd){in_p[1], POLLOUT, 0};
		for (size_t i = 0; i < nifd; i++) /* an interrupt wakes the poll at once */
			pfd[nfd++] = (struct pollfd){ifds[i], POLLIN, 0};
		/* Both pipes ended: only the exit (or an interrupt) is waited for. */
		if (poll(pfd, (nfds_t)nfd, nio ? POLL_SLICE_MS : EXIT_POLL_MS) <= 0)
			continue;
		if (in_p[1] >= 0 && (pfd[nio].revents & (POLLOUT | POLLERR | POLLHUP)) &&
		    !feed(in_p[1], o, &in_off)) {
			close(in_p[1]);
			in_p[1] = -1;
		}
		for (int i = 0; i < nio; i++) {
			bool is_out = out_open && pfd[i].fd == out_p[0];
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (drain(pfd[i].fd, r, is_out, o, out_limit, err_limit, pid) < 0) {
				if (is_out)
					out_open = false;
				else
					err_open = false;
			}
		}
	}
	r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (air__buf_oom(&r->out) || air__buf_oom(&r->err))
		rc = air__failf(err, AIR_ENOMEM, 0, "out of memory reading the output of %s", argv[0]);
	else if (interrupted)
		rc = air__failf(err, AIR_EINTERRUPTED, 0, "interrupted while running %s", argv[0]);
	else if (past_deadline)
		rc = air__fail(err, air__ctx_deadline_error(o->ctx, argv[0]));
close_all:
	for (int i = 0; i < 2; i++) {
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
		if (in_p[i] >= 0)
			close(in_p[i]);
	}
	return rc;
}

void air__proc_result_dispose(air__proc_result *r)
{
	if (!r)
		return;
	air__buf_dispose(&r->out);
	air__buf_dispose(&r->err);
}

bool air__proc_ok(const air__proc_result *r)
{
	return r->exit_code == 0 && !r->timed_out && !r->overflow;
}

static bool last_line_of(const air__buf *b, char *out, size_t n)
{
	const char *s = air__buf_cstr(b);
	size_t end = b->len;

	while (end > 0) {
		size_t start = end, len;
		const char *t;
		while (start > 0 && s[start - 1] != '\n')
			start--;
		/* trim this line */
		t = s + start;
		len = end - start;
		while (len && (t[len - 1] == '\r' || t[len - 1] == ' ' || t[len - 1] == '\t' ||
		               t[len - 1] == '\n'))
			len--;
		while (len && (*t == ' ' || *t == '\t')) {
			t++;
			len--;
		}
		if (len) {
			if (len >= n)
				len = n - 1;
			memcpy(out, t, len);
			out[len] = '\0';
			return true;
		}
		end = start > 0 ? start - 1 : 0;
	}
	return false;
}

const char *air__proc_last_line(const air__proc_result *r, char *out, size_t n)
{
	if (!last_line_of(&r->err, out, n) && !last_line_of(&r->out, out, n))
		snprintf(out, n, "no output");
	return out;
}
