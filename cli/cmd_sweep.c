/* cmd_sweep.c: `air sweep` (docs/cli.md#sweeps, docs/submit.md#sweeps): the
 * points from --grid, --points and --sample, the sweep submitted (or only
 * validated with --dry-run), a table of its variants or one JSON envelope,
 * and --watch. Exit status 1 when a variant was not submitted. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char sweep_usage[] =
	"air sweep -f FILE (--grid PATH=V1,V2,...)... | --points FILE [--sample N [--seed S]]\n"
	"          [--override PATH=VALUE]... [--idempotency-key BASE] [--max-parallel N]\n"
	"          [--watch [--metric NAME]] [--dry-run | --resume]";

static const char sweep_description[] =
	"Submit many variants of one workload, each exactly once: a grid of values, an\n"
	"explicit list of points or a random sample of either, each variant a run with\n"
	"its point in its name. Submitting the same sweep again starts nothing new.\n";

typedef struct sweep_args {
	const char *file, *points_file, *base, *metric;
	cli_strlist grid, overrides;
	int64_t sample, seed, max_parallel;
	bool sample_given, seed_given, max_parallel_given, watch, dry_run, resume;
} sweep_args;

/* The values of "PATH=V1,V2": split at commas outside brackets and quotes,
 * so that "[1, 2]" or "'a,b'" stay one value. */
static int add_grid_axis(air_sweep_points *p, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *path, *text, *start;
	const char **values = NULL;
	size_t n = 0, depth = 0;
	char quote = 0;
	air_error *err = NULL;
	int rc;

	if (!eq)
		return cli_error("invalid --grid \"%s\": expected PATH=V1,V2,...", spec);
	path = strndup(spec, (size_t)(eq - spec));
	text = strdup(eq + 1);
	values = calloc(strlen(eq + 1) + 2, sizeof(*values));
	if (!path || !text || !values) {
		free(path);
		free(text);
		free(values);
		return cli_error("out of memory");
	}
	for (char *c = start = text;; c++) {
		if (quote) {
			if (*c == quote)
				quote = 0;
			else if (!*c)
				break;
			continue;
		}
		if (*c == '\'' || *c == '"')
			quote = *c;
		else if (*c == '[' || *c == '{')
			depth++;
		else if ((*c == ']' || *c == '}') && depth)
			depth--;
		else if ((*c == ',' && !depth) || !*c) {
			bool end = !*c;
			*c = '\0';
			values[n++] = start;
			start = c + 1;
			if (end)
				break;
		}
	}
	rc = air_sweep_points_add_axis(p, path, values, n, &err);
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
	}
	free(path);
	free(text);
	free(values);
	return rc == AIR_OK ? 0 : 1;
}

static int build_points(const sweep_args *a, air_sweep_points **out)
{
	air_sweep_points *p = NULL;
	air_error *err = NULL;
	int rc = air_sweep_points_new(&p) == AIR_OK ? 0 : cli_error("out of memory");

	for (int i = 0; rc == 0 && i < a->grid.count; i++)
		rc = add_grid_axis(p, a->grid.items[i]);
	if (rc == 0 && a->points_file && air_sweep_points_load_file(p, a->points_file, &err) != AIR_OK)
		rc = 1;
	if (rc == 0 && a->sample_given && (uint64_t)a->sample > air_sweep_points_count(p))
		fprintf(stderr, "Note: --sample %" PRId64 ": only %zu point%s; all are used.\n",
		        a->sample, air_sweep_points_count(p), air_sweep_points_count(p) == 1 ? "" : "s");
	if (rc == 0 && a->sample_given &&
	    air_sweep_points_sample(p, (uint64_t)a->sample, (uint64_t)a->seed, &err) != AIR_OK)
		rc = 1;
	if (err) {
		cli_error_air(err, air_error_code(err));
		air_error_free(err);
	}
	if (rc != 0) {
		air_sweep_points_free(p);
		return 1;
	}
	*out = p;
	return 0;
}

/* Variant progress in text mode, on stderr, on a terminal or not (a local
 * sweep may wait hours for its runs): first the sweep's base key and how to
 * stop it, then a line per submitted or failed variant. */
static int on_variant(const air_sweep *s, size_t i, void *userdata)
{
	int32_t st = air_sweep_variant_status(s, i);
	bool *named = userdata;

	if (!*named && air_sweep_base_key(s)) {
		if (air_sweep_resumed(s))
			fprintf(stderr, "Sweep %s: its stop is undone (--resume).\n",
			        cli_clean(air_sweep_base_key(s)));
		fprintf(stderr, "Sweep %s: `air cancel%s --sweep %s` stops it.\n",
		        cli_clean(air_sweep_base_key(s)), cli_target_flags(),
		        cli_clean(air_sweep_base_key(s)));
		*named = true;
	}
	if (st == AIR_VARIANT_SUBMITTED)
		fprintf(stderr, "variant %zu (%s): run %" PRId64 "\n", i,
		        cli_clean(cli_sweep_point_text(s, i)), air_sweep_variant_run_id(s, i));
	else if (st == AIR_VARIANT_FAILED)
		fprintf(stderr, "variant %zu (%s): not submitted\n", i,
		        cli_clean(cli_sweep_point_text(s, i)));
	fflush(stderr);
	return 0;
}

/* The sweep's options; @named is on_variant()'s: whether it named the sweep. */
static int build_options(const cli_globals *g, const sweep_args *a, bool *named,
                         air_sweep_options **out)
{
	air_sweep_options *o = NULL;
	int rc = air_sweep_options_new(&o);

	if (rc == AIR_OK)
		rc = air_sweep_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK && a->base)
		rc = air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, a->base);
	if (rc == AIR_OK && a->max_parallel_given)
		rc = air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, a->max_parallel);
	if (rc == AIR_OK && a->resume)
		rc = air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1);
	if (rc == AIR_OK && !g->json && !a->dry_run)
		rc = air_sweep_options_set_progress_cb(o, on_variant, named);
	if (rc != AIR_OK) {
		air_sweep_options_free(o);
		return cli_error("--idempotency-key: give a base key of 1 to 256 bytes");
	}
	*out = o;
	return 0;
}

static json_t *error_json(const air_error *e)
{
	json_t *j = json_object();

	json_object_set_new(j, "code", json_string(air_status_name(air_error_code(e))));
	json_object_set_new(j, "kind", json_string(air_kind_name(air_error_kind(e))));
	json_object_set_new(j, "message", json_string(air_error_message(e)));
	json_object_set_new(j, "retryable", json_boolean(air_error_retryable(e)));
	return j;
}

static int print_json(const air_sweep *s, bool dry_run)
{
	json_t *data = json_object(), *runs = json_array();
	const char *base = air_sweep_base_key(s);

	for (size_t i = 0; i < air_sweep_count(s); i++) {
		json_t *r = json_object();
		const char *key = air_sweep_variant_idempotency_key(s, i);
		const air_error *e = air_sweep_variant_error(s, i);
		char id[24];

		json_object_set_new(r, "point", json_loads(air_sweep_variant_point(s, i), 0, NULL));
		json_object_set_new(r, "run_name", json_string(air_sweep_variant_run_name(s, i)));
		if (air_sweep_variant_run_id(s, i) > 0) {
			snprintf(id, sizeof(id), "%" PRId64, air_sweep_variant_run_id(s, i));
			json_object_set_new(r, "run_id", json_string(id));
			json_object_set_new(r, "dashboard_url",
			                    json_string(air_sweep_variant_dashboard_url(s, i)));
		}
		json_object_set_new(r, "idempotency_key", key ? json_string(key) : json_null());
		if (e)
			json_object_set_new(r, "error", error_json(e));
		json_array_append_new(runs, r);
	}
	json_object_set_new(data, "sweep", base ? json_string(base) : json_null());
	if (dry_run)
		json_object_set_new(data, "dry_run", json_true());
	if (air_sweep_resumed(s))
		json_object_set_new(data, "resumed", json_true());
	json_object_set_new(data, "runs", runs);
	return cli_print_data(data);
}

/* The state of each submitted variant's run, read once (a runs/get each):
 * submitting a sweep again returns the runs that exist, which may have moved
 * on or ended. Whether a run was new is not in the runs/submit reply, so
 * every run is read. NULL where unread ("PENDING" then); *@active says
 * whether a run may still be going. */
static char **read_states(air_client *client, const air_sweep *s, bool *active)
{
	size_t n = air_sweep_count(s);
	char **states = calloc(n ? n : 1, sizeof(*states));
	air_get_options *o = NULL;

	*active = false;
	if (!states || air_get_options_new(&o) != AIR_OK ||
	    air_get_options_set_interrupt(o, cli_interrupt()) != AIR_OK) {
		air_get_options_free(o);
		*active = true;
		return states;
	}
	for (size_t i = 0; i < n; i++) {
		air_run *run = NULL;
		int64_t id = air_sweep_variant_run_id(s, i);

		if (id <= 0)
			continue;
		if (cli_interrupted() || air_client_get_run(client, id, o, &run, NULL) != AIR_OK) {
			*active = true;
			continue;
		}
		states[i] = strdup(air_run_state_name(run));
		*active = *active || !air_run_is_terminal(run);
		air_run_free(run);
	}
	air_get_options_free(o);
	return states;
}

static void free_states(char **states, size_t n)
{
	for (size_t i = 0; states && i < n; i++)
		free(states[i]);
	free(states);
}

/* How many variants an interrupt (Ctrl-C) left unsubmitted. */
static size_t interrupted(const air_sweep *s)
{
	size_t n = 0;

	for (size_t i = 0; i < air_sweep_count(s); i++)
		n += air_sweep_variant_error(s, i) &&
		     air_error_code(air_sweep_variant_error(s, i)) == AIR_EINTERRUPTED;
	return n;
}

/* Why variants failed, on stderr: each failure on its own, and those the
 * sweep's stop left unsubmitted (AIR_EABORTED, one reason), or an interrupt,
 * in one line each. */
static void print_variant_errors(const air_sweep *s)
{
	const char *stop = NULL, *prefix = "not submitted: ";
	size_t stopped = 0, cut = interrupted(s);

	if (cut)
		fprintf(stderr, "%zu variant%s not submitted: the sweep was interrupted before %s.\n",
		        cut, cut == 1 ? " was" : "s were", cut == 1 ? "it" : "them");
	for (size_t i = 0; i < air_sweep_count(s); i++) {
		const air_error *e = air_sweep_variant_error(s, i);

		if (e && air_error_code(e) == AIR_EINTERRUPTED) {
			continue;
		} else if (e && air_error_code(e) == AIR_EABORTED) {
			stop = stop ? stop : air_error_message(e);
			stopped++;
		} else if (e) {
			fprintf(stderr, "Error: variant %zu (%s): %s\n", i,
			        cli_clean(cli_sweep_point_text(s, i)),
			        cli_clean_lines(air_error_message(e)));
		}
	}
	if (!stopped)
		return;
	if (!strncmp(stop, prefix, strlen(prefix)))
		stop += strlen(prefix);
	fprintf(stderr, "%zu variant%s not submitted: %s.\n", stopped,
	        stopped == 1 ? " was" : "s were", cli_clean_lines(stop));
}

/* The variants; @states (or NULL) the state of each one's run. */
static void print_table(const air_sweep *s, bool dry_run, char *const *states)
{
	size_t n = air_sweep_count(s), wp = strlen("POINT"), wi = 20; /* an int64 */

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cli_clean(cli_sweep_point_text(s, i)));
		wp = len > wp ? len : wp;
	}
	printf("%-4s  %-*s  %-*s  %s\n", "#", (int)wp, "POINT", (int)wi, "RUN ID", "STATE");
	for (size_t i = 0; i < n; i++) {
		int32_t st = air_sweep_variant_status(s, i);
		char id[24] = "-";

		if (air_sweep_variant_run_id(s, i) > 0)
			snprintf(id, sizeof(id), "%" PRId64, air_sweep_variant_run_id(s, i));
		printf("%-4zu  %-*s  %-*s  %s\n", i, (int)wp, cli_clean(cli_sweep_point_text(s, i)),
		       (int)wi, id,
		       dry_run                    ? "VALID"
		       : st != AIR_VARIANT_SUBMITTED ? "NOT SUBMITTED"
		       : states && states[i]         ? cli_clean(states[i])
		                                     : "PENDING");
	}
	fflush(stdout);
	print_variant_errors(s);
}

/* Whether a variant was not submitted because a run of the sweep was
 * cancelled (the sweep stopped). */
static bool cancelled(const air_sweep *s)
{
	for (size_t i = 0; i < air_sweep_count(s); i++)
		if (air_sweep_variant_error(s, i) &&
		    air_error_code(air_sweep_variant_error(s, i)) == AIR_EABORTED)
			return true;
	return false;
}

/* How to find and stop the runs of the sweep (stderr, text mode); how to
 * stop them only when one may still be going (@active). */
static void print_tips(const cli_globals *g, const air_sweep *s, bool watching, bool active)
{
	const char *base = air_sweep_base_key(s);
	const char *local = cli_target_flags();

	if (!base)
		return;
	if (cancelled(s)) {
		fprintf(stderr, "The sweep was stopped: the variants not submitted stay so when the "
		        "same `air sweep` is run again; with --idempotency-key %s --resume it undoes "
		        "the stop and submits them.\n", cli_clean(base));
		return;
	}
	if (interrupted(s))
		fprintf(stderr, "The same `air sweep` with --idempotency-key %s submits the variants "
		        "not submitted; those submitted keep their runs.\n", cli_clean(base));
	else if (!watching)
		fprintf(stderr, "Tip: `air list%s --sweep %s` shows its runs; the same `air sweep` with "
		        "--watch follows them (it starts nothing new).\n",
		        local, cli_clean(base));
	if (active)
		fprintf(stderr, "The runs keep going; `air cancel%s --sweep %s` cancels them all.\n",
		        local, cli_clean(base));
	else if (air_sweep_failed_count(s) < air_sweep_count(s))
		fprintf(stderr, "The runs have all ended.\n");
}

/* The table of a submitted sweep, each run's state read: whether one may
 * still be going. */
static bool print_run_states(air_client *client, const air_sweep *s)
{
	bool active = false;
	char **states = read_states(client, s, &active);

	print_table(s, false, states);
	free_states(states, air_sweep_count(s));
	return active;
}

/* The table of a sweep submitted or validated. */
static int print_outcome(const cli_globals *g, const air_sweep *s, air_client *client,
                         bool dry_run)
{
	if (dry_run)
		print_table(s, true, NULL);
	else
		print_tips(g, s, false, print_run_states(client, s));
	return air_sweep_failed_count(s) ? 1 : 0;
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static int run_sweep(const cli_globals *g, const sweep_args *a, const air_config *cfg,
                     const air_sweep_points *p)
{
	air_sweep_options *o = NULL;
	air_client *client = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;
	bool named = false;
	int rc = build_options(g, a, &named, &o);

	if (rc != 0)
		return rc;
	if (a->dry_run) {
		rc = air_config_validate_sweep(cfg, p, o, &s, &err);
	} else if ((rc = cli_client_new(g, &client, &err)) == AIR_OK) {
		if (!g->json)
			fprintf(stderr, "Submitting a sweep of %zu variant%s of experiment '%s'...\n",
			        air_sweep_points_count(p), plural(air_sweep_points_count(p)),
			        air_config_experiment_name(cfg));
		rc = air_client_submit_sweep(client, cfg, p, o, &s, &err);
	}
	if (rc != AIR_OK) {
		if (s && !g->json) {
			print_table(s, false, NULL);
			print_tips(g, s, true, true);
		}
		cli_error_air(err, rc);
		rc = 1;
	} else if (a->watch && !a->dry_run) {
		if (!g->json) {
			fprintf(stderr, "Sweep %s\n", cli_clean(air_sweep_base_key(s)));
			print_run_states(client, s);
		}
		rc = cli_sweep_watch(g, client, s, a->metric);
		if (air_sweep_failed_count(s))
			rc = 1;
	} else if (g->json) {
		print_json(s, a->dry_run);
		rc = air_sweep_failed_count(s) ? 1 : 0;
	} else {
		if (air_sweep_base_key(s))
			fprintf(stderr, "Sweep %s: %zu variant%s%s\n", cli_clean(air_sweep_base_key(s)),
			        air_sweep_count(s), plural(air_sweep_count(s)),
			        !a->dry_run ? ""
			        : air_sweep_count(s) == 1 ? " is valid; nothing was submitted (dry run)"
			                                  : " are valid; nothing was submitted (dry run)");
		else
			fprintf(stderr, "%zu variant%s valid; nothing was submitted (dry run).\n",
			        air_sweep_count(s), air_sweep_count(s) == 1 ? " is" : "s are");
		rc = print_outcome(g, s, client, a->dry_run);
	}
	air_error_free(err);
	air_sweep_free(s);
	air_sweep_options_free(o);
	cli_client_free(client);
	return rc;
}

/* Flag combinations the usage line rules out. */
static int check_args(const sweep_args *a)
{
	if (!a->file)
		return cli_error("required flag(s) \"file\" not set");
	if (!a->grid.count == !a->points_file)
		return cli_error(a->points_file ? "give either --grid or --points, not both"
		                                : "give the points: --grid PATH=V1,V2,... (repeatable) "
		                                  "or --points FILE");
	if (a->seed_given && !a->sample_given)
		return cli_error("--seed goes with --sample N");
	if (a->sample_given && a->sample <= 0)
		return cli_error("--sample must be greater than 0, got %" PRId64, a->sample);
	if (a->max_parallel_given && (a->max_parallel < 1 || a->max_parallel > AIR_SWEEP_LIMIT_PARALLEL))
		return cli_error("--max-parallel must be 1 to %d, got %" PRId64,
		                 (int)AIR_SWEEP_LIMIT_PARALLEL, a->max_parallel);
	if (a->metric && !a->watch)
		return cli_error("--metric goes with --watch");
	if (a->resume && a->dry_run)
		return cli_error("--resume goes without --dry-run: a dry run sends nothing");
	if (a->base && !a->base[strspn(a->base, " \t\r\n")])
		return cli_error("--idempotency-key is empty: give a base key, or leave the flag out");
	return 0;
}

int cmd_sweep(int argc, char **argv, cli_globals *g)
{
	sweep_args a;
	cli_strlist pos = {NULL, 0};
	air_config *cfg = NULL;
	air_sweep_points *p = NULL;
	int rc;

	memset(&a, 0, sizeof(a));
	{
		const cli_flag flags[] = {
			{"file", 'f', CLI_STRING, &a.file, NULL, "FILE", "workload YAML file (required)",
			 false},
			{"grid", 0, CLI_STRING_LIST, &a.grid, NULL, "PATH=V1,V2,...",
			 "an axis of the grid: every combination of the axes' values is a variant "
			 "(repeatable)", false},
			{"points", 0, CLI_STRING, &a.points_file, NULL, "FILE",
			 "explicit points: JSON Lines or YAML, one mapping of PATH: value per point", false},
			{"sample", 0, CLI_INT, &a.sample, &a.sample_given, "N",
			 "a random sample of N of the points", false},
			{"seed", 0, CLI_INT, &a.seed, &a.seed_given, "S",
			 "the sample's seed (default 0): the same seed picks the same points", false},
			{"override", 0, CLI_STRING_LIST, &a.overrides, NULL, "PATH=VALUE",
			 "override a field of every variant (repeatable)", false},
			{"idempotency-key", 0, CLI_STRING, &a.base, NULL, "BASE",
			 "the base of every variant's key (default: derived from user, experiment, date "
			 "and config); a new base starts a fresh sweep", false},
			{"max-parallel", 0, CLI_INT, &a.max_parallel, &a.max_parallel_given, "N",
			 "variants at a time (default 8; 1 on a local workspace, where runs share this "
			 "machine)", false},
			{"watch", 0, CLI_BOOL, &a.watch, NULL, NULL,
			 "follow the runs in a table until every one ends", false},
			{"metric", 0, CLI_STRING, &a.metric, NULL, "NAME",
			 "with --watch: a column with the last value of this MLflow metric", false},
			{"dry-run", 0, CLI_BOOL, &a.dry_run, NULL, NULL,
			 "validate every variant and print them; nothing is uploaded or started", false},
			{"resume", 0, CLI_BOOL, &a.resume, NULL, NULL,
			 "undo an earlier stop of this sweep (air cancel --sweep) and submit its "
			 "variants that have no run", false},
			{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
		};

		if (cli_wants_help(argc, argv)) {
			fputs(sweep_description, stdout);
			cli_print_usage(stdout, sweep_usage, flags);
			return 0;
		}
		if (!cli_parse(argc, argv, flags, g, &pos, sweep_usage)) {
			rc = 1;
			goto out;
		}
		if (pos.count) {
			rc = cli_error("unknown command \"%s\" for \"air sweep\"", pos.items[0]);
			cli_print_usage(stderr, sweep_usage, flags);
			goto out;
		}
		if ((rc = check_args(&a)) != 0) {
			cli_print_usage(stderr, sweep_usage, flags);
			goto out;
		}
	}
	/* The base every variant starts from must be valid on its own
	 * (air_config_validate_sweep() takes a validated config). */
	rc = cli_load_config(a.file, &a.overrides,
	                     "the workload file with its --override values is validated before "
	                     "the points are applied: make it valid on its own (an --override "
	                     "can set what the points then change)", &cfg);
	/* The key `air sweep` printed: a derived one changes with the date. */
	if (rc == 0 && a.resume && !a.base && !air_config_idempotency_token(cfg))
		rc = cli_error("--resume needs the sweep's key: give --idempotency-key BASE (a key "
		               "derived from the date would start a new sweep)");
	if (rc == 0)
		rc = build_points(&a, &p);
	if (rc == 0)
		rc = run_sweep(g, &a, cfg, p);
out:
	air_sweep_points_free(p);
	air_config_free(cfg);
	cli_strlist_free(&a.grid);
	cli_strlist_free(&a.overrides);
	cli_strlist_free(&pos);
	return rc;
}
