/*
 * local_bench.c: the local workspace's costs against doing the work directly.
 *
 * - start: a 2-node run whose command is `true`, from air_client_submit()
 *   to SUCCESS (air_client_wait_run(), 5 ms polls), against running
 *   `bash command.sh` (the same `true`) twice one after the other: `ratio`.
 * - logs: a finished local run that printed LINES lines; its log read
 *   through air_client_stream_logs() (tail of LINES, every line written to a
 *   file) against `cat` of the node's log file into a file: `logs_ratio`.
 * Each figure is the fastest of ROUNDS rounds (other load shares the
 * machine); the CPU times of the bench process and its children are printed
 * beside. The last line is one JSON object with every figure.
 * Usage: local_bench [lines (default 1000000)]
 */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <air/air.h>

#define ROUNDS 3

extern char **environ;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, air_error *err)
{
	fprintf(stderr, "local_bench: %s: %s\n", what, err ? air_error_message(err) : "failed");
	exit(1);
}

/* Run argv to its end (stdout to @out when given); its wall time. */
static double run_cmd(char *const argv[], const char *out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;
	double t0 = now_s();

	posix_spawn_file_actions_init(&fa);
	if (out)
		posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die(argv[0], NULL);
	posix_spawn_file_actions_destroy(&fa);
	return now_s() - t0;
}

/* Submit a 2-node workload running @command; wait for SUCCESS. */
static int64_t run_workload(air_client *c, const char *dir, const char *command, double *took)
{
	char yaml[2048];
	air_config *cfg = NULL;
	air_submission *sub = NULL;
	air_wait_options *w = NULL;
	air_run *run = NULL;
	air_error *err = NULL;
	int64_t id;
	double t0;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: bench\ncompute:\n  accelerator_type: GPU_1xA10\n"
	         "  num_accelerators: 2\ncommand: |\n  %s\nmax_retries: 0\n", command);
	if (air_config_load_buffer(yaml, strlen(yaml), "bench.yaml", NULL, &cfg, &err) != AIR_OK)
		die("config", err);
	air_wait_options_new(&w);
	air_wait_options_set_int(w, AIR_WAIT_POLL_INTERVAL_MS, 5);
	t0 = now_s();
	if (air_client_submit(c, cfg, NULL, &sub, &err) != AIR_OK)
		die("submit", err);
	id = air_submission_run_id(sub);
	if (air_client_wait_run(c, id, w, &run, &err) != AIR_OK || !air_run_succeeded(run))
		die("wait", err);
	*took = now_s() - t0;
	(void)dir;
	air_run_free(run);
	air_wait_options_free(w);
	air_submission_free(sub);
	air_config_free(cfg);
	return id;
}

/* The node-0 log file of run @id under @dir (found by name). */
static int find_log(const char *dir, char *out, size_t size, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d)) != NULL) {
		char p[4096];
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (!strcmp(de->d_name, "node_0.log")) {
			snprintf(out, size, "%s", p);
			found = 1;
		} else if (de->d_type == DT_DIR && depth < 8) {
			found = find_log(p, out, size, depth + 1);
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int write_line(const air_log_record *rec, void *ud)
{
	size_t n;
	const char *line = air_log_record_line(rec, &n);

	fwrite(line, 1, n, ud);
	fputc('\n', ud);
	return 0;
}

static double cpu_children_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1000000;
	char dir[] = "/tmp/air-local-bench-XXXXXX", host[256], script[512], out[512], log[4096];
	char cmd[256];
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_logs_options *lo = NULL;
	air_error *err = NULL;
	double start = -1, direct = -1, logs = -1, cat = -1;
	int64_t id;
	FILE *f;

	setenv("AIR_LOCAL_SUPERVISOR", AIR_BENCH_SUPERVISOR, 0); /* the one built beside */
	if (!mkdtemp(dir))
		die("mkdtemp", NULL);
	snprintf(host, sizeof(host), "local://%s", dir);
	snprintf(script, sizeof(script), "%s/command.sh", dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	if (!(f = fopen(script, "w")) || fputs("true\n", f) < 0 || fclose(f) != 0)
		die("command.sh", NULL);
	air_client_options_new(&o);
	air_client_options_set_str(o, AIR_OPT_HOST, host);
	air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 0);
	if (air_client_new(o, &c, &err) != AIR_OK)
		die("client", err);
	for (int r = 0; r < ROUNDS; r++) {
		char *bash[] = {"bash", script, NULL};
		double t, d;
		run_workload(c, dir, "true", &t);
		d = run_cmd(bash, NULL) + run_cmd(bash, NULL);
		if (start < 0 || t < start)
			start = t;
		if (direct < 0 || d < direct)
			direct = d;
	}
	printf("start of a 2-node run of `true` to SUCCESS: %.3f s; bash command.sh twice: %.3f s; "
	       "ratio %.2f\n", start, direct, start / direct);

	snprintf(cmd, sizeof(cmd), "seq %ld", lines);
	id = run_workload(c, dir, cmd, &(double){0});
	air_logs_options_new(&lo);
	air_logs_options_set_int(lo, AIR_LOGS_TAIL_LINES, lines);
	for (int r = 0; r < ROUNDS; r++) {
		char *catv[] = {"cat", log, NULL};
		air_logs_summary *sum = NULL;
		double t0 = now_s(), t;

		if (!(f = fopen(out, "w")))
			die("output", NULL);
		air_logs_options_set_record_cb(lo, write_line, f);
		if (air_client_stream_logs(c, id, lo, &sum, &err) != AIR_OK ||
		    air_logs_summary_records(sum) != lines)
			die("logs", err);
		fclose(f);
		t = now_s() - t0;
		air_logs_summary_free(sum);
		if (r == 0 && !find_log(dir, log, sizeof(log), 0))
			die("node_0.log", NULL);
		if (logs < 0 || t < logs)
			logs = t;
		t = run_cmd(catv, out);
		if (cat < 0 || t < cat)
			cat = t;
	}
	printf("%ld lines: logs of the finished run %.3f s; cat of the node log %.3f s; "
	       "logs_ratio %.2f (children CPU %.2f s)\n",
	       lines, logs, cat, logs / cat, cpu_children_s());
	printf("{\"bench\":\"local\",\"start_s\":%.4f,\"direct_s\":%.4f,\"ratio\":%.3f,\"lines\":%ld,"
	       "\"logs_s\":%.4f,\"cat_s\":%.4f,\"logs_ratio\":%.3f}\n",
	       start, direct, start / direct, lines, logs, cat, logs / cat);
	air_logs_options_free(lo);
	air_client_free(c);
	air_client_options_free(o);
	run_cmd((char *[]){"rm", "-rf", dir, NULL}, NULL);
	return 0;
}
