/* list_actions.c: what the interactive `air list` does with the selected
 * run besides showing it: open a page in a browser, read a snapshot of its
 * logs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runs_cli.h"

extern char **environ;

/* How long an opener may take to report a failure (xdg-open returns once the
 * browser is asked; a browser started directly may run on: that counts as
 * started). */
#define OPENER_WAIT_MS 3000

/* argv of one opener command with @url in place of "%s" (or appended); NULL
 * when empty or out of memory. Free with free_argv(). */
static char **opener_argv(const char *command, const char *url)
{
	char *copy = strdup(command), *save = NULL, *word;
	char **argv = calloc(strlen(command) / 2 + 3, sizeof(*argv));
	size_t n = 0;
	bool placed = false;

	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	for (word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
		placed |= !strcmp(word, "%s");
		argv[n++] = strdup(!strcmp(word, "%s") ? url : word);
	}
	if (n && !placed)
		argv[n++] = strdup(url);
	free(copy);
	for (size_t i = 0; i < n; i++) {
		if (!argv[i]) { /* out of memory */
			for (size_t j = 0; j < n; j++)
				free(argv[j]);
			n = 0;
			break;
		}
	}
	if (!n) {
		free(argv);
		return NULL;
	}
	return argv;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Start @argv detached from the terminal (stdio on /dev/null, its own
 * session); true when it runs on or exited 0 within OPENER_WAIT_MS. */
static bool start_opener(char **argv, char *why, size_t n)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	int st, e;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	e = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		snprintf(why, n, "%s: %s", argv[0], strerror(e));
		return false;
	}
	for (int waited = 0; waited < OPENER_WAIT_MS && !cli_interrupted(); waited += 50) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				return true;
			snprintf(why, n, "%s failed", argv[0]);
			return false;
		}
		if (r < 0)
			return true; /* reaped elsewhere: it started */
		poll(NULL, 0, 50);
	}
	return true; /* still running: a browser of its own */
}

bool cli_open_url(const char *url, char *why, size_t n)
{
	const char *browser = getenv("BROWSER");
	char *list = strdup(browser && *browser ? browser : ""), *save = NULL, *cmd;
	bool ok = false;

	snprintf(why, n, "no browser: set BROWSER");
	for (cmd = list ? strtok_r(list, ":", &save) : NULL; cmd && !ok;
	     cmd = strtok_r(NULL, ":", &save)) {
		char **argv = opener_argv(cmd, url);
		ok = argv && start_opener(argv, why, n);
		free_argv(argv);
	}
	free(list);
	if (!ok) {
		char *argv[] = {(char *)"xdg-open", (char *)url, NULL};
		char tried[256];

		snprintf(tried, sizeof(tried), "%s", why);
		ok = start_opener(argv, why, n);
		if (!ok && browser && *browser)
			snprintf(why, n, "%s", tried); /* the user's own choice says more */
	}
	return ok;
}

int cli_logs_snapshot(air_client *c, int64_t run_id, size_t max, char ***lines, char *why,
                      size_t n)
{
	air_logs_options *o = NULL;
	air_log_iter *it = NULL;
	air_error *err = NULL;
	const air_log_record *rec;
	char **ring = calloc(max ? max : 1, sizeof(*ring));
	size_t count = 0;
	int rc = ring ? air_logs_options_new(&o) : AIR_ENOMEM;

	/* One pass: a finished run's tail, or what an active run printed so far
	 * (its last @max lines are kept). */
	if (rc == AIR_OK)
		rc = air_logs_options_set_int(o, AIR_LOGS_FOLLOW, 0);
	if (rc == AIR_OK)
		rc = air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, (int64_t)max);
	if (rc == AIR_OK)
		rc = air_logs_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_client_open_logs(c, run_id, o, &it, &err);
	while (rc == AIR_OK && max && (rc = air_log_iter_next(it, &rec, &err)) == AIR_OK) {
		size_t len;
		const char *line = air_log_record_line(rec, &len);

		free(ring[count % max]);
		ring[count % max] = cli_clean_dup(line, len, false);
		count++;
	}
	if (rc == AIR_OK || rc == AIR_EDONE) {
		const char *none = it ? air_logs_summary_no_logs_message(air_log_iter_summary(it)) : NULL;
		size_t kept = count < max ? count : max;

		/* Oldest first. */
		*lines = calloc(kept + 2, sizeof(**lines));
		for (size_t i = 0; *lines && i < kept; i++)
			(*lines)[i] = ring[(count - kept + i) % max];
		if (*lines && !kept && none)
			(*lines)[kept++] = cli_clean_dup(none, strlen(none), false);
		rc = *lines ? (int)kept : -1;
		if (*lines)
			count = 0; /* the lines moved to *lines */
		else
			snprintf(why, n, "%s", air_strerror(AIR_ENOMEM));
	} else {
		snprintf(why, n, "%s", err ? cli_clean(air_error_message(err)) : air_strerror(rc));
		rc = -1;
	}
	for (size_t i = 0; ring && i < (count < max ? count : max); i++)
		free(ring[i]);
	free(ring);
	air_error_free(err);
	air_log_iter_free(it);
	air_logs_options_free(o);
	return rc;
}
