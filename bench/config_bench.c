/*
 * config_bench.c: cost of loading + validating the shipped example workloads
 * (air_config_load_buffer + air_config_free), against libfyaml alone parsing
 * the same bytes: its event stream (the floor any YAML reader pays) and a
 * full libfyaml document build. Prints a table for people and, as the last
 * line, one JSON object:
 *   {"bench":"config","us_per_load":..,"us_per_parse":..,"ratio_vs_parse":..,
 *    "ratio_vs_document":..,"workloads":N}
 * Times are the thread's CPU time (the work is CPU-bound: on a quiet
 * machine it is the wall time, on a busy one it is not inflated by waiting
 * for a core), and the three measurements of a workload alternate in short
 * rounds whose fastest counts, so that load which comes and goes during the
 * run weighs on none of them more than on the others.
 * Usage: config_bench [min_ms_per_measurement (default 300)]
 */
#include <dirent.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <air/air.h>

typedef struct workload {
	char name[256];
	char *data;
	size_t len;
} workload;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void load_once(const workload *w)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	if (air_config_load_buffer(w->data, w->len, w->name, NULL, &cfg, &err) != AIR_OK) {
		fprintf(stderr, "%s: %s\n", w->name, air_error_message(err));
		exit(1);
	}
	air_config_free(cfg);
}

/* libfyaml's event stream, every event read and released. */
static void events_once(const workload *w)
{
	struct fy_parse_cfg cfg = {NULL, FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2, NULL, NULL};
	struct fy_parser *p = fy_parser_create(&cfg);
	struct fy_event *ev;

	if (!p || fy_parser_set_string(p, w->data, w->len) != 0)
		exit(1);
	while ((ev = fy_parser_parse(p)) != NULL)
		fy_parser_event_free(p, ev);
	fy_parser_destroy(p);
}

/* A libfyaml document tree. */
static void document_once(const workload *w)
{
	struct fy_parse_cfg cfg = {NULL, FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2, NULL, NULL};
	struct fy_document *d = fy_document_build_from_string(&cfg, w->data, w->len);

	if (!d)
		exit(1);
	fy_document_destroy(d);
}

#define ROUNDS 10

/* µs per call of @fn over one round of about @round_ms. */
static double round_us(void (*fn)(const workload *), const workload *w, double round_ms)
{
	long n = 0, batch = 16;
	double start = now_us(), elapsed;

	do {
		for (long i = 0; i < batch; i++)
			fn(w);
		n += batch;
		elapsed = now_us() - start;
	} while (elapsed < round_ms * 1000.0);
	return elapsed / (double)n;
}

/* The fastest round of each of @k functions, the rounds alternating. */
static void measure(void (*const *fns)(const workload *), int k, const workload *w, double min_ms,
                    double *best)
{
	for (int f = 0; f < k; f++) {
		for (int i = 0; i < 32; i++) /* warm caches and allocators */
			fns[f](w);
		best[f] = -1;
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int f = 0; f < k; f++) {
			double us = round_us(fns[f], w, min_ms / ROUNDS);
			if (best[f] < 0 || us < best[f])
				best[f] = us;
		}
}

static int read_examples(workload *ws, int max)
{
	char dir[1024], path[1400];
	struct dirent **names;
	int n = 0, count;

	snprintf(dir, sizeof(dir), "%s/examples", AIR_BENCH_SOURCE_ROOT);
	count = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < count; i++) {
		size_t len = strlen(names[i]->d_name);
		FILE *f;
		if (n < max && len > 5 && !strcmp(names[i]->d_name + len - 5, ".yaml")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			snprintf(ws[n].name, sizeof(ws[n].name), "%s", names[i]->d_name);
			if ((f = fopen(path, "rb")) != NULL) {
				ws[n].data = malloc(AIR_CONFIG_MAX_BYTES);
				ws[n].len = fread(ws[n].data, 1, AIR_CONFIG_MAX_BYTES, f);
				fclose(f);
				n++;
			}
		}
		free(names[i]);
	}
	free(names);
	return n;
}

int main(int argc, char **argv)
{
	workload ws[32];
	double min_ms = argc > 1 ? atof(argv[1]) : 300.0;
	double sum_load = 0, sum_events = 0, sum_doc = 0;
	int n = read_examples(ws, 32);

	if (n == 0) {
		fprintf(stderr, "no examples found under %s/examples\n", AIR_BENCH_SOURCE_ROOT);
		return 1;
	}
	printf("%-26s %7s %12s %12s %12s %8s %8s\n", "workload", "bytes", "load+valid", "fy events",
	       "fy document", "x events", "x doc");
	for (int i = 0; i < n; i++) {
		static void (*const fns[3])(const workload *) = {load_once, events_once, document_once};
		double best[3], load, ev, doc;

		measure(fns, 3, &ws[i], min_ms, best);
		load = best[0];
		ev = best[1];
		doc = best[2];
		printf("%-26s %7zu %9.2f us %9.2f us %9.2f us %7.2fx %7.2fx\n", ws[i].name, ws[i].len,
		       load, ev, doc, load / ev, load / doc);
		sum_load += load;
		sum_events += ev;
		sum_doc += doc;
	}
	printf("%-26s %7s %9.2f us %9.2f us %9.2f us %7.2fx %7.2fx\n", "mean", "", sum_load / n,
	       sum_events / n, sum_doc / n, sum_load / sum_events, sum_load / sum_doc);
	printf("{\"bench\":\"config\",\"us_per_load\":%.2f,\"us_per_parse\":%.2f,"
	       "\"ratio_vs_parse\":%.3f,\"ratio_vs_document\":%.3f,\"workloads\":%d}\n",
	       sum_load / n, sum_events / n, sum_load / sum_events, sum_load / sum_doc, n);
	for (int i = 0; i < n; i++)
		free(ws[i].data);
	return 0;
}
