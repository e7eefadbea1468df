/*
 * profile_bench.c: cost of reading a config file (~/.databrickscfg) as it
 * grows, to show the INI reader stays linear on hostile input: many sections,
 * and many keys in one section. For each size it prints the CPU time and the
 * nanoseconds per entry; "growth" is ns/entry at the largest size divided by
 * ns/entry at the smallest (about 1 when linear, about 33 when quadratic).
 * The sizes start past the CPU caches (below them an entry is cheaper still,
 * which says nothing about the algorithm).
 * The last line is one JSON object:
 *   {"bench":"profile","ns_per_section":..,"ns_per_key":..,
 *    "growth_sections":..,"growth_keys":..}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "transport/profile.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void build(air__buf *text, int n, int many_keys)
{
	air__buf_clear(text);
	if (many_keys)
		air__buf_puts(text, "[many]\n");
	for (int i = 0; i < n; i++) {
		if (many_keys)
			air__buf_printf(text, "k%d = %d\n", i, i);
		else
			air__buf_printf(text, "[p%d]\nhost = https://h%d.example\n", i, i);
	}
}

/* Best of three parses plus one lookup, in nanoseconds per generated entry. */
static double measure(air__buf *text, int n, int many_keys)
{
	double best = 0;

	build(text, n, many_keys);
	for (int round = 0; round < 3; round++) {
		air__ini *ini = NULL;
		air_error *err = NULL;
		double t0 = cpu_seconds(), spent;

		if (air__ini_parse("bench.cfg", air__buf_cstr(text), text->len, &ini, &err) != AIR_OK) {
			fprintf(stderr, "parse failed: %s\n", air_error_message(err));
			exit(1);
		}
		if (!air__ini_get(ini, many_keys ? "many" : "p0", many_keys ? "k0" : "host")) {
			fprintf(stderr, "lookup failed\n");
			exit(1);
		}
		air__ini_free(ini);
		spent = cpu_seconds() - t0;
		if (round == 0 || spent < best)
			best = spent;
	}
	return best * 1e9 / n;
}

/* measure() in a fresh process: a heap left fragmented by the previous size
 * would otherwise be charged to this one. */
static double ns_per_entry(air__buf *text, int n, int many_keys)
{
	int fds[2], status;
	double ns = -1;
	pid_t pid;

	if (pipe(fds) != 0 || (pid = fork()) < 0) {
		perror("profile_bench");
		exit(1);
	}
	if (pid == 0) {
		ns = measure(text, n, many_keys);
		_exit(write(fds[1], &ns, sizeof(ns)) == sizeof(ns) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], &ns, sizeof(ns)) != sizeof(ns) || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "profile_bench: measurement of %d entries failed\n", n);
		exit(1);
	}
	close(fds[0]);
	return ns;
}

int main(void)
{
	static const int sizes[] = {30000, 100000, 300000, 1000000};
	enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };
	air__buf text = AIR__BUF_INIT;
	double sec[NSIZES], key[NSIZES];

	printf("%-10s %16s %16s\n", "entries", "ns/section", "ns/key");
	for (int i = 0; i < NSIZES; i++) {
		sec[i] = ns_per_entry(&text, sizes[i], 0);
		key[i] = ns_per_entry(&text, sizes[i], 1);
		printf("%-10d %16.1f %16.1f\n", sizes[i], sec[i], key[i]);
	}
	printf("growth from %d to %d entries: sections %.2fx, keys %.2fx (1 = linear)\n", sizes[0],
	       sizes[NSIZES - 1], sec[NSIZES - 1] / sec[0], key[NSIZES - 1] / key[0]);
	printf("{\"bench\":\"profile\",\"ns_per_section\":%.1f,\"ns_per_key\":%.1f,"
	       "\"growth_sections\":%.2f,\"growth_keys\":%.2f}\n",
	       sec[NSIZES - 1], key[NSIZES - 1], sec[NSIZES - 1] / sec[0], key[NSIZES - 1] / key[0]);
	air__buf_dispose(&text);
	return 0;
}
