/* logs_stream.c: air_client_stream_logs(), the sequence of PROTOCOL §5.1-§5.4. */
#include "client_internal.h"
#include "logs_internal.h"

#include <string.h>

/* Internal outcome of a log endpoint pass: switch to the MLflow artifacts. */
#define FALLBACK 1

static int oom(air_error **err) { return air__failf(err, AIR_ENOMEM, 0, "out of memory"); }

static int report_status(air__stream *s, air_error **err)
{
	const char *cur = s->run->state;
	char *prev = s->reported_state;
	int rc = AIR_OK;

	if (prev && !strcmp(prev, cur))
		return AIR_OK;
	s->reported_state = air__strdup(cur);
	if (!s->reported_state)
		rc = oom(err);
	else if (s->on_status && s->on_status(cur, prev, s->ud) != 0)
		rc = air__failf(err, AIR_EABORTED, 0, "the status callback stopped the log stream");
	air__free(prev);
	return rc;
}

static bool is_code(const air_error *e, const char *code)
{
	const char *c = e ? air_error_server_code(e) : NULL;
	return c && !strcmp(c, code);
}

/* Page bodies go to one reused buffer: no allocation per page. */
static int collect(const void *data, size_t len, void *ud)
{
	air__buf_put(ud, data, len);
	return air__buf_oom(ud) ? -1 : 0;
}

/* One page of the log endpoint into s->page, with the per-page error table
 * of §5.4: AIR_OK, FALLBACK, or a fatal error. Transient failures are
 * retried here after the poll interval. */
static int fetch_page(air__stream *s, const char *path, const char *query, air_error **err)
{
	for (;;) {
		air__http_req req = {0};
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *e = NULL;
		int rc;

		req.method = "GET";
		req.path = path;
		req.query = query;
		req.sink = collect;
		req.sink_ud = &s->body;
		air__buf_clear(&s->body);
		rc = air__http_do(s->c, &s->ctx, &req, &resp, &e);
		if (rc == AIR_EABORTED && air__buf_oom(&s->body))
			rc = AIR_ENOMEM;
		if (rc == AIR_OK)
			rc = air__log_page_parse(&s->page, air__buf_cstr(&s->body), s->body.len, &e);
		air__http_resp_clear(&resp);
		if (rc == AIR_OK) {
			s->failures = 0;
			return AIR_OK;
		}
		if (rc == AIR_EINTERRUPTED || rc == AIR_EABORTED || rc == AIR_ENOMEM)
			return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
		if (is_code(e, "FEATURE_DISABLED") || is_code(e, "ENDPOINT_NOT_FOUND") ||
		    (e && air_error_http_status(e) == 404)) {
			air_error_free(e);
			return FALLBACK;
		}
		if (is_code(e, "RESOURCE_DOES_NOT_EXIST")) {
			air__error_set_code(e, AIR_ENOTFOUND);
			air__error_set_kind(e, AIR_KIND_NOT_FOUND);
			air__error_set_retryable(e, false);
			return air__fail(err, e);
		}
		air__client_debug(s->c, AIR_DEBUG_INFO, "log page failed (%d of %d): %s",
		                  s->failures + 1, s->o.max_failures,
		                  e ? air_error_message(e) : air_strerror(rc));
		air_error_free(e);
		if (++s->failures >= s->o.max_failures)
			return FALLBACK;
		if (air__client_sleep(s->c, s->o.intr, s->o.poll_ms) != AIR_OK)
			return air__failf(err, AIR_EINTERRUPTED, 0, "log stream interrupted");
	}
}

static char *logs_path(int64_t run_id)
{
	return air__sprintf("/api/2.0/ai-training/workflows/by-run-id/%lld/logs", (long long)run_id);
}

/* Remember @next unless it was seen before (a repeated token ends the chain). */
static int next_token(json_t *seen, const char *next, char **token)
{
	air__free(*token);
	*token = NULL;
	if (!next || json_object_get(seen, next))
		return AIR_OK;
	*token = air__strdup(next);
	return *token && json_object_set_new(seen, next, json_true()) == 0 ? AIR_OK : AIR_ENOMEM;
}

/* ---- §5.3 tail ---------------------------------------------------------------- */

typedef struct tail_line {
	char *line;
	size_t len;
	int64_t time_ns;
} tail_line;

static int tail(air__stream *s, int64_t from, int64_t to, air_error **err)
{
	int64_t target = air__logs_tail_target(&s->o);
	char *path = logs_path(s->run_id), *token = NULL;
	json_t *seen = json_object();
	tail_line *lines = NULL;
	size_t n = 0, cap = 0;
	int rc = path && seen ? AIR_OK : oom(err);

	while (rc == AIR_OK && target > 0) {
		air__buf q = AIR__BUF_INIT;
		const air__log_page *page = &s->page;

		air__logs_query(&q, false, from, to, token, target, s->o.attempt, s->node);
		rc = air__buf_oom(&q) ? oom(err) : fetch_page(s, path, air__buf_cstr(&q), err);
		air__buf_dispose(&q);
		if (rc != AIR_OK)
			break;
		for (size_t i = 0; rc == AIR_OK && i < page->n && (int64_t)n < target; i++, n++) {
			if (n == cap) {
				tail_line *p = air__realloc(lines, (cap = cap ? cap * 2 : 256) * sizeof(*p));
				if (!p) {
					rc = oom(err);
					break;
				}
				lines = p;
			}
			lines[n].line = air__strndup(page->recs[i].body, page->recs[i].len);
			lines[n].len = page->recs[i].len;
			lines[n].time_ns = page->recs[i].time_ns;
			if (!lines[n].line)
				rc = oom(err);
		}
		if (rc == AIR_OK && next_token(seen, page->next_token, &token) != AIR_OK)
			rc = oom(err);
		if ((int64_t)n >= target || !token)
			break;
	}
	/* Pages come newest first: deliver oldest to newest. */
	for (size_t i = n; rc == AIR_OK && i > 0; i--)
		rc = air__stream_emit(s, lines[i - 1].line, lines[i - 1].len, lines[i - 1].time_ns, err);
	for (size_t i = 0; i < n; i++)
		air__free(lines[i].line);
	air__free(lines);
	air__free(token);
	air__free(path);
	json_decref(seen);
	return rc;
}

/* ---- §5.4 follow -------------------------------------------------------------- */

/* Fetch every page from @from and deliver the records not seen yet. */
static int drain(air__stream *s, const char *path, int64_t from, int64_t to, air__dedup *dd,
                 int64_t *last_t, air_error **err)
{
	json_t *seen = json_object();
	char *token = NULL;
	int rc = seen ? AIR_OK : oom(err);

	while (rc == AIR_OK) {
		air__buf q = AIR__BUF_INIT;
		const air__log_page *page = &s->page;

		air__logs_query(&q, true, from, to, token, 0, s->o.attempt, s->node);
		rc = air__buf_oom(&q) ? oom(err) : fetch_page(s, path, air__buf_cstr(&q), err);
		air__buf_dispose(&q);
		if (rc != AIR_OK)
			break;
		for (size_t i = 0; rc == AIR_OK && i < page->n; i++) {
			const air__log_rec *r = &page->recs[i];

			if (r->time_ns != 0) {
				int seen_before;
				if (r->time_ns < *last_t)
					continue;
				seen_before = air__dedup_check(dd, r->time_ns, r->body, r->len);
				if (seen_before < 0) {
					rc = oom(err);
					break;
				}
				if (seen_before)
					continue;
			}
			rc = air__stream_emit(s, r->body, r->len, r->time_ns, err);
			if (r->time_ns != 0)
				*last_t = r->time_ns;
		}
		if (rc == AIR_OK && next_token(seen, page->next_token, &token) != AIR_OK)
			rc = oom(err);
		if (!token)
			break;
	}
	air__free(token);
	json_decref(seen);
	return rc;
}

/* Re-read runs/get; transient failures wait a poll interval and try again. */
static int reread(air__stream *s, air_error **err)
{
	for (;;) {
		air_run *run = NULL;
		air_error *e = NULL;
		int rc = air__run_fetch(s->c, &s->ctx, s->run_id, &run, &e);

		if (rc == AIR_OK) {
			air_run_free(s->run);
			s->run = run;
			return AIR_OK;
		}
		if (rc == AIR_ENOTFOUND || rc == AIR_EINTERRUPTED || rc == AIR_ENOMEM ||
		    rc == AIR_EABORTED)
			return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
		air__client_debug(s->c, AIR_DEBUG_INFO, "re-reading run %lld failed: %s",
		                  (long long)s->run_id, e ? air_error_message(e) : air_strerror(rc));
		air_error_free(e);
		if (air__client_sleep(s->c, s->o.intr, s->o.poll_ms) != AIR_OK)
			return air__failf(err, AIR_EINTERRUPTED, 0, "log stream interrupted");
	}
}

static int follow(air__stream *s, int64_t from, air_error **err)
{
	char *path = logs_path(s->run_id);
	air__dedup dd;
	int64_t last_t = 0, unused_from, to, poll = 0;
	int rc = path ? AIR_OK : oom(err);

	air__dedup_init(&dd, AIR__LOGS_DEDUP_MAX);
	for (; rc == AIR_OK; poll++) {
		if (poll > 0) {
			rc = reread(s, err);
			if (rc == AIR_OK)
				rc = report_status(s, err);
			if (rc != AIR_OK)
				break;
		}
		air__logs_bounds(0, s->run->run_end_ms, s->run->terminal, 0, 0, &unused_from, &to);
		rc = drain(s, path, from, to, &dd, &last_t, err);
		if (rc != AIR_OK)
			break;
		/* Re-query the boundary second; the de-dup set drops the repeats. */
		if (last_t > 0)
			from = last_t / 1000000000;
		if (s->run->terminal) {
			if (s->delivered == 0)
				rc = FALLBACK;
			break;
		}
		/* §5.5: still no line on polls 0, 5, 10, ...: say what the run waits for. */
		if (s->delivered == 0 && poll % AIR__LOGS_WAITING_EVERY == 0 &&
		    (rc = air__stream_show_waiting(s, err)) != AIR_OK)
			break;
		if (air__client_sleep(s->c, s->o.intr, s->o.poll_ms) != AIR_OK)
			rc = air__failf(err, AIR_EINTERRUPTED, 0, "log stream interrupted");
	}
	air__dedup_dispose(&dd);
	air__free(path);
	return rc;
}

/* ---- §5.1 ---------------------------------------------------------------------- */

static int run_stream(air__stream *s, air_error **err)
{
	char *me = NULL;
	int64_t from, to;
	bool static_view;
	int rc = air__client_ensure_resolved(s->c, &s->ctx, err);

	/* The identity probe comes first: PAT setup alone contacts nobody. */
	if (rc == AIR_OK)
		rc = air__client_user_name(s->c, &s->ctx, &me, err);
	air__free(me);
	if (rc == AIR_OK)
		rc = air__run_fetch(s->c, &s->ctx, s->run_id, &s->run, err);
	if (rc == AIR_OK)
		rc = air__logs_check_attempt(s->run, s->o.attempt, err);
	if (rc == AIR_OK)
		rc = report_status(s, err);
	if (rc != AIR_OK)
		return rc;
	static_view = s->o.attempt >= 0 && s->o.attempt < s->run->latest_attempt && !s->run->terminal;
	air__logs_bounds(s->run->run_start_ms, s->run->run_end_ms, s->run->terminal, s->o.minutes,
	                 air__now_ms(), &from, &to);
	if (s->run->terminal || static_view || !s->o.follow) {
		rc = tail(s, from, to, err);
		if (rc == AIR_OK && s->delivered == 0)
			rc = FALLBACK;
	} else {
		rc = follow(s, from, err);
	}
	if (rc == FALLBACK)
		rc = air__mlflow_fallback(s, err);
	return rc;
}

static int make_summary(air__stream *s, air_logs_summary **out, air_error **err)
{
	air_logs_summary *sum = air__calloc(1, sizeof(*sum));

	if (!sum || !(sum->state = air__strdup(s->run->state))) {
		air__free(sum);
		return oom(err);
	}
	sum->records = s->delivered;
	sum->terminal = s->run->terminal;
	sum->succeeded = s->run->succeeded;
	sum->source = s->source;
	sum->no_logs = s->no_logs;
	s->no_logs = NULL;
	*out = sum;
	return AIR_OK;
}

int air_client_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                           air_log_record_cb on_record, air_log_status_cb on_status,
                           air_log_alert_cb on_alert, void *userdata,
                           air_logs_summary **summary, air_error **err)
{
	air__stream s;
	int rc;

	if (summary)
		*summary = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_stream_logs: client is NULL");
	if (run_id <= 0)
		return air__fail(err, air__error_set_field(
			air__error_new(AIR_EINVAL, 0, "invalid run ID %lld: must be a positive integer",
			               (long long)run_id),
			"run_id"));
	memset(&s, 0, sizeof(s));
	s.c = client;
	s.run_id = run_id;
	if (opts)
		s.o = *opts;
	else
		air__logs_options_defaults(&s.o);
	s.ctx.intr = s.o.intr;
	s.node = s.o.node < 0 ? 0 : s.o.node;
	s.on_record = on_record;
	s.on_status = on_status;
	s.on_alert = on_alert;
	s.ud = userdata;
	s.source = AIR_LOG_SOURCE_ENDPOINT;
	rc = run_stream(&s, err);
	/* A waiting message still up is ended whatever the outcome. */
	if (s.waiting_shown)
		air__stream_end_waiting(&s, NULL);
	if (rc == AIR_OK && summary)
		rc = make_summary(&s, summary, err);
	air_run_free(s.run);
	air__free(s.reported_state);
	air__free(s.no_logs);
	air__buf_dispose(&s.body);
	air__log_page_dispose(&s.page);
	return rc;
}
