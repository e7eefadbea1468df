/* cmd_cancel.c: `air cancel RUN_ID... | --all [-y] | --sweep BASE [-y]`
 * (docs/runs-and-logs.md#cancelling, docs/cli.md). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "runs_cli.h"

static const char cancel_usage[] =
	"air cancel RUN_ID... | air cancel --all [-y] | air cancel --sweep BASE [-y]";

/* One outcome per argument, in argument order. */
typedef struct outcome {
	char *run_id;      /* as given (decimal for --all) */
	bool ok;
	bool not_found;
	char *error;
} outcome;

typedef struct outcomes {
	outcome *items;
	size_t n;
	size_t said;       /* how many are on stderr already (text mode) */
} outcomes;

static void add(outcomes *o, const char *run_id, bool ok, bool not_found, const char *error)
{
	outcome *items = realloc(o->items, (o->n + 1) * sizeof(*items));

	if (!items)
		return;
	o->items = items;
	items[o->n].run_id = strdup(run_id);
	items[o->n].ok = ok;
	items[o->n].not_found = not_found;
	items[o->n].error = error ? strdup(error) : NULL;
	o->n++;
}

static void outcomes_free(outcomes *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->items[i].run_id);
		free(o->items[i].error);
	}
	free(o->items);
}

/* Cancel @ids; append their outcomes (the report keeps the order). An
 * AIR_* code: a failure of the whole call leaves @out as it was. */
static int request_cancel(air_client *c, const int64_t *ids, size_t n, outcomes *out,
                          air_error **err)
{
	air_cancel_report *rep = NULL;
	int rc = air_client_cancel_runs(c, ids, n, cli_call_options(), &rep, err);

	for (size_t i = 0; rc == AIR_OK && i < air_cancel_report_count(rep); i++) {
		char id[24];
		int32_t st = air_cancel_report_status(rep, i);

		snprintf(id, sizeof(id), "%" PRId64, air_cancel_report_run_id(rep, i));
		add(out, id, st == AIR_OK, st == AIR_ENOTFOUND, air_cancel_report_message(rep, i));
	}
	air_cancel_report_free(rep);
	return rc;
}

/* request_cancel(), a failure of the whole call reported: 0, or the exit
 * status. */
static int cancel_ids(const cli_globals *g, air_client *c, const int64_t *ids, size_t n,
                      outcomes *out)
{
	air_error *err = NULL;
	int rc = request_cancel(c, ids, n, out, &err);

	if (rc != AIR_OK)
		rc = cli_runs_fail(g, CLI_STAGE_CANCEL, rc, err);
	air_error_free(err);
	return rc;
}

/* The outcomes of @o not said yet, a line each on stderr (text mode): as
 * they come, before a wait. */
static void say_new(const cli_globals *g, outcomes *o)
{
	if (!g->json)
		for (size_t i = o->said; i < o->n; i++) {
			const outcome *it = &o->items[i];
			if (it->ok)
				fprintf(stderr, "Cancellation requested for run %s.\n", cli_clean(it->run_id));
			else if (it->not_found)
				fprintf(stderr, "Run %s not found: %s; check that it is a Job Run ID (air "
				                "list%s shows them).\n",
				        cli_clean(it->run_id),
				        it->error ? cli_clean_lines(it->error) : "not found",
				        cli_target_flags());
			else
				fprintf(stderr, "Failed to cancel run %s: %s\n", cli_clean(it->run_id),
				        it->error ? cli_clean_lines(it->error) : "failed");
		}
	o->said = o->n;
}

/* The outcomes, as JSON data or lines on stderr. @listed: runs that the
 * command found (--all, --sweep: the count is said even for one); @all:
 * --all ("all": true); @workspace: its host, or NULL; @sweep: --sweep's
 * base key, whose stop is said (@stopped: "stopped" in JSON). */
static int report(const cli_globals *g, outcomes *o, bool listed, bool all,
                  const char *workspace, const char *sweep, bool stopped)
{
	size_t failed = 0, done = 0;

	for (size_t i = 0; i < o->n; i++)
		o->items[i].ok ? done++ : failed++;
	if (g->json) {
		json_t *data = json_object(), *cancelled = json_array(), *fails = json_array();

		for (size_t i = 0; i < o->n; i++) {
			if (o->items[i].ok) {
				json_array_append_new(cancelled, json_string(o->items[i].run_id));
			} else {
				json_t *f = json_object();
				json_object_set_new(f, "run_id", json_string(o->items[i].run_id));
				json_object_set_new(f, "error", json_string(o->items[i].error ? o->items[i].error
				                                                               : "failed"));
				json_array_append_new(fails, f);
			}
		}
		json_object_set_new(data, "cancelled", cancelled);
		if (all)
			json_object_set_new(data, "all", json_true());
		if (workspace)
			json_object_set_new(data, "workspace", json_string(workspace));
		if (sweep)
			json_object_set_new(data, "stopped", json_boolean(stopped));
		if (failed)
			json_object_set_new(data, "failed", fails);
		else
			json_decref(fails);
		cli_print_data(data);
	} else {
		say_new(g, o);
		if (failed)
			fprintf(stderr, "%zu run%s could not be cancelled.\n", failed, failed == 1 ? "" : "s");
		else if (done > 1 || (listed && done > 0))
			fprintf(stderr, "Cancelled %zu run%s.\n", done, done == 1 ? "" : "s");
	}
	return failed ? 1 : 0;
}

static int cancel_listed(const cli_globals *g, char **args, int n)
{
	outcomes out = {NULL, 0, 0};
	int64_t *ids = calloc((size_t)n + 1, sizeof(*ids));
	size_t *slot = calloc((size_t)n + 1, sizeof(*slot));
	size_t nids = 0;
	air_client *c = NULL;
	outcomes done = {NULL, 0, 0};
	int rc = 0;

	if (!ids || !slot) {
		free(ids);
		free(slot);
		return cli_error("out of memory");
	}
	for (int i = 0; i < n; i++)
		if (cli_parse_run_id(args[i], &ids[nids]))
			slot[nids++] = (size_t)i;
	if (nids && cli_runs_open(g, CLI_OPEN_CANCEL | CLI_OPEN_NO_PROBE, &c, NULL) != 0)
		rc = 1;
	if (rc == 0 && nids)
		rc = cancel_ids(g, c, ids, nids, &done);
	if (rc == 0) {
		/* Merge: invalid ids (no request made) keep their place. */
		size_t k = 0;
		for (int i = 0; i < n; i++) {
			if (k < done.n && slot[k] == (size_t)i) {
				outcome *d = &done.items[k++];
				add(&out, args[i], d->ok, d->not_found, d->error);
			} else {
				char msg[160];
				snprintf(msg, sizeof(msg), "invalid run ID \"%.100s\": must be a positive integer",
				         args[i]);
				add(&out, args[i], false, false, msg);
			}
		}
		rc = report(g, &out, false, false, NULL, NULL, false);
	}
	outcomes_free(&out);
	outcomes_free(&done);
	cli_client_free(c);
	free(ids);
	free(slot);
	return rc;
}

/* @question answered yes on standard input. */
static bool confirmed(const char *question)
{
	char line[64];
	size_t n;

	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (!cli_wait_stdin() || !fgets(line, sizeof(line), stdin))
		return false;
	for (n = strlen(line); n > 0 && isspace((unsigned char)line[n - 1]); n--)
		line[n - 1] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

/* What the --all preview and cancellation need of an active run. */
typedef struct active_run {
	int64_t id;
	char *experiment;
	int64_t start_ms;
} active_run;

static void preview(const active_run *runs, size_t n)
{
	fprintf(stderr, "%-20s  %-32s  %s\n", "RUN ID", "EXPERIMENT", "STARTED");
	for (size_t i = 0; i < n; i++) {
		char started[64] = "-";
		if (runs[i].start_ms > 0)
			cli_format_utc_minutes(runs[i].start_ms, started, sizeof(started));
		fprintf(stderr, "%-20" PRId64 "  %-32s  %s\n", runs[i].id,
		        runs[i].experiment ? cli_clean(runs[i].experiment) : "-", started);
	}
}

/* The caller's active AI Runtime runs (scan strategy, up to @limit), finished
 * ones too when @all_status, those of one sweep when @sweep_filter
 * ("sweep=BASE") is given. */
static int find_runs(air_client *c, const char *sweep_filter, int64_t limit, bool all_status,
                     active_run **runs, size_t *n, air_error **err)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	int rc = air_list_options_new(&o);

	*runs = NULL;
	*n = 0;
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_LIMIT, limit);
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_ALL_STATUS, all_status);
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_WORKSPACE_ID, 0);
	if (rc == AIR_OK)
		rc = air_list_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK && sweep_filter)
		rc = air_list_options_add_filter(o, sweep_filter, err);
	if (rc == AIR_OK)
		rc = air_client_list_runs(c, o, &it, err);
	while (rc == AIR_OK && (rc = air_run_iter_next(it, &run, err)) == AIR_OK) {
		active_run *p = realloc(*runs, (*n + 1) * sizeof(*p));
		const char *exp = air_run_experiment_name(run);

		if (!p) {
			rc = AIR_ENOMEM;
			break;
		}
		*runs = p;
		p[*n].id = air_run_id(run);
		p[*n].experiment = exp ? strdup(exp) : NULL;
		p[*n].start_ms = air_run_start_time_ms(run);
		(*n)++;
	}
	if (rc == AIR_EDONE)
		rc = AIR_OK;
	air_run_iter_free(it);
	air_list_options_free(o);
	return rc;
}

/* Whether @c is a local workspace, where sweeps start their runs one batch
 * at a time (submit.md, "Sweeps"). */
static bool is_local(air_client *c)
{
	return !strncmp(air_client_host(c), "local://", strlen("local://"));
}

/* The outcome of run @id in @o, or NULL. */
static const outcome *outcome_of(const outcomes *o, int64_t id)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRId64, id);
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->items[i].run_id, text))
			return &o->items[i];
	return NULL;
}

/* How many times cancel --sweep cancels runs it finds started meanwhile. */
#define LATE_LOOKS 5
/* How long it waits, on a local workspace, for the runs it cancelled to
 * end before it stops looking; and how often it looks meanwhile. */
#define LOCAL_END_WAIT_MS 30000
#define LOCAL_LOOK_MS 250

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A look for, or a cancel of, runs of sweep @sweep started meanwhile that
 * failed (@err, freed): said, as what was cancelled is still reported; not
 * after Ctrl-C, which only ends the looks. */
static void warn_late(const char *sweep, const char *what, air_error *err)
{
	if (!cli_interrupted())
		fprintf(stderr, "Warning: could not %s runs of sweep %s started meanwhile: %s\n", what,
		        cli_clean(sweep), err ? cli_clean_lines(air_error_message(err)) : "failed");
	air_error_free(err);
}

/* One look at the active runs of sweep @filter: those @out has no outcome
 * for into @late (*n_late), and how many have one that is a cancel
 * requested (*ending). AIR_* code. */
static int look(air_client *c, const char *filter, const outcomes *out, int64_t **late,
                size_t *n_late, size_t *ending, air_error **err)
{
	active_run *runs = NULL;
	size_t n = 0;
	int rc = find_runs(c, filter, 2000, false, &runs, &n, err);

	*late = NULL;
	*n_late = *ending = 0;
	if (rc == AIR_OK && n && !(*late = calloc(n, sizeof(**late))))
		rc = AIR_ENOMEM;
	for (size_t i = 0; rc == AIR_OK && i < n; i++) {
		const outcome *o = outcome_of(out, runs[i].id);

		if (!o)
			(*late)[(*n_late)++] = runs[i].id;
		else if (o->ok)
			(*ending)++;
	}
	for (size_t i = 0; i < n; i++)
		free(runs[i].experiment);
	free(runs);
	return rc;
}

/* The runs of sweep @sweep (@filter) that started while the ones found
 * were shown and cancelled — a sweep that waits for a free place starts its
 * next variant when one of its runs ends — cancelled too, until a look
 * finds none that @out has not. A local sweep may start one just before it
 * sees a cancellation, so on a local workspace the looks go on until the
 * runs cancelled have ended (at most LOCAL_END_WAIT_MS). A look that fails
 * is a warning, and Ctrl-C ends the looks: what was cancelled is reported
 * either way. */
static void cancel_late_runs(const cli_globals *g, air_client *c, const char *filter,
                             const char *sweep, outcomes *out)
{
	bool local = is_local(c), said = false;
	int64_t until = now_ms() + LOCAL_END_WAIT_MS;
	size_t ending = 0;

	for (int looks = 0; looks < LATE_LOOKS && !cli_interrupted();) {
		air_error *err = NULL;
		int64_t *late = NULL;
		size_t k = 0;

		if (look(c, filter, out, &late, &k, &ending, &err) != AIR_OK) {
			warn_late(sweep, "look again for", err);
			free(late);
			return;
		}
		if (k > 0) {
			int got;

			fprintf(stderr, "%zu more run%s of sweep %s started meanwhile; cancelling %s "
			        "too.\n", k, k == 1 ? "" : "s", cli_clean(sweep), k == 1 ? "it" : "them");
			got = request_cancel(c, late, k, out, &err);
			free(late);
			if (got != AIR_OK) {
				warn_late(sweep, "cancel", err);
				return;
			}
			say_new(g, out);
			looks++;
			continue;
		}
		free(late);
		if (!local || ending == 0 || now_ms() >= until)
			break;
		/* runs cancelled, still ending: look again shortly */
		if (!said)
			fprintf(stderr, "Waiting for the run%s cancelled to end...\n", ending == 1 ? "" : "s");
		said = true;
		poll(NULL, 0, LOCAL_LOOK_MS);
	}
	if (local && ending > 0 && cli_interrupted())
		fprintf(stderr, "\nStopped waiting: %zu run%s of sweep %s %s still ending.\n", ending,
		        ending == 1 ? "" : "s", cli_clean(sweep), ending == 1 ? "is" : "are");
	else if (local && ending > 0)
		fprintf(stderr, "%zu run%s of sweep %s %s still ending after %d s: `air list --sweep "
		        "%s` shows %s.\n", ending, ending == 1 ? "" : "s", cli_clean(sweep),
		        ending == 1 ? "is" : "are", LOCAL_END_WAIT_MS / 1000, cli_clean(sweep),
		        ending == 1 ? "it" : "them");
}

/* Stop sweep @sweep (air_client_stop_sweep()): an `air sweep` of it that is
 * going, anywhere, submits no more variants. False, said, when it failed. */
static bool stop_sweep(air_client *c, const char *sweep)
{
	air_error *err = NULL;

	if (air_client_stop_sweep(c, sweep, cli_call_options(), &err) == AIR_OK) {
		fprintf(stderr, "Sweep %s is stopped: an `air sweep` of it that is still going submits "
		        "no more variants.\n", cli_clean(sweep));
		return true;
	}
	fprintf(stderr, "Error: could not stop sweep %s: %s\nAn `air sweep` of it that is still "
	        "going may submit more variants.\n", cli_clean(sweep),
	        cli_clean_lines(air_error_message(err)));
	air_error_free(err);
	return false;
}

/* The notice of a declined prompt (after Ctrl-C, on a line of its own). */
static int aborted(const char *what)
{
	bool ctrl_c = cli_interrupted();

	fprintf(stderr, "%sAborted: %s.%s\n", ctrl_c ? "\n" : "", what,
	        ctrl_c || isatty(STDIN_FILENO) ? "" : " (standard input is not a terminal: -y "
	                                              "confirms)");
	return 1;
}

static int cancel_all(const cli_globals *g, const char *sweep, bool yes)
{
	air_client *c = NULL;
	air_error *err = NULL;
	active_run *runs = NULL;
	outcomes out = {NULL, 0, 0};
	char *me = NULL, *filter = NULL;
	size_t n = 0;
	bool stopped = false, declined = false;
	int rc = cli_runs_open(g, CLI_OPEN_CANCEL, &c, &me);

	if (rc != 0)
		return rc;
	if (sweep && !(filter = malloc(strlen(sweep) + sizeof("sweep=")))) {
		air_free(me);
		cli_client_free(c);
		return cli_error("out of memory");
	}
	if (sweep) {
		sprintf(filter, "sweep=%s", sweep);
		fprintf(stderr, "Looking for active runs of sweep %s in %s...\n", cli_clean(sweep),
		        air_client_host(c));
	} else {
		fprintf(stderr, "Looking for active runs of %s in %s...\n", me, air_client_host(c));
	}
	rc = find_runs(c, filter, 2000, false, &runs, &n, &err);
	if (rc == AIR_OK && n == 0 && sweep) {
		/* None active: stopped all the same (an `air sweep` of it may be
		 * between two runs, or still starting); has it any run at all? */
		active_run *any = NULL;
		size_t n_any = 0;

		rc = find_runs(c, filter, 1, true, &any, &n_any, &err);
		for (size_t i = 0; i < n_any; i++)
			free(any[i].experiment);
		free(any);
		if (rc == AIR_OK)
			fprintf(stderr, n_any ? "No active runs of sweep %s.\n"
			                      : "No runs of sweep %s found.\n", cli_clean(sweep));
		/* None at all may be a mistyped key: a stop stays, so ask. */
		if (rc == AIR_OK && !n_any && !yes &&
		    !confirmed("Stop it all the same (an `air sweep` of it that is still starting "
		               "then submits nothing)?"))
			declined = true;
		else if (rc == AIR_OK)
			stopped = stop_sweep(c, sweep);
	}
	if (rc != AIR_OK) {
		rc = cli_runs_fail(g, CLI_STAGE_CANCEL, rc, err);
	} else if (declined) {
		rc = aborted("the sweep was not stopped");
	} else if (n == 0) {
		if (!sweep)
			fprintf(stderr, "No active runs found.\n");
		rc = report(g, &out, true, !sweep, sweep ? NULL : air_client_host(c), sweep, stopped);
		if (sweep && !stopped)
			rc = 1;
	} else {
		if (!yes)
			preview(runs, n);
		char question[400];

		if (sweep)
			snprintf(question, sizeof(question), "Cancel these runs and stop sweep %s?",
			         cli_clean(sweep));
		else
			snprintf(question, sizeof(question), "Cancel these runs?");
		if (!yes && !confirmed(question)) {
			/* Ctrl-C at the prompt declines: end the prompt's line first. */
			rc = aborted("no run was cancelled");
		} else {
			int64_t *ids = calloc(n, sizeof(*ids));
			/* The sweep first: no variant of it starts while its runs are
			 * cancelled. */
			stopped = sweep && stop_sweep(c, sweep);
			for (size_t i = 0; ids && i < n; i++)
				ids[i] = runs[i].id;
			rc = ids ? cancel_ids(g, c, ids, n, &out) : cli_error("out of memory");
			if (rc == 0)
				say_new(g, &out);
			if (rc == 0 && sweep)
				cancel_late_runs(g, c, filter, sweep, &out);
			if (rc == 0)
				rc = report(g, &out, true, !sweep, NULL, sweep, stopped);
			if (rc == 0 && sweep && !stopped)
				rc = 1;
			free(ids);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(runs[i].experiment);
	free(runs);
	free(filter);
	outcomes_free(&out);
	air_error_free(err);
	air_free(me);
	cli_client_free(c);
	return rc;
}

int cmd_cancel(int argc, char **argv, cli_globals *g)
{
	bool all = false, yes = false;
	const char *sweep = NULL;
	const cli_flag flags[] = {
		{"all", 0, CLI_BOOL, &all, NULL, NULL, "cancel all your active runs", false},
		{"sweep", 0, CLI_STRING, &sweep, NULL, "BASE",
		 "stop the sweep with this base key and cancel its active runs", false},
		{"yes", 'y', CLI_BOOL, &yes, NULL, NULL,
		 "do not ask for confirmation with --all or --sweep", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	cli_strlist pos = {NULL, 0};
	int rc;

	if (cli_wants_help(argc, argv)) {
		cli_print_usage(stdout, cancel_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, cancel_usage)) {
		cli_strlist_free(&pos);
		return 1;
	}
	if ((all || sweep) && (pos.count || (all && sweep))) {
		rc = cli_error("%s cannot be combined with %s", all ? "--all" : "--sweep",
		               pos.count ? "run IDs" : "--sweep");
		cli_print_usage(stderr, cancel_usage, flags);
	} else if (!all && !sweep && !pos.count) {
		rc = cli_error("give at least one run ID, --all or --sweep BASE");
		cli_print_usage(stderr, cancel_usage, flags);
	} else if (all || sweep) {
		rc = cancel_all(g, sweep, yes);
	} else {
		rc = cancel_listed(g, (char **)pos.items, pos.count);
	}
	cli_strlist_free(&pos);
	return rc;
}
