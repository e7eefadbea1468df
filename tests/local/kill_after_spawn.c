/*
 * kill_after_spawn.c: an LD_PRELOAD shim for tests. A process that starts
 * a program whose path ends with $AIR_TEST_KILL_AFTER_SPAWN_OF through
 * posix_spawn() is killed (SIGKILL) as soon as the call returns: a
 * submission that dies right after it launched a run's supervisor, at a
 * point no signal sent from outside can hit reliably. With
 * $AIR_TEST_KILL_AFTER_GO set, it is killed instead as soon as it has shut
 * a socket's writing side down: a submission that dies right after it gave
 * the supervisor its go-ahead (the secrets, sent once the run is made).
 * With $AIR_TEST_KILL_AFTER_RENAME_OF set, instead as soon as it has renamed
 * a path holding that text: e.g. "/.new-", a run's folder put in place,
 * before the go-ahead. With $AIR_TEST_FORKED_PID_FILE set, a child forked
 * without exec (it sleeps, holding every descriptor) is left behind by the
 * kill after posix_spawn(), its pid written to that file. With
 * $AIR_TEST_INT_GROUP_AFTER_SPAWN set, the
 * process is not killed: SIGINT goes to its whole process group right after
 * it started that program, as a Ctrl-C at that moment would.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	void *sym = dlsym(RTLD_NEXT, "posix_spawn");
	spawn_fn real;
	const char *of = getenv("AIR_TEST_KILL_AFTER_SPAWN_OF");
	size_t n = of ? strlen(of) : 0, len = strlen(path);
	int rc;

	memcpy(&real, &sym, sizeof(real)); /* ISO C has no cast between the two */
	rc = sym ? real(pid, path, actions, attr, argv, envp) : -1;

	if (rc == 0 && n > 0 && len >= n && !strcmp(path + len - n, of)) {
		if (getenv("AIR_TEST_INT_GROUP_AFTER_SPAWN"))
			kill(0, SIGINT);
		else if (!getenv("AIR_TEST_KILL_AFTER_GO") && !getenv("AIR_TEST_KILL_AFTER_RENAME_OF")) {
			const char *pid_file = getenv("AIR_TEST_FORKED_PID_FILE");

			if (pid_file) {
				pid_t copy = fork();
				FILE *f;

				if (copy == 0) { /* not its output: whoever reads it would wait */
					int nul = open("/dev/null", O_RDWR);

					dup2(nul, 0);
					dup2(nul, 1);
					dup2(nul, 2);
					sleep(600);
					_exit(0);
				}
				if ((f = fopen(pid_file, "w")) != NULL) {
					fprintf(f, "%d\n", (int)copy);
					fclose(f);
				}
			}
			kill(getpid(), SIGKILL);
		}
	}
	return rc;
}

typedef int (*rename_fn)(const char *, const char *);

int rename(const char *from, const char *to)
{
	void *sym = dlsym(RTLD_NEXT, "rename");
	const char *of = getenv("AIR_TEST_KILL_AFTER_RENAME_OF");
	rename_fn real;
	int rc;

	memcpy(&real, &sym, sizeof(real));
	rc = sym ? real(from, to) : -1;
	if (rc == 0 && of && *of && strstr(from, of))
		kill(getpid(), SIGKILL);
	return rc;
}

typedef int (*shutdown_fn)(int, int);

int shutdown(int fd, int how)
{
	void *sym = dlsym(RTLD_NEXT, "shutdown");
	shutdown_fn real;
	int rc;

	memcpy(&real, &sym, sizeof(real));
	rc = sym ? real(fd, how) : -1;
	if (rc == 0 && how == SHUT_WR && getenv("AIR_TEST_KILL_AFTER_GO"))
		kill(getpid(), SIGKILL);
	return rc;
}
