/*
 * iter.c: the log iterator (air_client_open_logs(), air_log_iter_next()), a
 * pull-style state machine over the reading rules of docs/runs-and-logs.md:
 * identity probe and runs/get at open; then either the tail of a finished
 * run (or a static view, or a single pass), or the follow loop of an active
 * run; the MLflow fallback when the log endpoint has nothing.
 *
 * Each step queues the records it finds (air__stream_emit()); next() hands
 * them out one by one and runs the next step only when the queue is empty,
 * so a page is never held beyond its records and nothing runs on another
 * thread.
 *
 * A page is asked of the client's backend first (air__log_read(): a local
 * workspace reads its node log directly, the same records without JSON),
 * then of the log endpoint. With such a backend a finished run's tail is
 * read oldest first, a page per step, instead of newest-first pages turned
 * around; and the pause between polls ends when the run changes
 * (air__run_watch_pause()).
 */
#include <string.h>

#include "logs/logs.h"

typedef enum step {
	STEP_TAIL,      /* fetch the tail (then DONE or FALLBACK, or TAIL_MORE) */
	STEP_TAIL_MORE, /* the next page of a tail read oldest first (air__log_read()) */
	STEP_POLL,      /* start a poll of the follow loop: re-read the run */
	STEP_PAGE,      /* fetch the next page of the current poll */
	STEP_AFTER,     /* the poll's pages are drained: decide */
	STEP_PAUSE,     /* wait before the next poll */
	STEP_FALLBACK,  /* read the MLflow artifacts (then DONE) */
	STEP_DONE,
	STEP_FAILED
} step;

struct air_log_iter {
	air__stream s;
	step next;
	air_log_record rec;      /* the record handed out last */
	air_logs_summary sum;    /* kept current; final at AIR_EDONE */
	int fail_rc;             /* once failed: what every later call returns */
	air_error *fail_err;
	/* the follow loop */
	char *path;              /* the logs endpoint of the run */
	air__dedup dd;
	int64_t last_t, from, to, poll;
	char *token;             /* next page of the current poll, or NULL */
	json_t *seen;            /* tokens of the current poll (a repeat is asked again) */
	bool cut;                /* the current poll's chain ended on a repeated token */
	int64_t poll_start_t;    /* last_t when the current poll started */
	int64_t poll_new;        /* records of the current poll newer than poll_start_t */
	int terminal_polls;      /* whole-chain polls that saw the run terminal */
	int fruitless;           /* cut polls of a terminal run in a row that brought nothing */
	int page_repeats;        /* the current page asked again after a repeated one */
	air__run_watch *watch;   /* ends the pause between polls when the run changes, or NULL */
	int64_t tail_left;       /* records a tail read oldest first may still deliver */
};

/* Internal outcome of a log endpoint read: switch to the MLflow artifacts. */
#define FALLBACK 1
/* A terminal run whose last poll was cut short by a repeated page token is
 * polled again; this many such polls in a row without a new record end it. */
#define MAX_FRUITLESS_CUT_POLLS 3
/* A page that repeats an earlier page of its poll (its next token was seen)
 * is asked for again this many times before the chain ends there. */
#define MAX_PAGE_REPEATS 3

static bool is_code(const air_error *e, const char *code)
{
	const char *c = e ? air_error_server_code(e) : NULL;
	return c && !strcmp(c, code);
}

/* Report the run's display state when it changed (the status callback). */
static int report_status(air__stream *s, air_error **err)
{
	const char *cur = s->run->state;
	char *prev = s->reported_state;
	int rc = AIR_OK;

	if (prev && !strcmp(prev, cur))
		return AIR_OK;
	if (!(s->reported_state = air__strdup(cur)))
		rc = air__oom(err);
	else if (s->o.on_status && s->o.on_status(cur, prev, s->o.status_ud) != 0)
		rc = air__failf(err, AIR_EABORTED, 0, "the status callback stopped the log stream");
	air__free(prev);
	return rc;
}

/* The first attempt at @query: the request started ahead for it when there
 * is one (any other is abandoned), else a request now. */
static int first_attempt(air__stream *s, const char *query, air__http_req *req,
                         air__http_resp *resp, air_error **e)
{
	air__http_pending *p = s->pending;
	bool same = p && !strcmp(air__buf_cstr(&s->pending_query), query);

	s->pending = NULL;
	if (same) {
		int rc = air__http_end(p, e);
		*resp = s->pending_resp;
		s->pending_resp = (air__http_resp)AIR__HTTP_RESP_INIT;
		return rc;
	}
	air__http_drop(p);
	air__http_resp_clear(&s->pending_resp);
	air__buf_clear(&s->body);
	return air__http_do(s->c, &s->ctx, req, resp, e);
}

static void page_request(air__stream *s, const char *path, const char *query, air__http_req *req)
{
	*req = (air__http_req){0};
	req->method = "GET";
	req->path = path;
	req->query = query;
	/* Page bodies go to a reused buffer, which the parsed page then keeps
	 * while its former one takes the next body (no allocation per page); a
	 * page cut short is fetched again from its start. */
	req->sink = air__buf_sink;
	req->sink_ud = &s->body;
	req->sink_reset = air__buf_sink_reset;
	req->max_reply = AIR__LOGS_PAGE_MAX;
}

/* Request the page of @q now, to be read by the next fetch_page() of the
 * same query while the current page's records are handed out. */
static void prefetch(air__stream *s, const char *path, const air__log_query *q)
{
	air__http_drop(s->pending);
	s->pending = NULL;
	air__http_resp_clear(&s->pending_resp);
	air__buf_clear(&s->pending_query);
	air__logs_query(&s->pending_query, q);
	if (air__buf_oom(&s->pending_query))
		return; /* fetched when it is needed instead */
	page_request(s, path, air__buf_cstr(&s->pending_query), &s->pending_req);
	air__buf_clear(&s->body);
	s->pending = air__http_begin(s->c, &s->ctx, &s->pending_req, &s->pending_resp);
}

/* The page of @q straight from the backend (a local workspace's node log):
 * AIR_OK with s->span, AIR_EUNSUPPORTED when the log endpoint must answer,
 * or a failure. */
static int read_direct(air__stream *s, const air__log_query *q, air_error **err)
{
	int rc = air__log_read(s->c, &s->ctx, &s->reader, q, &s->span, err);

	s->direct = rc == AIR_OK;
	if (rc == AIR_OK)
		s->failures = 0;
	return rc;
}

/* One page of the log endpoint into s->span (read straight from the backend
 * when it can, else fetched and parsed into s->page), with the per-page
 * error table: AIR_OK, FALLBACK, or a fatal error. Transient failures are
 * retried here after the poll interval. */
static int fetch_page(air__stream *s, const char *path, const air__log_query *q, air_error **err)
{
	air__buf query = AIR__BUF_INIT;
	int rc = read_direct(s, q, err);

	if (rc != AIR_EUNSUPPORTED)
		return rc;
	air__logs_query(&query, q);
	if (air__buf_oom(&query))
		return air__oom(err);
	for (bool first = true;; first = false) {
		air__http_req req;
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *e = NULL;

		page_request(s, path, air__buf_cstr(&query), &req);
		if (first) {
			rc = first_attempt(s, air__buf_cstr(&query), &req, &resp, &e);
		} else {
			air__buf_clear(&s->body);
			rc = air__http_do(s->c, &s->ctx, &req, &resp, &e);
		}
		if (rc == AIR_EABORTED && air__buf_oom(&s->body))
			rc = AIR_ENOMEM;
		if (rc == AIR_OK)
			rc = air__log_page_take(&s->page, &s->body, &e);
		air__http_resp_clear(&resp);
		if (rc == AIR_OK) {
			s->failures = 0;
			s->span = (air__log_span){.recs = s->page.recs, .n = s->page.n,
			                          .next_token = s->page.next_token};
			break;
		}
		if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_EABORTED ||
		    rc == AIR_ENOMEM) {
			rc = e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
			break;
		}
		if (is_code(e, "FEATURE_DISABLED") || is_code(e, "ENDPOINT_NOT_FOUND") ||
		    (e && air_error_http_status(e) == 404)) {
			air_error_free(e);
			rc = FALLBACK;
			break;
		}
		if (is_code(e, "RESOURCE_DOES_NOT_EXIST")) {
			air__error_set_code(e, AIR_ENOTFOUND);
			air__error_set_kind(e, AIR_KIND_NOT_FOUND);
			air__error_set_retryable(e, false);
			rc = air__fail(err, e);
			break;
		}
		air__client_debug(s->c, AIR_DEBUG_INFO, "log page failed (%d of %d): %s",
		                  s->failures + 1, s->o.max_failures,
		                  e ? air_error_message(e) : air_strerror(rc));
		air_error_free(e);
		if (++s->failures >= s->o.max_failures) {
			rc = FALLBACK;
			break;
		}
		if ((rc = air__ctx_sleep(&s->ctx, s->o.poll_ms, "log stream", err)) != AIR_OK)
			break;
	}
	air__buf_dispose(&query);
	return rc;
}

/* The query of a page of @it's run: its attempt, node and bounds. */
static air__log_query page_query(const air_log_iter *it, bool ascending, const char *token)
{
	const air__stream *s = &it->s;

	return (air__log_query){.run_id = s->run_id, .attempt = s->o.attempt, .node = s->node,
	                        .ascending = ascending, .from = it->from, .to = it->to,
	                        .token = token};
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

/* ---- the tail of a finished run (or a static view, or one pass) --------------- */

/* Pages come newest first: queue up to the target, then turn the queue
 * around so that it runs oldest to newest. */
static int tail_newest_first(air_log_iter *it, int64_t target, air_error **err)
{
	air__stream *s = &it->s;
	int64_t n = 0;
	char *token = NULL;
	json_t *seen = json_object();
	int rc = seen ? AIR_OK : air__oom(err);

	while (rc == AIR_OK && target > 0) {
		air__log_query q = page_query(it, false, token);
		const air__log_span *page = &s->span;

		q.page_size = target;
		if ((rc = fetch_page(s, it->path, &q, err)) != AIR_OK)
			break;
		/* Copied: the next page is parsed over this one. */
		for (size_t i = 0; rc == AIR_OK && i < page->n && n < target; i++, n++)
			rc = air__stream_emit(s, page->recs[i].body, page->recs[i].len,
			                      page->recs[i].time_ns, err);
		if (rc == AIR_OK && next_token(seen, page->next_token, &token) != AIR_OK)
			rc = air__oom(err);
		if (n >= target || !token)
			break;
	}
	for (size_t i = 0, j = s->qn; rc == AIR_OK && i + 1 < j; i++, j--) {
		air__queued t = s->q[i];
		s->q[i] = s->q[j - 1];
		s->q[j - 1] = t;
	}
	if (rc != AIR_OK) {
		/* Nothing of an unfinished tail is handed out. */
		s->delivered -= (int64_t)s->qn;
		s->qn = 0;
	}
	air__free(token);
	json_decref(seen);
	return rc;
}

/* A page of a tail read oldest first, straight from the backend: its
 * records are handed out from the reader's buffer, one page per step.
 * @token: NULL for the first page (the tail's start). AIR_EUNSUPPORTED
 * (first page only) when the endpoint must be asked. */
static int tail_page(air_log_iter *it, const char *token, air_error **err)
{
	air__stream *s = &it->s;
	air__log_query q = page_query(it, true, token);
	const char *next;
	size_t n;
	int rc;

	q.tail = token ? 0 : it->tail_left;
	q.page_size = it->tail_left;
	q.text = s->text_wanted;
	if ((rc = read_direct(s, &q, err)) == AIR_EUNSUPPORTED && token)
		return air__failf(err, AIR_EIO, 0, "the log of run %lld can no longer be read",
		                  (long long)s->run_id);
	if (rc != AIR_OK)
		return rc;
	n = s->span.n < (uint64_t)it->tail_left ? s->span.n : (size_t)it->tail_left;
	if (s->span.text && n == s->span.n) {
		/* The page as text (the reader honours the page size). */
		s->text = s->span.text;
		s->text_len = s->span.text_len;
		s->text_n = n;
		s->delivered += (int64_t)n;
	} else {
		rc = air__stream_emit_span(s, s->span.recs, n, err);
	}
	it->tail_left -= (int64_t)n;
	next = rc == AIR_OK && it->tail_left > 0 ? s->span.next_token : NULL;
	air__free(it->token);
	it->token = NULL;
	if (next && !(it->token = air__strdup(next)))
		rc = air__oom(err);
	if (rc == AIR_OK)
		it->next = it->token ? STEP_TAIL_MORE : STEP_DONE;
	if (rc == AIR_OK && !it->token && s->delivered == 0)
		rc = FALLBACK;
	return rc;
}

/* The tail: oldest first straight from the backend when it can, else newest
 * first from the endpoint. */
static int tail(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	int64_t target = air__logs_tail_target(&s->o);
	int rc = AIR_OK;

	it->next = STEP_DONE;
	if (target > 0) {
		it->tail_left = target;
		if ((rc = tail_page(it, NULL, err)) != AIR_EUNSUPPORTED)
			return rc;
		rc = tail_newest_first(it, target, err);
	}
	if (rc == AIR_OK && s->delivered == 0)
		rc = FALLBACK;
	return rc;
}

/* ---- the follow loop ------------------------------------------------------------ */

/* Following the latest attempt: a newer one than the run had when last
 * read goes to the attempt callback, before the records of its poll. */
static int report_attempt(air__stream *s, air_error **err)
{
	int32_t before = s->seen_attempt, now = s->run->latest_attempt;

	s->seen_attempt = now;
	if (before < 0 || now <= before || s->o.attempt >= 0 || !s->o.on_attempt)
		return AIR_OK;
	if (s->o.on_attempt(now, s->o.attempt_ud) != 0)
		return air__failf(err, AIR_EABORTED, 0, "the attempt callback stopped the log stream");
	return AIR_OK;
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
		if (rc == AIR_ENOTFOUND || rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT ||
		    rc == AIR_ENOMEM || rc == AIR_EABORTED)
			return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
		air__client_debug(s->c, AIR_DEBUG_INFO, "re-reading run %lld failed: %s",
		                  (long long)s->run_id, e ? air_error_message(e) : air_strerror(rc));
		air_error_free(e);
		if ((rc = air__ctx_sleep(&s->ctx, s->o.poll_ms, "log stream", err)) != AIR_OK)
			return rc;
	}
}

/* Start a poll: (after the first) re-read the run, then the first page. */
static int start_poll(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	int64_t unused_from;
	int rc;

	/* A terminal run no longer changes: only its log is read again. */
	if (it->poll > 0 && !s->run->terminal &&
	    ((rc = reread(s, err)) != AIR_OK || (rc = report_status(s, err)) != AIR_OK ||
	     (rc = report_attempt(s, err)) != AIR_OK))
		return rc;
	air__logs_bounds(0, s->run->run_end_ms, s->run->terminal, 0, 0, &unused_from, &it->to);
	json_decref(it->seen);
	air__free(it->token);
	it->token = NULL;
	if (!(it->seen = json_object()))
		return air__oom(err);
	it->cut = false;
	it->poll_start_t = it->last_t;
	it->poll_new = 0;
	it->page_repeats = 0;
	it->next = STEP_PAGE;
	return AIR_OK;
}

/* One page of the current poll: queue the records not seen yet. */
static int drain_page(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	const air__log_span *page = &s->span;
	air__log_query q = page_query(it, true, it->token);
	int rc = fetch_page(s, it->path, &q, err);

	if (rc != AIR_OK)
		return rc;
	/* A page whose next token was seen repeats an earlier page of this poll
	 * (a stale reply: its records were all read). Ask again, rather than
	 * end the chain short of the records after it. */
	if (page->next_token && json_object_get(it->seen, page->next_token) &&
	    it->page_repeats < MAX_PAGE_REPEATS) {
		it->page_repeats++;
		air__client_debug(s->c, AIR_DEBUG_INFO, "log page repeated an earlier one (%d of %d)",
		                  it->page_repeats, MAX_PAGE_REPEATS);
		return AIR_OK;
	}
	it->page_repeats = 0;
	if (page->next_token && json_object_get(it->seen, page->next_token))
		it->cut = true; /* still repeated: the chain stops short */
	if (next_token(it->seen, page->next_token, &it->token) != AIR_OK)
		return air__oom(err);
	if (it->token && !s->direct) {
		/* Ask for the next page before this one is sifted and handed
		 * out: the server prepares it meanwhile (the records live in the
		 * parsed page, not in the body the transfer writes to). */
		q = page_query(it, true, it->token);
		prefetch(s, it->path, &q);
	}
	for (size_t i = 0; rc == AIR_OK && i < page->n; i++) {
		const air__log_rec *r = &page->recs[i];

		if (r->time_ns != 0) {
			int seen_before;
			if (r->time_ns < it->last_t)
				continue;
			if ((seen_before = air__dedup_check(&it->dd, r->time_ns, r->body, r->len)) < 0)
				return air__oom(err);
			if (seen_before)
				continue;
		}
		rc = air__stream_emit_page(s, r->body, r->len, r->time_ns, err);
		if (r->time_ns != 0) {
			it->last_t = r->time_ns;
			if (r->time_ns > it->poll_start_t)
				it->poll_new++;
		}
	}
	/* The page's bodies go with the next one. */
	if (air__dedup_settle(&it->dd) != AIR_OK && rc == AIR_OK)
		rc = air__oom(err);
	if (rc == AIR_OK && !it->token)
		it->next = STEP_AFTER;
	return rc;
}

/* Whether a terminal run is done, so that its last records are not lost:
 * - a poll cut short by a repeated token does not count: it is polled again
 *   while that brings records, and a few times when it does not;
 * - a local node log is read directly and is never stale: the first whole
 *   poll that sees the run terminal is the last;
 * - over HTTP, the run ends at a whole poll with nothing new that follows an
 *   earlier whole terminal poll, a poll interval later (every poll after a
 *   terminal one waits). A stale reply (a copy of an earlier reply, from a
 *   cache or a log store that lags) reads as a whole chain with nothing new:
 *   a record the store shows within a poll interval of the first terminal
 *   poll is still read.
 * New means newer than the poll's start: records without a timestamp
 * (delivered by every poll) do not count, nor do records of the boundary
 * timestamp, which come again once more than the de-dup set holds share
 * it. */
static bool terminal_done(air_log_iter *it)
{
	if (it->cut) {
		if (it->poll_new > 0)
			it->fruitless = 0;
		return it->poll_new == 0 && ++it->fruitless >= MAX_FRUITLESS_CUT_POLLS;
	}
	it->fruitless = 0;
	it->terminal_polls++;
	if (it->s.direct)
		return true;
	return it->poll_new == 0 && it->terminal_polls >= 2;
}

/* The poll's pages are drained: the end, or the waiting message and the next poll. */
static int after_poll(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	int rc;

	/* Re-query the boundary second; the de-dup set drops the repeats. */
	if (it->last_t > 0)
		it->from = it->last_t / 1000000000;
	if (s->run->terminal && terminal_done(it)) {
		it->next = s->delivered == 0 ? STEP_FALLBACK : STEP_DONE;
		return AIR_OK;
	}
	/* Still no line on polls 0, 5, 10, ...: say what the run waits for. */
	if (s->delivered == 0 && !s->run->terminal && it->poll % AIR__LOGS_WAITING_EVERY == 0 &&
	    (rc = air__stream_show_waiting(s, err)) != AIR_OK)
		return rc;
	it->next = STEP_PAUSE;
	return AIR_OK;
}

/* Until the next poll, or until the run changes (a local run). Interrupted,
 * the pause is what the next call resumes: the decision is not made twice. */
static int pause_poll(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	int rc = air__run_watch_pause(it->watch, &s->ctx, s->o.poll_ms, "log stream", err);

	if (rc != AIR_OK)
		return rc;
	it->poll++;
	it->next = STEP_POLL;
	return AIR_OK;
}

/* ---- steps and hand-out ------------------------------------------------------------ */

static void update_summary(air_log_iter *it)
{
	air__stream *s = &it->s;

	if (!s->run)
		return;
	if (!it->sum.state || strcmp(it->sum.state, s->run->state) != 0) {
		char *state = air__strdup(s->run->state);
		if (state) {
			air__free(it->sum.state);
			it->sum.state = state;
		}
	}
	it->sum.terminal = s->run->terminal;
	it->sum.succeeded = s->run->succeeded;
	it->sum.source = s->source;
	if (s->no_logs && !it->sum.no_logs) {
		it->sum.no_logs = s->no_logs;
		s->no_logs = NULL;
	}
}

/* Run the next step; records it finds are queued. */
static int step_once(air_log_iter *it, air_error **err)
{
	int rc;

	switch (it->next) {
	case STEP_TAIL:
		rc = tail(it, err);
		break;
	case STEP_TAIL_MORE:
		rc = tail_page(it, it->token, err);
		break;
	case STEP_POLL:
		rc = start_poll(it, err);
		break;
	case STEP_PAGE:
		rc = drain_page(it, err);
		break;
	case STEP_AFTER:
		rc = after_poll(it, err);
		break;
	case STEP_PAUSE:
		rc = pause_poll(it, err);
		break;
	case STEP_FALLBACK:
		rc = air__mlflow_fallback(&it->s, err);
		if (rc == AIR_OK)
			it->next = STEP_DONE;
		break;
	default:
		return AIR_OK;
	}
	if (rc == FALLBACK) {
		it->next = STEP_FALLBACK;
		rc = AIR_OK;
	}
	update_summary(it);
	return rc;
}

/* A waiting message still up is ended (its callback's result is ignored). */
static void end_waiting(air__stream *s)
{
	if (s->waiting_shown)
		air__stream_end_waiting(s, NULL);
}

static int fail(air_log_iter *it, int rc, air_error **err)
{
	/* An interrupt or a deadline stops a step before it queued anything:
	 * the step stays next, so the iterator may be advanced again (after the
	 * interrupt is lowered) and goes on where it was. */
	if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT) {
		end_waiting(&it->s);
		return rc;
	}
	it->next = STEP_FAILED;
	it->fail_rc = rc;
	if (err && *err)
		it->fail_err = air__error_clone(*err);
	end_waiting(&it->s);
	return rc;
}

/* Records handed out between two moves of a transfer started ahead. */
#define PUMP_EVERY 1024

/* The text of queued record @q: in the page, or copied into the batch. */
static const char *queued_line(const air__stream *s, const air__queued *q)
{
	return q->line ? q->line : s->batch.ptr + q->off;
}

/* Run steps until records (or a text page) are ready to hand out, the
 * first of them ending a waiting message: AIR_OK, AIR_EDONE or the
 * iterator's failure. */
static int ready(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	int rc;

	if (it->next == STEP_FAILED)
		return it->fail_err ? air__fail(err, air__error_clone(it->fail_err)) : it->fail_rc;
	while (s->qpos == s->qn && s->text_n == 0) {
		if (it->next == STEP_DONE) {
			end_waiting(s);
			return AIR_EDONE;
		}
		/* The queue is empty: its texts and the page may be reused. */
		s->qn = s->qpos = 0;
		air__buf_clear(&s->batch);
		if ((rc = step_once(it, err)) != AIR_OK)
			return fail(it, rc, err);
	}
	/* The first line ends the wait: a display erases the message first. */
	if (s->waiting_shown && (rc = air__stream_end_waiting(s, err)) != AIR_OK)
		return fail(it, rc, err);
	return AIR_OK;
}

int air_log_iter_next(air_log_iter *it, const air_log_record **rec, air_error **err)
{
	const air__queued *q;
	air__stream *s;
	int rc;

	if (rec)
		*rec = NULL;
	if (!it || !rec)
		return air__failf(err, AIR_EINVAL, 0, "air_log_iter_next: %s is NULL",
		                  it ? "rec" : "iter");
	s = &it->s;
	if ((rc = ready(it, err)) != AIR_OK)
		return rc;
	q = &s->q[s->qpos];
	it->rec.line = queued_line(s, q);
	it->rec.len = q->len;
	it->rec.time_ns = q->time_ns;
	it->rec.node = s->node;
	it->rec.source = s->source;
	it->rec.alert = -1; /* air_log_record_alert() computes it when asked */
	/* Keep the next page's transfer moving while records are handed out. */
	if (s->pending && (s->qpos & (PUMP_EVERY - 1)) == 0)
		air__http_pump(s->pending);
	s->qpos++;
	it->sum.records++;
	*rec = &it->rec;
	return AIR_OK;
}

void air__log_iter_want_text(air_log_iter *it) { it->s.text_wanted = true; }

int air__log_iter_next_text(air_log_iter *it, const char **text, size_t *len, air_error **err)
{
	air__stream *s = &it->s;
	int rc;

	*text = NULL;
	*len = 0;
	if ((rc = ready(it, err)) != AIR_OK)
		return rc;
	if (s->pending)
		air__http_pump(s->pending);
	if (s->text_n > 0) {
		/* A page the backend gave as text. */
		*text = s->text;
		*len = s->text_len;
		it->sum.records += (int64_t)s->text_n;
		s->text_n = 0;
		return AIR_OK;
	}
	/* The queued records, joined. */
	air__buf_clear(&s->text_buf);
	for (; s->qpos < s->qn; s->qpos++) {
		const air__queued *q = &s->q[s->qpos];
		air__buf_put(&s->text_buf, queued_line(s, q), q->len);
		air__buf_putc(&s->text_buf, '\n');
		it->sum.records++;
	}
	if (air__buf_oom(&s->text_buf))
		return fail(it, air__oom(err), err);
	*text = s->text_buf.ptr;
	*len = s->text_buf.len;
	return AIR_OK;
}

const air_logs_summary *air_log_iter_summary(const air_log_iter *it) { return it ? &it->sum : NULL; }

int64_t air_log_iter_buffered(const air_log_iter *it)
{
	const air__stream *s;
	size_t n;

	if (!it || it->next == STEP_FAILED || it->s.waiting_shown)
		return 0;
	s = &it->s;
	n = s->qn - s->qpos;
	/* A transfer started ahead is moved on every PUMP_EVERY records (which
	 * may call the debug callback): up to the next of these. */
	if (s->pending && n > 0) {
		size_t to_pump = (PUMP_EVERY - (s->qpos & (PUMP_EVERY - 1))) & (PUMP_EVERY - 1);
		n = to_pump < n ? to_pump : n;
	}
	return (int64_t)n;
}

void air_log_iter_free(air_log_iter *it)
{
	if (!it)
		return;
	end_waiting(&it->s);
	air_run_free(it->s.run);
	air__free(it->s.reported_state);
	air__free(it->s.no_logs);
	air__http_drop(it->s.pending);
	air__http_resp_clear(&it->s.pending_resp);
	air__buf_dispose(&it->s.pending_query);
	air__buf_dispose(&it->s.body);
	air__log_page_dispose(&it->s.page);
	air__log_reader_free(it->s.reader);
	air__run_watch_free(it->watch);
	air__buf_dispose(&it->s.batch);
	air__buf_dispose(&it->s.text_buf);
	air__free(it->s.q);
	air__free(it->sum.state);
	air__free(it->sum.no_logs);
	air_error_free(it->fail_err);
	air__free(it->path);
	air__dedup_dispose(&it->dd);
	air__free(it->token);
	json_decref(it->seen);
	air__free(it);
}

/* ---- opening ------------------------------------------------------------------------ */

static int open_run(air_log_iter *it, air_error **err)
{
	air__stream *s = &it->s;
	char *me = NULL;
	bool static_view;
	int rc = air__client_ensure_resolved(s->c, &s->ctx, err);

	/* The identity probe comes first: PAT setup alone contacts nobody. */
	if (rc == AIR_OK)
		rc = air__client_user_name(s->c, &s->ctx, &me, err);
	air__free(me);
	if (s->o.poll_ms < 0)
		s->o.poll_ms = air__client_poll_ms(s->c);
	if (rc == AIR_OK)
		rc = air__run_fetch(s->c, &s->ctx, s->run_id, &s->run, err);
	/* Following an active run: watch it, then read it again, so that no
	 * change is missed. A finished run is not watched: a watch costs its
	 * backend (an inotify instance waits for the kernel when closed). */
	if (rc == AIR_OK && s->o.follow && !s->run->terminal)
		rc = air__run_watch_open(s->c, &s->ctx, s->run_id, true, &it->watch, err);
	if (rc == AIR_OK && it->watch) {
		air_run_free(s->run);
		s->run = NULL;
		rc = air__run_fetch(s->c, &s->ctx, s->run_id, &s->run, err);
	}
	if (rc == AIR_OK)
		rc = air__logs_check_attempt(s->run, s->o.attempt, err);
	if (rc == AIR_OK)
		rc = report_status(s, err);
	if (rc == AIR_OK)
		rc = report_attempt(s, err); /* the first read: nothing to report */
	if (rc != AIR_OK)
		return rc;
	if (!(it->path = air__sprintf("/api/2.0/ai-training/workflows/by-run-id/%lld/logs",
	                              (long long)s->run_id)))
		return air__oom(err);
	static_view = s->o.attempt >= 0 && s->o.attempt < s->run->latest_attempt && !s->run->terminal;
	air__logs_bounds(s->run->run_start_ms, s->run->run_end_ms, s->run->terminal, s->o.minutes,
	                 air__now_ms(), &it->from, &it->to);
	it->next = s->run->terminal || static_view || !s->o.follow ? STEP_TAIL : STEP_POLL;
	if (it->next == STEP_TAIL) {
		air__run_watch_free(it->watch);
		it->watch = NULL;
	}
	update_summary(it);
	return AIR_OK;
}

int air_client_open_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                         air_log_iter **out, air_error **err)
{
	air_log_iter *it;
	air__stream *s;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_open_logs: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_open_logs: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	if (!(it = air__calloc(1, sizeof(*it))))
		return air__oom(err);
	s = &it->s;
	s->c = client;
	s->run_id = run_id;
	if (opts)
		s->o = *opts;
	else
		air__logs_options_defaults(&s->o);
	air__client_ctx(client, &s->o.call, &s->ctx);
	s->node = s->o.node < 0 ? 0 : s->o.node;
	s->source = AIR_LOG_SOURCE_ENDPOINT;
	s->seen_attempt = -1;
	it->sum.source = AIR_LOG_SOURCE_ENDPOINT;
	air__dedup_init(&it->dd, AIR__LOGS_DEDUP_MAX);
	if ((rc = open_run(it, err)) != AIR_OK) {
		air_log_iter_free(it);
		return rc;
	}
	*out = it;
	return AIR_OK;
}
