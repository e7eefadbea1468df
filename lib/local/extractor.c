/*
 * extractor.c: the supervisor's side of air-local-extract (extract_main.c),
 * the program that extracts a run's code snapshot. It is found beside the
 * supervisor's own program (beside.c) and runs as its child; a stop signal
 * to the supervisor, or the run's cancellation, ends it, and so does the
 * supervisor's end (its parent-death signal).
 */
#include "local/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the extractor may say: a folder's name, or a reason. */
#define EXTRACTOR_OUTPUT_MAX 65536
/* How often a stop is said again to an extractor still there. */
#define RESTOP_MS 200

extern char **environ;

/* Whether the run is to stop: a stop signal, or @cancel (a file) made. */
static bool stopping(const char *cancel, volatile sig_atomic_t *stop_signal)
{
	return *stop_signal || (cancel && air__lexists(cancel));
}

/* Read @fd to its end into @out (what passes EXTRACTOR_OUTPUT_MAX is
 * dropped), looking at @cancel every RESTOP_MS. Once the run is to stop,
 * @pid gets SIGTERM, again every RESTOP_MS (one sent as it starts may be
 * lost under valgrind), and SIGKILL after the grace a node gets. */
static void collect(int fd, pid_t pid, const char *cancel, int wake,
                    volatile sig_atomic_t *stop_signal, air__buf *out)
{
	char chunk[4096];
	int64_t told = -1;
	ssize_t r;

	for (;;) {
		struct pollfd p[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
		int64_t now = air__mono_ms();

		if ((told >= 0 || stopping(cancel, stop_signal)) &&
		    (told < 0 || now - told >= RESTOP_MS)) {
			bool late = told >= 0 && now - told >= AIR__LOCAL_KILL_GRACE_MS;

			kill(pid, late ? SIGKILL : SIGTERM);
			if (told < 0)
				told = now;
		}
		if (poll(p, 2, cancel || *stop_signal ? RESTOP_MS : -1) < 0 && errno != EINTR &&
		    errno != EAGAIN && errno != ENOMEM) {
			kill(pid, SIGKILL); /* cannot be watched: not waited for forever */
			return;
		}
		if (p[1].revents & POLLIN)
			air__lwake_drain(wake);
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(fd, chunk, sizeof(chunk));
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return;
		if (r > 0 && out->len < EXTRACTOR_OUTPUT_MAX)
			air__buf_put(out, chunk, (size_t)r);
	}
}

int air__lextract_with(const char *extractor, const char *archive, const char *dest,
                       const char *cancel, int wake, volatile sig_atomic_t *stop_signal,
                       char **top, air__buf *why)
{
	char me[24];
	char *argv[] = {(char *)extractor, (char *)archive, (char *)dest, me, NULL};
	posix_spawn_file_actions_t fa;
	air__buf out = AIR__BUF_INIT;
	int pipefd[2], e, st = 0;
	pid_t pid = -1;

	*top = NULL;
	snprintf(me, sizeof(me), "%lld", (long long)getpid()); /* it ends when this process does */
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		air__buf_printf(why, "cannot run %s: %s", extractor, strerror(errno));
		return AIR_EIO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* Its answer on stdout; what else it or the libraries it loads say
	 * goes to the supervisor's log with the supervisor's own. */
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	e = posix_spawn(&pid, extractor, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (e != 0) {
		close(pipefd[0]);
		air__buf_printf(why, "cannot run %s: %s", extractor, strerror(e));
		return AIR_EIO;
	}
	collect(pipefd[0], pid, cancel, wake, stop_signal, &out);
	close(pipefd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (out.len > 0 && !(*top = air__strndup(air__buf_cstr(&out), out.len))) {
			air__buf_dispose(&out);
			return AIR_ENOMEM;
		}
		air__buf_dispose(&out);
		return AIR_OK;
	}
	/* 127: where posix_spawn() cannot say that the exec failed (valgrind),
	 * the child says it so. */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && out.len == 0) {
		air__buf_printf(why, "cannot run %s", extractor);
		air__buf_dispose(&out);
		return AIR_EIO;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && out.len > 0)
		air__buf_puts(why, air__buf_cstr(&out));
	else if (WIFSIGNALED(st))
		air__buf_printf(why, "%s was killed by signal %d", extractor, WTERMSIG(st));
	else
		air__buf_printf(why, "%s exited with status %d", extractor,
		                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	air__buf_dispose(&out);
	return AIR_ESNAPSHOT;
}
