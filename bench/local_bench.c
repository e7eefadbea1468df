/*
 * local_bench.c: the local workspace's costs against doing the work directly.
 *
 * - start: a 2-node run whose command is `true`, from air_client_submit()
 *   to SUCCESS observed by air_client_wait_run() (its default options, as a
 *   program gets them), against running `bash command.sh` (the same `true`)
 *   twice one after the other: `ratio`. Also the submission alone
 *   (`submit_s`), and the CPU time of the client (this process) and of the
 *   run's processes (supervisor, guards, bash: this process is their
 *   subreaper, so their CPU time is counted once they are reaped), against
 *   the CPU time of the two direct runs.
 * - logs: a finished local run that printed LINES lines; its log read to a
 *   file by the `air logs` command (`logs_ratio`, also `cli_ratio`), through
 *   air_client_stream_logs() with a text callback (`text_ratio`) and with a
 *   record callback (`stream_ratio`), and through the iterator
 *   (`iter_ratio`), each against `cat` of the node's log file into a file. `cat` copies inside
 *   the kernel where it can (copy_file_range), so a plain read/write copy of
 *   the same file (128 KiB buffer, what cat did before) is printed beside it
 *   (`rw_s`) with the ratios against it.
 * - writing: that run's time to SUCCESS (`write_s`) and the CPU time of its
 *   supervisor, guards and nodes (`write_cpu_s`), against `seq LINES` into
 *   a file twice (`seq_s`, `seq_cpu_s`; the run has two nodes):
 *   `write_cpu_ratio`, what writing the node logs costs (one round).
 * Each figure is the fastest of ROUNDS rounds, the start's (a few
 * milliseconds, that vary by a third between rounds) of START_ROUNDS (other
 * load shares the machine; CPU times are the rounds' median). Beside them, the file system
 * of the state directory (`fs`: the start's figures depend on it, see
 * docs/local.md), and what it takes there to make a folder, to make and
 * write a small file, and to sync one (`fs_folder_us`, `fs_file_us`,
 * `fs_sync_us`, medians of PROBES). The last line is one JSON object with
 * every figure.
 * Usage: [TMPDIR=dir] local_bench [lines (default 1000000)]
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <air/air.h>

#define ROUNDS 5
#define START_ROUNDS 20
#define PROBES 50 /* files and folders made to time the file system */
#define OUT_BUFFER (1 << 20)

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

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static double cpu_of(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
}

/* Reap every child left (the supervisors this process adopted). */
static void reap_all(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double best(const double *v, int n)
{
	double b = v[0];
	for (int i = 1; i < n; i++)
		b = v[i] < b ? v[i] : b;
	return b;
}

/* Run argv to its end (stdout to @out when given, @env as its environment
 * when given); its wall time. */
static double run_cmd(char *const argv[], const char *out, char *const env[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;
	double t0 = now_s();

	posix_spawn_file_actions_init(&fa);
	if (out)
		posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, env ? env : environ) != 0 ||
	    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die(argv[0], NULL);
	posix_spawn_file_actions_destroy(&fa);
	return now_s() - t0;
}

/* What the file system under @dir takes, in µs (medians of PROBES): to
 * make a folder, to make and write a small file, to fsync() one. */
typedef struct fs_costs {
	double folder_us, file_us, sync_us;
} fs_costs;

static fs_costs fs_probe(const char *dir)
{
	double folder[PROBES], file[PROBES], sync[PROBES];
	char path[4200];
	fs_costs c;

	for (int i = 0; i < PROBES; i++) {
		double t0 = now_s();
		int fd;

		snprintf(path, sizeof(path), "%s/probe-%d", dir, i);
		if (mkdir(path, 0700) != 0)
			die("probe folder", NULL);
		folder[i] = now_s() - t0;
		snprintf(path, sizeof(path), "%s/probe-%d/status.json", dir, i);
		t0 = now_s();
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
		    write(fd, "{\"state\":\"RUNNING\"}\n", 20) != 20)
			die("probe file", NULL);
		file[i] = now_s() - t0;
		t0 = now_s();
		if (fsync(fd) != 0 || close(fd) != 0)
			die("probe sync", NULL);
		sync[i] = now_s() - t0;
	}
	c.folder_us = median(folder, PROBES) * 1e6;
	c.file_us = median(file, PROBES) * 1e6;
	c.sync_us = median(sync, PROBES) * 1e6;
	return c;
}

/* The file system of @dir, by name where known (statfs's magic numbers). */
static const char *fs_name(const char *dir)
{
	static char other[32];
	struct statfs sf;

	if (statfs(dir, &sf) != 0)
		return "unknown";
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL: return "ext4"; /* also ext2/ext3 */
	case 0x01021994UL: return "tmpfs";
	case 0x58465342UL: return "xfs";
	case 0x9123683EUL: return "btrfs";
	case 0x794C7630UL: return "overlay";
	default:
		snprintf(other, sizeof(other), "0x%lx", (unsigned long)sf.f_type);
		return other;
	}
}

typedef struct start_round {
	double submit, end, client_cpu, run_cpu;
} start_round;

/* Submit a 2-node workload running @command; wait for SUCCESS. */
static int64_t run_workload(air_client *c, const char *command, start_round *r)
{
	char yaml[2048];
	air_config *cfg = NULL;
	air_submission *sub = NULL;
	air_run *run = NULL;
	air_error *err = NULL;
	int64_t id;
	double t0, cpu0, kids0;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: bench\ncompute:\n  accelerator_type: GPU_1xA10\n"
	         "  num_accelerators: 2\ncommand: |\n  %s\nmax_retries: 0\n", command);
	if (air_config_load_buffer(yaml, strlen(yaml), "bench.yaml", NULL, &cfg, &err) != AIR_OK)
		die("config", err);
	cpu0 = cpu_of(RUSAGE_SELF);
	kids0 = cpu_of(RUSAGE_CHILDREN);
	t0 = now_s();
	if (air_client_submit(c, cfg, NULL, &sub, &err) != AIR_OK)
		die("submit", err);
	r->submit = now_s() - t0;
	id = air_submission_run_id(sub);
	if (air_client_wait_run(c, id, NULL, &run, &err) != AIR_OK || !air_run_succeeded(run))
		die("wait", err);
	r->end = now_s() - t0;
	r->client_cpu = cpu_of(RUSAGE_SELF) - cpu0;
	reap_all(); /* the supervisor ends just after the run */
	r->run_cpu = cpu_of(RUSAGE_CHILDREN) - kids0;
	air_run_free(run);
	air_submission_free(sub);
	air_config_free(cfg);
	return id;
}

static int write_line(const air_log_record *rec, void *ud)
{
	size_t n;
	const char *line = air_log_record_line(rec, &n);

	fwrite_unlocked(line, 1, n, ud); /* one writer: no stdio lock per line */
	putc_unlocked('\n', ud);
	return 0;
}

static int write_text(const char *text, size_t len, void *ud)
{
	fwrite_unlocked(text, 1, len, ud);
	return 0;
}

static FILE *open_out(const char *path)
{
	/* Given, not asked for by size: glibc ignores the size of a buffer it
	 * allocates itself (one file open at a time). */
	static char buffer[OUT_BUFFER];
	FILE *f = fopen(path, "w");

	if (!f)
		die("output", NULL);
	setvbuf(f, buffer, _IOFBF, sizeof(buffer));
	return f;
}

/* The log through the record callback. */
static void logs_stream(air_client *c, int64_t id, air_logs_options *lo, long lines,
                        const char *out)
{
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	FILE *f = open_out(out);

	air_logs_options_set_record_cb(lo, write_line, f);
	if (air_client_stream_logs(c, id, lo, &sum, &err) != AIR_OK ||
	    air_logs_summary_records(sum) != lines)
		die("logs", err);
	air_logs_options_set_record_cb(lo, NULL, NULL);
	if (fclose(f) != 0)
		die("output", NULL);
	air_logs_summary_free(sum);
}

/* The log through the text callback. */
static void logs_text(air_client *c, int64_t id, air_logs_options *lo, long lines,
                      const char *out)
{
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	FILE *f = open_out(out);

	air_logs_options_set_text_cb(lo, write_text, f);
	if (air_client_stream_logs(c, id, lo, &sum, &err) != AIR_OK ||
	    air_logs_summary_records(sum) != lines)
		die("logs (text)", err);
	air_logs_options_set_text_cb(lo, NULL, NULL);
	if (fclose(f) != 0)
		die("output", NULL);
	air_logs_summary_free(sum);
}

/* The log through the iterator. */
static void logs_iter(air_client *c, int64_t id, air_logs_options *lo, long lines,
                      const char *out)
{
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	FILE *f = open_out(out);
	long n = 0;
	int rc = air_client_open_logs(c, id, lo, &it, &err);

	while (rc == AIR_OK && (rc = air_log_iter_next(it, &rec, &err)) == AIR_OK) {
		write_line(rec, f);
		n++;
	}
	if (rc != AIR_EDONE || n != lines)
		die("logs (iterator)", err);
	air_log_iter_free(it);
	if (fclose(f) != 0)
		die("output", NULL);
}

/* What cat did before copy_file_range: read and write, 128 KiB at a time. */
static double read_write(const char *from, const char *to)
{
	static char buf[128 * 1024];
	double t0 = now_s();
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t r;

	if (in < 0 || out < 0)
		die("read/write copy", NULL);
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r)
			die("read/write copy", NULL);
	close(in);
	if (close(out) != 0 || r < 0)
		die("read/write copy", NULL);
	return now_s() - t0;
}

/* This environment for the `air` command, with the local workspace of
 * @host (*host_var: the entry to free). */
static char **cli_env(const char *host, char **host_var)
{
	size_t n = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 2, sizeof(*env))))
		die("environment", NULL);
	n = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "DATABRICKS_", 11) != 0)
			env[n++] = *e;
	if (asprintf(host_var, "DATABRICKS_HOST=%s", host) < 0)
		die("environment", NULL);
	env[n] = *host_var;
	return env;
}

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1000000;
	char dir[1024], host[1100], script[1100], out[1100], log[4096];
	const char *tmp = getenv("TMPDIR");
	char cmd[256], idtext[32], tail[32];
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_logs_options *lo = NULL;
	air_error *err = NULL;
	double sub[START_ROUNDS], end[START_ROUNDS], client_cpu[START_ROUNDS],
		run_cpu[START_ROUNDS], direct[START_ROUNDS], direct_cpu[START_ROUNDS];
	double stream[ROUNDS], text[ROUNDS], iter[ROUNDS], cli[ROUNDS], cat[ROUNDS], rw[ROUNDS];
	double stream_cpu[ROUNDS], text_cpu[ROUNDS], iter_cpu[ROUNDS], cli_cpu[ROUNDS],
		cat_cpu[ROUNDS];
	char **env, *host_var = NULL;
	const char *fs;
	fs_costs probe;
	start_round wr = {0, 0, 0, 0};
	double seq_s, seq_cpu;
	int64_t id;
	FILE *f;

	setenv("AIR_LOCAL_SUPERVISOR", AIR_BENCH_SUPERVISOR, 0); /* the one built beside */
	/* The supervisors leave this process (they double fork): adopt them, so
	 * that they are reaped here and their CPU time counted. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Under $TMPDIR, like any temporary file: the start's figures depend
	 * on how fast the file system there makes files. */
	snprintf(dir, sizeof(dir), "%s/air-local-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("mkdtemp", NULL);
	snprintf(host, sizeof(host), "local://%s", dir);
	snprintf(script, sizeof(script), "%s/command.sh", dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	if (!(f = fopen(script, "w")) || fputs("true\n", f) < 0 || fclose(f) != 0)
		die("command.sh", NULL);
	fs = fs_name(dir);
	air_client_options_new(&o);
	air_client_options_set_str(o, AIR_OPT_HOST, host);
	air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 0);
	if (air_client_new(o, &c, &err) != AIR_OK)
		die("client", err);
	for (int r = 0; r < START_ROUNDS; r++) {
		char *bash[] = {"bash", script, NULL};
		start_round s;
		double k0;

		run_workload(c, "true", &s);
		sub[r] = s.submit;
		end[r] = s.end;
		client_cpu[r] = s.client_cpu;
		run_cpu[r] = s.run_cpu;
		k0 = cpu_of(RUSAGE_CHILDREN);
		direct[r] = run_cmd(bash, NULL, NULL) + run_cmd(bash, NULL, NULL);
		direct_cpu[r] = cpu_of(RUSAGE_CHILDREN) - k0;
	}
	double start_s = best(end, START_ROUNDS), direct_s = best(direct, START_ROUNDS);
	double start_med = median(end, START_ROUNDS), submit_s = best(sub, START_ROUNDS);
	double ccpu = median(client_cpu, START_ROUNDS), rcpu = median(run_cpu, START_ROUNDS);
	double dcpu = median(direct_cpu, START_ROUNDS), direct_med = median(direct, START_ROUNDS);
	printf("start of a 2-node run of `true` to SUCCESS: %.2f ms (median %.2f ms; submission "
	       "%.2f ms); bash command.sh twice: %.2f ms (median %.2f ms); ratio %.2f (of the "
	       "medians %.2f)\n",
	       start_s * 1e3, start_med * 1e3, submit_s * 1e3, direct_s * 1e3, direct_med * 1e3,
	       start_s / direct_s, start_med / direct_med);
	printf("  CPU per run: client %.1f ms, supervisor and nodes %.1f ms; bash twice %.1f ms; "
	       "cpu_ratio %.2f\n",
	       ccpu * 1e3, rcpu * 1e3, dcpu * 1e3, (ccpu + rcpu) / dcpu);
	probe = fs_probe(dir);
	printf("  state directory on %s: a folder %.0f µs, a small file %.0f µs, its fsync() %.0f "
	       "µs\n", fs, probe.folder_us, probe.file_us, probe.sync_us);

	snprintf(cmd, sizeof(cmd), "seq %ld", lines);
	id = run_workload(c, cmd, &wr);
	{
		/* The same output written by the command itself into a file, once
		 * per node. */
		char *seqv[] = {"seq", cmd + 4, NULL};
		double k0 = cpu_of(RUSAGE_CHILDREN);

		seq_s = run_cmd(seqv, out, NULL) + run_cmd(seqv, out, NULL);
		seq_cpu = cpu_of(RUSAGE_CHILDREN) - k0;
	}
	printf("writing: a 2-node run of `seq %ld` to SUCCESS %.3f s, CPU %.3f s (supervisor, "
	       "guards, nodes); `seq %ld` into a file twice %.3f s, CPU %.3f s; write_cpu_ratio "
	       "%.2f\n",
	       lines, wr.end, wr.run_cpu, lines, seq_s, seq_cpu, wr.run_cpu / seq_cpu);
	/* docs/local.md, "The state directory" */
	snprintf(log, sizeof(log), "%s/jobs/runs/%lld/logs/attempt_0/node_0.log", dir, (long long)id);
	if (access(log, R_OK) != 0)
		die(log, NULL);
	air_logs_options_new(&lo);
	air_logs_options_set_int(lo, AIR_LOGS_TAIL_LINES, lines);
	snprintf(idtext, sizeof(idtext), "%lld", (long long)id);
	snprintf(tail, sizeof(tail), "%ld", lines);
	env = cli_env(host, &host_var);
	for (int r = 0; r < ROUNDS; r++) {
		char *catv[] = {"cat", log, NULL};
		char *airv[] = {AIR_BENCH_CLI, "logs", idtext, "--tail", tail, NULL};
		double t0, c0, k0;

		c0 = cpu_of(RUSAGE_SELF);
		t0 = now_s();
		logs_stream(c, id, lo, lines, out);
		stream[r] = now_s() - t0;
		stream_cpu[r] = cpu_of(RUSAGE_SELF) - c0;

		c0 = cpu_of(RUSAGE_SELF);
		t0 = now_s();
		logs_text(c, id, lo, lines, out);
		text[r] = now_s() - t0;
		text_cpu[r] = cpu_of(RUSAGE_SELF) - c0;

		c0 = cpu_of(RUSAGE_SELF);
		t0 = now_s();
		logs_iter(c, id, lo, lines, out);
		iter[r] = now_s() - t0;
		iter_cpu[r] = cpu_of(RUSAGE_SELF) - c0;

		k0 = cpu_of(RUSAGE_CHILDREN);
		cli[r] = run_cmd(airv, out, env);
		cli_cpu[r] = cpu_of(RUSAGE_CHILDREN) - k0;

		k0 = cpu_of(RUSAGE_CHILDREN);
		cat[r] = run_cmd(catv, out, NULL);
		cat_cpu[r] = cpu_of(RUSAGE_CHILDREN) - k0;
		rw[r] = read_write(log, out);
	}
	double stream_s = best(stream, ROUNDS), text_s = best(text, ROUNDS);
	double iter_s = best(iter, ROUNDS), cli_s = best(cli, ROUNDS);
	double cat_s = best(cat, ROUNDS), rw_s = best(rw, ROUNDS);
	printf("%ld lines of a finished run: air logs %.3f s, text callback %.3f s, record "
	       "callback %.3f s, iterator %.3f s; cat of the node log %.3f s (read/write copy "
	       "%.3f s)\n",
	       lines, cli_s, text_s, stream_s, iter_s, cat_s, rw_s);
	printf("  ratios against cat: logs_ratio (air logs) %.2f, text_ratio %.2f, stream_ratio "
	       "%.2f, iter_ratio %.2f; against read/write: %.2f, %.2f, %.2f, %.2f\n",
	       cli_s / cat_s, text_s / cat_s, stream_s / cat_s, iter_s / cat_s, cli_s / rw_s,
	       text_s / rw_s, stream_s / rw_s, iter_s / rw_s);
	printf("  CPU: air logs %.3f s, text %.3f s, stream %.3f s, iterator %.3f s, cat %.3f s\n",
	       median(cli_cpu, ROUNDS), median(text_cpu, ROUNDS), median(stream_cpu, ROUNDS),
	       median(iter_cpu, ROUNDS), median(cat_cpu, ROUNDS));
	printf("{\"bench\":\"local\",\"start_s\":%.4f,\"start_median_s\":%.4f,\"submit_s\":%.4f,"
	       "\"direct_s\":%.4f,\"direct_median_s\":%.4f,\"ratio\":%.3f,\"ratio_median\":%.3f,"
	       "\"client_cpu_s\":%.4f,\"run_cpu_s\":%.4f,"
	       "\"direct_cpu_s\":%.4f,\"cpu_ratio\":%.3f,\"lines\":%ld,\"cli_s\":%.4f,"
	       "\"text_s\":%.4f,\"stream_s\":%.4f,\"iter_s\":%.4f,\"cat_s\":%.4f,\"rw_s\":%.4f,"
	       "\"logs_ratio\":%.3f,\"cli_ratio\":%.3f,\"text_ratio\":%.3f,\"stream_ratio\":%.3f,"
	       "\"iter_ratio\":%.3f,\"logs_ratio_rw\":%.3f,\"text_ratio_rw\":%.3f,"
	       "\"stream_ratio_rw\":%.3f,\"iter_ratio_rw\":%.3f,\"cli_cpu_s\":%.4f,"
	       "\"text_cpu_s\":%.4f,\"stream_cpu_s\":%.4f,\"iter_cpu_s\":%.4f,\"cat_cpu_s\":%.4f,"
	       "\"write_s\":%.4f,\"write_cpu_s\":%.4f,\"seq_s\":%.4f,\"seq_cpu_s\":%.4f,"
	       "\"write_cpu_ratio\":%.3f,\"fs\":\"%s\",\"fs_folder_us\":%.1f,\"fs_file_us\":%.1f,"
	       "\"fs_sync_us\":%.1f}\n",
	       start_s, start_med, submit_s, direct_s, direct_med, start_s / direct_s,
	       start_med / direct_med, ccpu, rcpu, dcpu,
	       (ccpu + rcpu) / dcpu, lines, cli_s, text_s, stream_s, iter_s, cat_s, rw_s,
	       cli_s / cat_s, cli_s / cat_s, text_s / cat_s, stream_s / cat_s, iter_s / cat_s,
	       cli_s / rw_s, text_s / rw_s, stream_s / rw_s, iter_s / rw_s,
	       median(cli_cpu, ROUNDS), median(text_cpu, ROUNDS), median(stream_cpu, ROUNDS),
	       median(iter_cpu, ROUNDS), median(cat_cpu, ROUNDS), wr.end, wr.run_cpu, seq_s, seq_cpu,
	       wr.run_cpu / seq_cpu, fs, probe.folder_us, probe.file_us, probe.sync_us);
	air_logs_options_free(lo);
	air_client_free(c);
	air_client_options_free(o);
	free(host_var);
	free(env);
	run_cmd((char *[]){"rm", "-rf", dir, NULL}, NULL, NULL);
	return 0;
}
