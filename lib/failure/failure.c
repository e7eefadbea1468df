/*
 * failure.c: air_client_get_failure() (docs/runs-and-logs.md#why-a-run-failed):
 * runs/get, then the tail of the failing node's log read through the log
 * iterator (endpoint or MLflow fallback) and scanned line by line.
 */
#include "failure/failure.h"
#include "logs/logs.h"

/* A page of the log that fails is tried this many times, this far apart,
 * before the MLflow fallback: a report should not wait long for a log. */
#define PAGE_TRIES 2
#define PAGE_RETRY_MS 1000

/* ---- options ---------------------------------------------------------------------- */

static void defaults(air_failure_options *o)
{
	o->call = (air__call_opts)AIR__CALL_OPTS_INIT;
	o->excerpt_lines = AIR__FAILURE_EXCERPT_LINES;
	o->node = -1;
	o->attempt = -1;
	o->scan_lines = AIR__FAILURE_SCAN_LINES;
	o->scan_nodes = AIR__FAILURE_SCAN_NODES;
}

int air_failure_options_new(air_failure_options **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__malloc(sizeof(**out))))
		return AIR_ENOMEM;
	defaults(*out);
	return AIR_OK;
}

void air_failure_options_free(air_failure_options *opts) { air__free(opts); }

int air_failure_options_set_int(air_failure_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	/* Each option's range; AIR_FAILURE_ATTEMPT takes any negative value
	 * for the latest attempt, as AIR_LOGS_ATTEMPT does. */
	const struct {
		int32_t opt;
		int64_t lo, hi;
		int32_t *field;
	} table[] = {
		{AIR_FAILURE_EXCERPT_LINES, 2, AIR__FAILURE_MAX_EXCERPT_LINES, &opts->excerpt_lines},
		{AIR_FAILURE_NODE, -1, INT32_MAX, &opts->node},
		{AIR_FAILURE_ATTEMPT, INT64_MIN, INT32_MAX, &opts->attempt},
		{AIR_FAILURE_SCAN_LINES, 1, AIR__FAILURE_MAX_SCAN_LINES, &opts->scan_lines},
		{AIR_FAILURE_SCAN_NODES, 1, AIR__FAILURE_MAX_SCAN_NODES, &opts->scan_nodes},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(table); i++) {
		if (table[i].opt != opt)
			continue;
		if (value < table[i].lo || value > table[i].hi)
			return AIR_EINVAL;
		*table[i].field = value < 0 ? -1 : (int32_t)value;
		return AIR_OK;
	}
	return AIR_EUNSUPPORTED;
}

int air_failure_options_set_interrupt(air_failure_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_failure_options_set_deadline_ms(air_failure_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

/* ---- reading one node's log --------------------------------------------------------- */

/* What one node's log gave. */
typedef struct node_excerpt {
	int32_t node, kind, pattern;
	air__lines lines;
	int64_t omitted;
	char *problem;
} node_excerpt;

static void excerpt_init(node_excerpt *x, int32_t node, size_t max)
{
	x->node = node;
	x->kind = AIR_EXCERPT_NONE;
	x->pattern = 0;
	x->omitted = 0;
	x->problem = NULL;
	air__lines_init(&x->lines, max);
}

static void excerpt_dispose(node_excerpt *x)
{
	air__lines_dispose(&x->lines);
	air__free(x->problem);
	x->problem = NULL;
}

/* Whether an error of a log read ends the call (rather than the excerpt). */
static bool stops_the_call(int rc)
{
	return rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_ENOMEM;
}

/* The log iterator's options: the tail of @node's log of @attempt, under
 * the interrupt and what is left of the deadline of @ctx. */
static int log_options(const air__ctx *ctx, const air_failure_options *o, int32_t node,
                       int32_t attempt, air_logs_options *lo, air_error **err)
{
	int rc = air__ctx_check(ctx, "failure report", err);

	air__logs_options_defaults(lo);
	lo->follow = 0;
	lo->tail = o->scan_lines;
	lo->node = node;
	lo->attempt = attempt;
	lo->max_failures = PAGE_TRIES;
	lo->poll_ms = PAGE_RETRY_MS;
	lo->call.intr = ctx->intr;
	if (ctx->deadline)
		lo->call.deadline_ms = air__ctx_remaining(ctx);
	return rc;
}

/* Scan the records of @it into @x (and the "no logs" message when there
 * is none). */
static int scan_records(air_log_iter *it, size_t max, node_excerpt *x, air_error **err)
{
	const air_log_record *rec;
	air__scan s;
	int rc;

	air__scan_init(&s, max);
	while ((rc = air_log_iter_next(it, &rec, err)) == AIR_OK)
		if (air__scan_line(&s, rec->line, rec->len) != AIR_OK) {
			rc = air__oom(err);
			break;
		}
	if (rc == AIR_EDONE) {
		rc = AIR_OK;
		x->kind = air__scan_result(&s, &x->lines, &x->omitted, &x->pattern);
		if (x->kind < 0)
			rc = air__oom(err);
		else if (x->kind == AIR_EXCERPT_NONE) {
			const char *msg = air_logs_summary_no_logs_message(air_log_iter_summary(it));
			x->problem = msg ? air__strdup(msg)
			                 : air__sprintf("the log of node %d has no lines", (int)x->node);
			if (!x->problem)
				rc = air__oom(err);
		}
	}
	air__scan_dispose(&s);
	return rc;
}

/* Read the tail of @x->node's log into @x. A log that cannot be read is a
 * problem of the excerpt; an interrupt, the deadline or memory fail the call. */
static int read_node(air_client *c, const air__ctx *ctx, int64_t run_id,
                     const air_failure_options *o, int32_t attempt, node_excerpt *x,
                     air_error **err)
{
	air_logs_options lo;
	air_log_iter *it = NULL;
	air_error *e = NULL;
	int rc = log_options(ctx, o, x->node, attempt, &lo, err);

	if (rc != AIR_OK)
		return rc;
	rc = air_client_open_logs(c, run_id, &lo, &it, &e);
	if (rc == AIR_OK)
		rc = scan_records(it, (size_t)o->excerpt_lines, x, &e);
	air_log_iter_free(it);
	if (rc == AIR_OK)
		return AIR_OK;
	if (rc == AIR_ETIMEOUT) {
		/* Named by this call's deadline, not by the part left of it. */
		air_error_free(e);
		return air__fail(err, air__ctx_deadline_error(ctx, "failure report"));
	}
	if (stops_the_call(rc))
		return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
	air__lines_clear(&x->lines);
	x->kind = AIR_EXCERPT_NONE;
	x->problem = air__sprintf("the log of node %d could not be read: %s", (int)x->node,
	                          e ? air_error_message(e) : air_strerror(rc));
	air_error_free(e);
	return x->problem ? AIR_OK : air__oom(err);
}

/* ---- choosing the node --------------------------------------------------------------- */

/* An excerpt's worth: a traceback, then an alert line, then the tail. */
static int rank(int32_t kind)
{
	return kind == AIR_EXCERPT_TRACEBACK ? 3 : kind == AIR_EXCERPT_ALERT ? 2
	       : kind == AIR_EXCERPT_TAIL ? 1 : 0;
}

/* No node named: the first of the first scan_nodes nodes whose log has a
 * traceback, else the first with an alert line, else node 0. (The
 * platform does not say which node failed; the node that printed the
 * error is the most plausible one, and node 0 the usual entry point.) */
static int search_nodes(air_client *c, const air__ctx *ctx, const air_run *run,
                        const air_failure_options *o, int32_t attempt, node_excerpt *best,
                        int32_t *source, air_error **err)
{
	int64_t nodes = 1;
	int rc = AIR_OK;

	if (air__logs_node_count(run, &nodes, NULL) != AIR_OK || nodes < 1)
		nodes = 1; /* what the run reports does not tell: node 0 alone */
	if (nodes > o->scan_nodes)
		nodes = o->scan_nodes;
	excerpt_init(best, 0, (size_t)o->excerpt_lines);
	for (int32_t n = 0; n < nodes && rc == AIR_OK && best->kind != AIR_EXCERPT_TRACEBACK; n++) {
		node_excerpt x;

		excerpt_init(&x, n, (size_t)o->excerpt_lines);
		rc = read_node(c, ctx, run->id, o, attempt, &x, err);
		/* Node 0's log, unless another has a traceback or an alert line. */
		if (rc == AIR_OK && (n == 0 || (rank(x.kind) >= 2 && rank(x.kind) > rank(best->kind)))) {
			node_excerpt t = *best;
			*best = x;
			x = t;
		}
		excerpt_dispose(&x);
	}
	*source = nodes > 1 && rank(best->kind) >= 2 ? AIR_NODE_SOURCE_SEARCHED
	                                             : AIR_NODE_SOURCE_DEFAULT;
	return rc;
}

/* The excerpt of the report: of the node asked for, named, or searched. */
static int find_excerpt(air_client *c, const air__ctx *ctx, const air_run *run,
                        const air_failure_options *o, air_failure *f, air_error **err)
{
	int32_t named = air__failure_reported_node(run), source;
	node_excerpt x;
	int rc;

	if (run->sweep) {
		f->problem = air__sprintf("run %lld is a sweep: each iteration is a run of its own, "
		                          "with its own failure and logs", (long long)run->id);
		return f->problem ? AIR_OK : air__oom(err);
	}
	if (run->start_ms <= 0 && run->run_start_ms <= 0) {
		f->problem = air__sprintf("run %lld never started: it has no logs", (long long)run->id);
		return f->problem ? AIR_OK : air__oom(err);
	}
	if (o->node >= 0 || named >= 0) {
		source = o->node >= 0 ? AIR_NODE_SOURCE_OPTION : AIR_NODE_SOURCE_REPORTED;
		excerpt_init(&x, o->node >= 0 ? o->node : named, (size_t)o->excerpt_lines);
		rc = read_node(c, ctx, run->id, o, f->attempt, &x, err);
	} else {
		rc = search_nodes(c, ctx, run, o, f->attempt, &x, &source, err);
	}
	if (rc == AIR_OK) {
		f->node = x.node;
		f->node_source = source;
		f->kind = x.kind;
		f->pattern = x.pattern;
		f->omitted = x.omitted;
		f->excerpt = x.lines;
		f->problem = x.problem;
		air__lines_init(&x.lines, 0);
		x.problem = NULL;
	}
	excerpt_dispose(&x);
	return rc;
}

/* ---- the call -------------------------------------------------------------------------- */

int air_client_get_failure(air_client *client, int64_t run_id, const air_failure_options *opts,
                           air_failure **out, air_error **err)
{
	air_failure_options o;
	air_run *run = NULL;
	air_failure *f = NULL;
	air__ctx ctx;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_failure: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_failure: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	if (opts)
		o = *opts;
	else
		defaults(&o);
	air__client_ctx(client, &o.call, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc == AIR_OK)
		rc = air__run_fetch(client, &ctx, run_id, &run, err);
	/* A run that succeeded or is still going has no failure. */
	if (rc != AIR_OK || !run->terminal || run->succeeded) {
		air_run_free(run);
		return rc;
	}
	rc = air__logs_check_attempt(run, o.attempt, err);
	if (rc == AIR_OK)
		rc = air__failure_from_run(run, o.attempt >= 0 ? o.attempt : run->latest_attempt, &f,
		                           err);
	if (rc == AIR_OK)
		rc = find_excerpt(client, &ctx, run, &o, f, err);
	if (rc == AIR_OK)
		rc = air__failure_summarize(f, err);
	air_run_free(run);
	if (rc != AIR_OK) {
		air_failure_free(f);
		return rc;
	}
	*out = f;
	return AIR_OK;
}
