/* logs.c: log options, records, summaries, and queueing records. */
#include "logs/logs.h"

void air__logs_options_defaults(air_logs_options *o)
{
	/* Every callback and its userdata NULL. */
	*o = (air_logs_options){
		.call = AIR__CALL_OPTS_INIT,
		.follow = 1,
		.tail = -1,
		.node = -1,
		.attempt = -1,
		.poll_ms = -1, /* the client's (air__client_poll_ms) */
		.max_failures = 5,
	};
}

int64_t air__logs_tail_target(const air_logs_options *o)
{
	return o->tail < 0 ? AIR__LOGS_DEFAULT_TAIL : o->tail;
}

int air__logs_check_attempt(const air_run *run, int32_t attempt, air_error **err)
{
	if (attempt <= run->latest_attempt)
		return AIR_OK;
	return air__fail(err, air__error_set_field(
		air__error_new(AIR_EINVAL, 0,
		               "attempt %d is out of range for run %lld: valid attempts are 0..%d",
		               attempt, (long long)run->id, run->latest_attempt),
		"attempt"));
}

int air__logs_check_node(const air_run *run, int32_t node, air_error **err)
{
	int64_t nodes;

	/* A run whose node count cannot be told is not checked here. */
	if (node < 0 || air__logs_node_count(run, &nodes, NULL) != AIR_OK || node < nodes)
		return AIR_OK;
	return air__fail(err, air__error_set_field(
		air__error_new(AIR_EINVAL, 0,
		               "node %d is out of range for run %lld: it ran on %lld node%s (0..%lld)",
		               node, (long long)run->id, (long long)nodes, nodes == 1 ? "" : "s",
		               (long long)nodes - 1),
		"node"));
}

int air_logs_options_new(air_logs_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__malloc(sizeof(**out));
	if (!*out)
		return AIR_ENOMEM;
	air__logs_options_defaults(*out);
	return AIR_OK;
}

void air_logs_options_free(air_logs_options *opts) { air__free(opts); }

int air_logs_options_set_int(air_logs_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_LOGS_FOLLOW:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		opts->follow = (int32_t)value;
		return AIR_OK;
	case AIR_LOGS_TAIL_LINES:
		if (value < -1)
			return AIR_EINVAL;
		opts->tail = value;
		return AIR_OK;
	case AIR_LOGS_MINUTES:
		/* Keep now - minutes far from overflowing. */
		if (value < 0 || value > INT64_MAX / 60000 / 2)
			return AIR_EINVAL;
		opts->minutes = value;
		return AIR_OK;
	case AIR_LOGS_NODE:
		if (value < -1 || value > INT32_MAX)
			return AIR_EINVAL;
		opts->node = (int32_t)value;
		return AIR_OK;
	case AIR_LOGS_ATTEMPT:
		/* Any negative attempt means the latest one. */
		if (value > INT32_MAX)
			return AIR_EINVAL;
		opts->attempt = value < 0 ? -1 : (int32_t)value;
		return AIR_OK;
	case AIR_LOGS_POLL_INTERVAL_MS:
		if (value < 0)
			return AIR_EINVAL;
		opts->poll_ms = value;
		return AIR_OK;
	case AIR_LOGS_MAX_PAGE_FAILURES:
		if (value < 1 || value > INT32_MAX)
			return AIR_EINVAL;
		opts->max_failures = (int32_t)value;
		return AIR_OK;
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_logs_options_set_interrupt(air_logs_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_logs_options_set_deadline_ms(air_logs_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int air_logs_options_set_record_cb(air_logs_options *opts, air_log_record_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_record = cb;
	opts->record_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_logs_options_set_text_cb(air_logs_options *opts, air_log_text_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_text = cb;
	opts->text_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_logs_options_set_status_cb(air_logs_options *opts, air_log_status_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_status = cb;
	opts->status_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_logs_options_set_attempt_cb(air_logs_options *opts, air_log_attempt_cb cb,
                                    void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_attempt = cb;
	opts->attempt_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_logs_options_set_waiting_cb(air_logs_options *opts, air_log_waiting_cb cb,
                                    void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_waiting = cb;
	opts->waiting_ud = cb ? userdata : NULL;
	return AIR_OK;
}

const char *air_log_record_line(const air_log_record *rec, size_t *len_out)
{
	if (len_out)
		*len_out = rec ? rec->len : 0;
	return rec ? rec->line : NULL;
}

int64_t air_log_record_time_ns(const air_log_record *rec) { return rec ? rec->time_ns : 0; }
int32_t air_log_record_node(const air_log_record *rec) { return rec ? rec->node : 0; }
int32_t air_log_record_source(const air_log_record *rec) { return rec ? rec->source : 0; }
/* Computed the first time it is asked for: most readers never ask. */
int32_t air_log_record_alert(const air_log_record *rec)
{
	air_log_record *r = (air_log_record *)rec; /* the iterator's own record */

	if (!r)
		return 0;
	if (r->alert < 0)
		r->alert = air_log_match_alert(r->line, r->len);
	return r->alert;
}

static air__queued *queue_slot(air__stream *s, air_error **err)
{
	if (s->qn == s->qcap) {
		size_t cap = s->qcap ? s->qcap * 2 : 256;
		air__queued *q = air__realloc(s->q, cap * sizeof(*q));
		if (!q) {
			air__oom(err);
			return NULL;
		}
		s->q = q;
		s->qcap = cap;
	}
	return &s->q[s->qn];
}

int air__stream_emit(air__stream *s, const char *line, size_t len, int64_t time_ns,
                     air_error **err)
{
	air__queued *q = queue_slot(s, err);

	if (!q)
		return AIR_ENOMEM;
	*q = (air__queued){NULL, s->batch.len, len, time_ns};
	air__buf_put(&s->batch, line, len);
	air__buf_putc(&s->batch, '\0');
	if (air__buf_oom(&s->batch))
		return air__oom(err);
	s->qn++;
	s->delivered++;
	return AIR_OK;
}

int air__stream_emit_page(air__stream *s, const char *line, size_t len, int64_t time_ns,
                          air_error **err)
{
	air__queued *q = queue_slot(s, err);

	if (!q)
		return AIR_ENOMEM;
	*q = (air__queued){line, 0, len, time_ns};
	s->qn++;
	s->delivered++;
	return AIR_OK;
}

int air__stream_emit_span(air__stream *s, const air__log_rec *recs, size_t n, air_error **err)
{
	if (s->qn + n > s->qcap) {
		size_t cap = s->qcap ? s->qcap : 256;
		air__queued *q;

		while (cap < s->qn + n)
			cap *= 2;
		if (!(q = air__realloc(s->q, cap * sizeof(*q))))
			return air__oom(err);
		s->q = q;
		s->qcap = cap;
	}
	for (size_t i = 0; i < n; i++)
		s->q[s->qn + i] = (air__queued){recs[i].body, 0, recs[i].len, recs[i].time_ns};
	s->qn += n;
	s->delivered += (int64_t)n;
	return AIR_OK;
}

char *air__no_logs_message(const air_run *run)
{
	if (run->terminal)
		return air__sprintf("No logs found for run %lld, which terminated in state %s%s%s",
		                    (long long)run->id, run->state, run->state_message ? ": " : "",
		                    run->state_message ? run->state_message : "");
	return air__sprintf("Run %lld has no logs yet (current state: %s)", (long long)run->id,
	                    run->state);
}

int air__stream_set_no_logs(air__stream *s, air_error **err)
{
	int64_t nodes;

	air__free(s->no_logs);
	s->no_logs = air__no_logs_message(s->run);
	/* The node asked for is past the run's: the message says so (the
	 * request was made all the same, as the reference makes it). */
	if (s->no_logs && s->o.node > 0 && air__logs_node_count(s->run, &nodes, NULL) == AIR_OK &&
	    s->o.node >= nodes) {
		char *more = air__sprintf("%s (node %d is past its last: it ran on %lld node%s, "
		                          "0..%lld)", s->no_logs, (int)s->o.node, (long long)nodes,
		                          nodes == 1 ? "" : "s", (long long)nodes - 1);
		air__free(s->no_logs);
		s->no_logs = more;
	}
	return s->no_logs ? AIR_OK : air__oom(err);
}

int64_t air_logs_summary_records(const air_logs_summary *s) { return s ? s->records : 0; }
const char *air_logs_summary_state_name(const air_logs_summary *s) { return s ? s->state : NULL; }
int32_t air_logs_summary_state(const air_logs_summary *s)
{
	return s ? air__state_from_name(s->state) : AIR_STATE_UNKNOWN;
}
int32_t air_logs_summary_terminal(const air_logs_summary *s) { return s && s->terminal; }
int32_t air_logs_summary_succeeded(const air_logs_summary *s) { return s && s->succeeded; }
int32_t air_logs_summary_source(const air_logs_summary *s) { return s ? s->source : 0; }

const char *air_logs_summary_no_logs_message(const air_logs_summary *s)
{
	return s ? s->no_logs : NULL;
}

void air_logs_summary_free(air_logs_summary *s)
{
	if (!s)
		return;
	air__free(s->state);
	air__free(s->no_logs);
	air__free(s);
}
