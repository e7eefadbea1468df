/*
 * snapshot_bench.c: peak memory of a code snapshot as the tree grows. The
 * archive streams to a temporary file and the upload reads it back from
 * there, so the peak resident size should stay flat from 10 MiB to 1 GiB
 * of files.
 *
 * For each size it builds a tree of 1 MiB files, half of them random bytes
 * (gzip cannot shrink them) and half a repeated text (it shrinks to almost
 * nothing), so that the archive of the 1 GiB tree stays under the 1 GiB
 * limit, then, each in a fresh process
 * (getrusage's peak is per process):
 *   - package: plan + package the snapshot (lib/submit internals);
 *   - submit:  a whole air_client_submit() of a workload with that
 *              code_source against the fake workspace, upload included.
 * It prints the archive size, the time and the peak resident size of both,
 * and as its last line one JSON object with the figures.
 *
 * Usage: snapshot_bench [MIB...] (default 10 100 1024). Needs about twice
 * the largest size free in $TMPDIR (the tree and the archive); the fake
 * workspace keeps the uploaded archive in its memory. Run by hand: it is
 * not part of `meson test`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <air/air.h>

#include "fakews.h"
#include "submit/snapshot.h"

typedef struct figures {
	int64_t archive_bytes;
	double package_s, submit_s;
	long package_kib, submit_kib, baseline_kib;
} figures;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long peak_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* @mib files of 1 MiB under @root/src (8 subdirectories). */
static void build_tree(const char *root, int mib)
{
	static unsigned char chunk[1 << 20];
	uint64_t x = 0x9E3779B97F4A7C15u;
	char path[4400];

	for (int d = 0; d < 8; d++) {
		snprintf(path, sizeof(path), "mkdir -p '%s/src/d%d'", root, d);
		if (system(path) != 0)
			die("mkdir");
	}
	for (int f = 0; f < mib; f++) {
		FILE *fp;

		for (size_t i = 0; i < sizeof(chunk); i += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (f % 2)
				memcpy(chunk + i, "log line", 8);
			else
				memcpy(chunk + i, &x, 8);
		}
		snprintf(path, sizeof(path), "%s/src/d%d/f%05d.txt", root, f % 8, f);
		if (!(fp = fopen(path, "wb")) || fwrite(chunk, 1, sizeof(chunk), fp) != sizeof(chunk) ||
		    fclose(fp) != 0)
			die(path);
	}
}

static void package(const char *root, figures *out)
{
	char src[4200];
	air__snapshot_spec spec;
	air__snapshot s;
	air_error *err = NULL;
	double t0;

	snprintf(src, sizeof(src), "%s/src", root);
	memset(&spec, 0, sizeof(spec));
	spec.root_path = src;
	if (air__snapshot_plan(&spec, &s, &err) != AIR_OK) {
		fprintf(stderr, "snapshot_bench: plan: %s\n", air_error_message(err));
		exit(1);
	}
	out->baseline_kib = peak_kib();
	t0 = now_s();
	if (air__snapshot_package(&s, NULL, &err) != AIR_OK) {
		fprintf(stderr, "snapshot_bench: package: %s\n", air_error_message(err));
		exit(1);
	}
	out->package_s = now_s() - t0;
	out->package_kib = peak_kib();
	out->archive_bytes = s.archive.size;
	air__snapshot_dispose(&s);
}

static void submit(const char *root, fakews *fw, figures *out)
{
	char yaml[4400];
	air_config *cfg = NULL;
	air_client *c = fakews_client(fw);
	air_submission *sub = NULL;
	air_error *err = NULL;
	double t0;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: bench\ncommand: python train.py\n"
	         "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
	         "code_source: {root_path: %s/src}\n", root);
	if (air_config_load_buffer(yaml, strlen(yaml), "bench.yaml", NULL, &cfg, &err) != AIR_OK) {
		fprintf(stderr, "snapshot_bench: workload: %s\n", air_error_message(err));
		exit(1);
	}
	t0 = now_s();
	if (air_client_submit(c, cfg, NULL, &sub, &err) != AIR_OK) {
		fprintf(stderr, "snapshot_bench: submit: %s\n", air_error_message(err));
		exit(1);
	}
	out->submit_s = now_s() - t0;
	out->submit_kib = peak_kib();
	air_submission_free(sub);
	air_config_free(cfg);
	air_client_free(c);
}

/* Run @fn in a fresh process; its figures come back through a pipe. */
static void in_child(void (*fn)(const char *, fakews *, figures *), const char *root, fakews *fw,
                     figures *out)
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) != 0 || (pid = fork()) < 0)
		die("snapshot_bench");
	if (pid == 0) {
		figures f = *out;
		fn(root, fw, &f);
		_exit(write(fds[1], &f, sizeof(f)) == sizeof(f) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], out, sizeof(*out)) != sizeof(*out) || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "snapshot_bench: a measurement failed\n");
		exit(1);
	}
	close(fds[0]);
}

static void package_step(const char *root, fakews *fw, figures *f)
{
	(void)fw;
	package(root, f);
}

int main(int argc, char **argv)
{
	int sizes[16] = {10, 100, 1024}, n = 3;
	const char *tmp = getenv("TMPDIR");
	figures f[16];
	fakews *fw;

	if (argc > 1) {
		n = 0;
		for (int i = 1; i < argc && n < 16; i++)
			sizes[n++] = atoi(argv[i]);
	}
	fw = fakews_start();
	fakews_configf(fw, "{\"record_requests\":false}");
	printf("%-8s %12s %10s %14s %10s %14s\n", "tree", "archive", "package", "peak RSS", "submit",
	       "peak RSS");
	for (int i = 0; i < n; i++) {
		char root[1024], cmd[1200];

		snprintf(root, sizeof(root), "%s/air-snapshot-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(root))
			die("mkdtemp");
		build_tree(root, sizes[i]);
		memset(&f[i], 0, sizeof(f[i]));
		in_child(package_step, root, fw, &f[i]);
		in_child(submit, root, fw, &f[i]);
		fakews_reset(fw);
		fakews_configf(fw, "{\"record_requests\":false}");
		printf("%5d MiB %8.1f MiB %9.2fs %10.1f MiB %9.2fs %10.1f MiB\n", sizes[i],
		       (double)f[i].archive_bytes / (1 << 20), f[i].package_s,
		       (double)f[i].package_kib / 1024, f[i].submit_s, (double)f[i].submit_kib / 1024);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			die("rm");
	}
	printf("{\"bench\":\"snapshot\",\"sizes\":[");
	for (int i = 0; i < n; i++)
		printf("%s{\"tree_mib\":%d,\"archive_bytes\":%lld,\"package_s\":%.2f,"
		       "\"package_peak_kib\":%ld,\"submit_s\":%.2f,\"submit_peak_kib\":%ld}",
		       i ? "," : "", sizes[i], (long long)f[i].archive_bytes, f[i].package_s,
		       f[i].package_kib, f[i].submit_s, f[i].submit_kib);
	printf("]}\n");
	fakews_stop(fw);
	return 0;
}
