/* sweep_watch.c: `air sweep --watch` (docs/cli.md#sweeps): the state of
 * every variant's run, read every poll interval until every run ended — on a
 * terminal one table redrawn in place, elsewhere a line per change, in JSON
 * mode one JSON object per change. Ctrl-C stops the watching; the runs keep
 * going, and the last line says how to cancel them all. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define SLICE_MS 100

typedef struct row {
	int64_t id;
	char state[48];
	int64_t start_ms, end_ms;
	bool terminal, succeeded, changed;
	int metric;         /* cli_sweep_metric()'s answer */
	double value;
} row;

const char *cli_sweep_point_text(const air_sweep *s, size_t i)
{
	const char *name = air_sweep_variant_run_name(s, i), *space = name ? strchr(name, ' ') : NULL;

	return space ? space + 1 : "(the base config)";
}

static int64_t poll_ms(air_client *client)
{
	const char *knob = getenv("AIR_LOGS_POLL_MS");
	const char *auth = air_client_auth_type(client);
	long v = knob ? atol(knob) : 0;

	if (v > 0)
		return v;
	return auth && !strcmp(auth, "local") ? 1000 : 3000;
}

/* Sleep @ms unless Ctrl-C comes first; false then. */
static bool pause_ms(int64_t ms)
{
	for (int64_t slept = 0; slept < ms; slept += SLICE_MS) {
		struct timespec ts = {0, SLICE_MS * 1000000L};
		if (cli_interrupted())
			return false;
		nanosleep(&ts, NULL);
	}
	return !cli_interrupted();
}

static void duration_text(const row *r, char *out, size_t n)
{
	if (r->start_ms <= 0)
		snprintf(out, n, "-");
	else
		cli_format_duration(cli_duration_s(r->start_ms, r->end_ms), out, n);
}

static void metric_text(const row *r, char *out, size_t n)
{
	if (r->metric > 0)
		snprintf(out, n, "%.6g", r->value);
	else
		snprintf(out, n, "-");
}

/* Read the runs that have not ended; false when Ctrl-C stopped it. */
static bool refresh(air_client *client, row *rows, size_t n, const char *metric)
{
	air_get_options *o = NULL;

	if (air_get_options_new(&o) != AIR_OK || air_get_options_set_interrupt(o, cli_interrupt()))
		return false;
	for (size_t i = 0; i < n && !cli_interrupted(); i++) {
		row *r = &rows[i];
		air_run *run = NULL;
		double before = r->value;
		int had = r->metric;

		r->changed = false;
		if (r->id <= 0 || r->terminal || air_client_get_run(client, r->id, o, &run, NULL))
			continue;
		if (strcmp(r->state, air_run_state_name(run)) != 0) {
			snprintf(r->state, sizeof(r->state), "%s", air_run_state_name(run));
			r->changed = true;
		}
		r->start_ms = air_run_start_time_ms(run);
		r->end_ms = air_run_end_time_ms(run);
		r->terminal = air_run_is_terminal(run);
		r->succeeded = air_run_succeeded(run);
		if (metric && r->start_ms > 0) {
			r->metric = cli_sweep_metric(client, r->id, metric, &r->value);
			r->changed = r->changed || r->metric != had || (r->metric > 0 && r->value != before);
		}
		air_run_free(run);
	}
	air_get_options_free(o);
	return !cli_interrupted();
}

static size_t draw_table(const air_sweep *s, const row *rows, size_t n, const char *metric)
{
	size_t wp = strlen("POINT"), lines = 1;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cli_clean(cli_sweep_point_text(s, i)));
		wp = len > wp ? len : wp;
	}
	printf("%-4s  %-*s  %-20s  %-24s  %-10s%s%s\033[K\n", "#", (int)wp, "POINT", "RUN ID",
	       "STATE", "DURATION", metric ? "  " : "", metric ? cli_clean(metric) : "");
	for (size_t i = 0; i < n; i++, lines++) {
		char id[24] = "-", dur[32], val[32];

		if (rows[i].id > 0)
			snprintf(id, sizeof(id), "%" PRId64, rows[i].id);
		duration_text(&rows[i], dur, sizeof(dur));
		metric_text(&rows[i], val, sizeof(val));
		printf("%-4zu  %-*s  %-20s  %-24s  %-10s%s%s\033[K\n", i, (int)wp,
		       cli_clean(cli_sweep_point_text(s, i)), id, rows[i].state, dur,
		       metric ? "  " : "", metric ? val : "");
	}
	fflush(stdout);
	return lines;
}

static void report_changes(const cli_globals *g, const air_sweep *s, const row *rows, size_t n,
                           const char *metric)
{
	for (size_t i = 0; i < n; i++) {
		const row *r = &rows[i];
		char dur[32], val[32], id[24];

		if (!r->changed)
			continue;
		duration_text(r, dur, sizeof(dur));
		metric_text(r, val, sizeof(val));
		snprintf(id, sizeof(id), "%" PRId64, r->id);
		if (g->json) {
			json_t *e = json_object();
			char ts[32];

			cli_now_rfc3339(ts);
			json_object_set_new(e, "type", json_string("STATE"));
			json_object_set_new(e, "ts", json_string(ts));
			json_object_set_new(e, "index", json_integer((json_int_t)i));
			json_object_set_new(e, "point", json_loads(air_sweep_variant_point(s, i), 0, NULL));
			json_object_set_new(e, "run_id", json_string(id));
			json_object_set_new(e, "status", json_string(r->state));
			json_object_set_new(e, "duration_seconds", r->start_ms > 0
			                    ? json_integer((json_int_t)cli_duration_s(r->start_ms, r->end_ms))
			                    : json_null());
			if (metric)
				json_object_set_new(e, metric, r->metric > 0 ? json_real(r->value) : json_null());
			cli_print_jsonl(e);
		} else {
			/* The metric named: "loss=0.42" ("-" before it is logged). */
			printf("variant %zu (%s): run %s %s %s%s%s%s%s\n", i,
			       cli_clean(cli_sweep_point_text(s, i)), id, r->state, dur,
			       metric ? " " : "", metric ? cli_clean(metric) : "", metric ? "=" : "",
			       metric ? val : "");
			fflush(stdout);
		}
	}
}

int cli_sweep_watch(const cli_globals *g, air_client *client, const air_sweep *s,
                    const char *metric)
{
	size_t n = air_sweep_count(s), drawn = 0, ended = 0, succeeded = 0;
	bool tty = !g->json && cli_isatty_stdout(), done = false, stopped = false;
	row *rows = calloc(n ? n : 1, sizeof(*rows));
	int64_t interval = poll_ms(client);

	if (!rows)
		return cli_error("out of memory");
	for (size_t i = 0; i < n; i++) {
		rows[i].id = air_sweep_variant_run_id(s, i);
		snprintf(rows[i].state, sizeof(rows[i].state), "%s",
		         rows[i].id > 0 ? "SUBMITTED" : "NOT SUBMITTED");
		rows[i].terminal = rows[i].id <= 0;
	}
	while (!done && !stopped) {
		stopped = !refresh(client, rows, n, metric);
		if (tty) {
			if (drawn)
				printf("\033[%zuA", drawn);
			drawn = draw_table(s, rows, n, metric);
		} else {
			report_changes(g, s, rows, n, metric);
		}
		done = true;
		for (size_t i = 0; i < n; i++)
			done = done && rows[i].terminal;
		if (!done && !stopped)
			stopped = !pause_ms(interval);
	}
	for (size_t i = 0; i < n; i++) {
		ended += rows[i].id > 0 && rows[i].terminal;
		succeeded += rows[i].succeeded;
	}
	free(rows);
	if (stopped) {
		fprintf(stderr, "Stopped watching: the runs keep going. `air cancel%s --sweep %s` "
		        "cancels them all.\n", cli_target_flags(),
		        cli_clean(air_sweep_base_key(s)));
		return 1;
	}
	if (g->json) {
		json_t *e = json_object();
		char ts[32];

		cli_now_rfc3339(ts);
		json_object_set_new(e, "type", json_string("DONE"));
		json_object_set_new(e, "ts", json_string(ts));
		json_object_set_new(e, "sweep", json_string(air_sweep_base_key(s)));
		json_object_set_new(e, "runs", json_integer((json_int_t)ended));
		json_object_set_new(e, "succeeded", json_integer((json_int_t)succeeded));
		cli_print_jsonl(e);
	} else {
		fprintf(stderr, "%zu of %zu runs succeeded.\n", succeeded, n);
	}
	return succeeded == n ? 0 : 1;
}
