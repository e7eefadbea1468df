/*
 * history.c: metric histories (air_client_open_metric_history(),
 * air_metric_iter_next()), a pull-style state machine like the log
 * iterator: each step reads one thing (the run, or one get-history page)
 * and queues the points it found; next() hands them out one by one and runs
 * the next step only once the queue is empty, so memory is one page.
 *
 * A pass reads each key's history from where the last pass stopped. MLflow
 * answers the full history every time, so for each key the iterator keeps
 * the page token of the page its delivered points end in, how many points
 * of that page it delivered, and how many in all: a pass reads that page
 * again and skips what was delivered. A page token from an earlier pass that
 * the server refuses (400: tokens may not outlive a request, unconfirmed)
 * makes it read from the first page and skip the total instead.
 */
#include "metrics/metrics.h"

#include <string.h>

#define GET_HISTORY "/api/2.0/mlflow/metrics/get-history"

typedef enum step {
	STEP_POLL,   /* read the run (and the keys), then the first page of the first key */
	STEP_PAGE,   /* read the next page of the current key */
	STEP_AFTER,  /* a pass is done: the end, or the poll callback */
	STEP_WAIT,   /* the pause before the next poll */
	STEP_DONE,
	STEP_FAILED
} step;

typedef struct key_state {
	char *key;
	char *token;           /* the page the delivered points end in; NULL: the first */
	int64_t in_page;       /* points of that page delivered */
	int64_t total;         /* points delivered */
} key_state;

struct air_metric_iter {
	air_client *c;
	air__ctx ctx;
	int64_t run_id;
	air_metrics_options o;
	air_run *run;            /* latest runs/get */
	char *mlflow_run;        /* once resolved */
	bool all_keys;           /* every metric of the run (no key given) */
	key_state *keys;
	size_t nkeys, keys_cap;
	step next;
	int64_t poll;
	bool last_pass;          /* the pass started with the run ended (or one pass only) */
	int failures;            /* consecutive failed reads while following */
	/* the key being read in this pass */
	size_t cur;
	int64_t skip;            /* points still to skip */
	bool from_start;         /* reading again from the first page (a refused token) */
	json_t *seen;            /* tokens of this key in this pass: a repeat ends it */
	air__buf body, query;
	/* the queue: q[qpos..qn) not handed out yet */
	air_metric_point *q;
	size_t qn, qpos, qcap;
	air_metric_point pt;     /* handed out last */
	int fail_rc;
	air_error *fail_err;
};

/* ---- keys ------------------------------------------------------------------------ */

static key_state *find_key(air_metric_iter *it, const char *key)
{
	for (size_t i = 0; i < it->nkeys; i++)
		if (!strcmp(it->keys[i].key, key))
			return &it->keys[i];
	return NULL;
}

/* Add @key (kept sorted: a pass goes through the keys in order). */
static int add_key(air_metric_iter *it, const char *key)
{
	size_t at = 0;

	if (find_key(it, key))
		return AIR_OK;
	if (it->nkeys == it->keys_cap) {
		size_t cap = it->keys_cap ? it->keys_cap * 2 : 8;
		key_state *more = air__realloc(it->keys, cap * sizeof(*more));
		if (!more)
			return AIR_ENOMEM;
		it->keys = more;
		it->keys_cap = cap;
	}
	while (at < it->nkeys && strcmp(it->keys[at].key, key) < 0)
		at++;
	memmove(&it->keys[at + 1], &it->keys[at], (it->nkeys - at) * sizeof(*it->keys));
	it->keys[at] = (key_state){0};
	if (!(it->keys[at].key = air__strdup(key))) {
		memmove(&it->keys[at], &it->keys[at + 1], (it->nkeys - at) * sizeof(*it->keys));
		return AIR_ENOMEM;
	}
	it->nkeys++;
	return AIR_OK;
}

/* The keys mlflow/runs/get lists (every metric of the run). */
static int read_keys(air_metric_iter *it, air_error **err)
{
	json_t *run = NULL, *v;
	size_t i;
	int rc = air__metrics_mlflow_run(it->c, &it->ctx, it->mlflow_run, &it->body, &run, err);

	json_array_foreach(air__json_at(run, "data.metrics"), i, v) {
		const char *key = air__json_nonempty(v, "key");
		if (rc == AIR_OK && key && add_key(it, key) != AIR_OK)
			rc = air__oom(err);
	}
	json_decref(run);
	return rc;
}

/* Start reading key @i in this pass: from the page its points end in. */
static void begin_key(air_metric_iter *it, size_t i)
{
	it->cur = i;
	it->skip = i < it->nkeys ? it->keys[i].in_page : 0;
	it->from_start = false;
	json_decref(it->seen);
	it->seen = json_object(); /* NULL when out of memory: repeats are then not caught */
	it->next = i < it->nkeys ? STEP_PAGE : STEP_AFTER;
}

/* ---- failures while following ---------------------------------------------------- */

/* A failed read of a followed run that is worth another try (the transport
 * already retried what it could): wait a poll interval, then the same step
 * again. Returns AIR_OK to try again, else the failure. */
static int maybe_retry(air_metric_iter *it, int rc, air_error *e, air_error **err)
{
	if (!it->o.follow || rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_ENOMEM ||
	    rc == AIR_EABORTED || !e || !air_error_retryable(e) ||
	    ++it->failures >= AIR__METRICS_MAX_POLL_FAILURES)
		return e ? air__fail(err, e) : rc;
	air__client_debug(it->c, AIR_DEBUG_INFO, "metrics of run %lld: a read failed (%d of %d): %s",
	                  (long long)it->run_id, it->failures, AIR__METRICS_MAX_POLL_FAILURES,
	                  air_error_message(e));
	air_error_free(e);
	return air__ctx_sleep(&it->ctx, it->o.poll_ms, "metric history", err);
}

/* ---- steps ------------------------------------------------------------------------ */

static int poll_run(air_metric_iter *it, air_error **err)
{
	air_error *e = NULL;
	int rc = AIR_OK;

	if (it->poll > 0) {
		air_run *run = NULL;
		if ((rc = air__run_fetch(it->c, &it->ctx, it->run_id, &run, &e)) != AIR_OK)
			return maybe_retry(it, rc, e, err);
		air_run_free(it->run);
		it->run = run;
	}
	if (!it->mlflow_run) {
		if ((rc = air__metrics_resolve(it->c, &it->ctx, it->run, err)) != AIR_OK ||
		    (rc = air__ctx_check(&it->ctx, "metric history", err)) != AIR_OK)
			return rc;
		if (it->run->mlflow_run_id && !(it->mlflow_run = air__strdup(it->run->mlflow_run_id)))
			return air__oom(err);
	}
	if (it->mlflow_run && it->all_keys && (rc = read_keys(it, &e)) != AIR_OK)
		return maybe_retry(it, rc, e, err);
	it->failures = 0;
	it->last_pass = it->run->terminal || !it->o.follow;
	if (it->mlflow_run)
		begin_key(it, 0);
	else
		it->next = STEP_AFTER;
	return AIR_OK;
}

/* Remember @next unless this pass saw it already (a repeat ends the key). */
static int next_token(air_metric_iter *it, const char *next, char **token)
{
	*token = NULL;
	if (!next || !it->seen || json_object_get(it->seen, next))
		return AIR_OK;
	*token = air__strdup(next);
	return *token && json_object_set_new(it->seen, next, json_true()) == 0 ? AIR_OK : AIR_ENOMEM;
}

static int queue_point(air_metric_iter *it, const air_metric_point *pt)
{
	if (it->qn == it->qcap) {
		size_t cap = it->qcap ? it->qcap * 2 : 256;
		air_metric_point *more = air__realloc(it->q, cap * sizeof(*more));
		if (!more)
			return AIR_ENOMEM;
		it->q = more;
		it->qcap = cap;
	}
	it->q[it->qn++] = *pt;
	return AIR_OK;
}

/* The points of one page: those not delivered yet are queued. */
static int take_page(air_metric_iter *it, key_state *k, const json_t *reply, air_error **err)
{
	const json_t *list = json_object_get(reply, "metrics"), *v;
	int64_t n = 0;
	size_t i;

	json_array_foreach(list, i, v) {
		air_metric_point pt;

		n++;
		if (it->skip > 0) {
			it->skip--;
			continue;
		}
		if (!air__metrics_point(v, &pt)) {
			air__client_debug(it->c, AIR_DEBUG_INFO, "metric %s: a malformed point is left out",
			                  k->key);
			continue;
		}
		pt.key = k->key;
		if (queue_point(it, &pt) != AIR_OK)
			return air__oom(err);
		k->total++;
	}
	k->in_page = n;
	return AIR_OK;
}

static int read_page(air_metric_iter *it, air_error **err)
{
	key_state *k = &it->keys[it->cur];
	json_t *reply = NULL;
	air_error *e = NULL;
	char *token = NULL;
	int rc;

	air__buf_clear(&it->query);
	air__buf_query(&it->query, "run_id", it->mlflow_run);
	air__buf_query(&it->query, "metric_key", k->key);
	air__buf_query_int(&it->query, "max_results", it->o.page_size);
	if (k->token)
		air__buf_query(&it->query, "page_token", k->token);
	if (air__buf_oom(&it->query))
		return air__oom(err);
	rc = air__metrics_get(it->c, &it->ctx, GET_HISTORY, air__buf_cstr(&it->query), &it->body,
	                      &reply, &e);
	if (rc == AIR_EAPI && k->token && !it->from_start && air_error_http_status(e) == 400) {
		/* A token of an earlier pass the server no longer takes. */
		air_error_free(e);
		air__free(k->token);
		k->token = NULL;
		it->skip = k->total;
		it->from_start = true;
		return AIR_OK;
	}
	if (rc != AIR_OK)
		return maybe_retry(it, rc, e, err);
	it->failures = 0;
	rc = take_page(it, k, reply, err);
	if (rc == AIR_OK && next_token(it, air__json_nonempty(reply, "next_page_token"), &token))
		rc = air__oom(err);
	json_decref(reply);
	if (rc != AIR_OK)
		return rc;
	if (token) {
		/* The points go on in the next page. */
		air__free(k->token);
		k->token = token;
		k->in_page = 0;
	} else {
		begin_key(it, it->cur + 1);
	}
	return AIR_OK;
}

static int after_pass(air_metric_iter *it, air_error **err)
{
	if (it->last_pass) {
		it->next = STEP_DONE;
		return AIR_OK;
	}
	if (it->o.on_poll && it->o.on_poll(it->run->state, it->o.poll_ud) != 0)
		return air__failf(err, AIR_EABORTED, 0, "the poll callback stopped the metric history");
	it->next = STEP_WAIT;
	return AIR_OK;
}

/* A step of its own, so that a pause cut short by an interrupt is taken
 * again without calling the poll callback twice. */
static int wait_poll(air_metric_iter *it, air_error **err)
{
	int rc = air__ctx_sleep(&it->ctx, it->o.poll_ms, "metric history", err);

	if (rc != AIR_OK)
		return rc;
	it->poll++;
	it->next = STEP_POLL;
	return AIR_OK;
}

static int step_once(air_metric_iter *it, air_error **err)
{
	switch (it->next) {
	case STEP_POLL:
		return poll_run(it, err);
	case STEP_PAGE:
		return read_page(it, err);
	case STEP_AFTER:
		return after_pass(it, err);
	case STEP_WAIT:
		return wait_poll(it, err);
	default:
		return AIR_OK;
	}
}

static int fail(air_metric_iter *it, int rc, air_error **err)
{
	/* An interrupt or a deadline stops a step before it queued anything:
	 * the step stays next, and the iterator may be advanced again. */
	if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT)
		return rc;
	it->next = STEP_FAILED;
	it->fail_rc = rc;
	if (err && *err)
		it->fail_err = air__error_clone(*err);
	return rc;
}

int air_metric_iter_next(air_metric_iter *it, const air_metric_point **pt, air_error **err)
{
	int rc;

	if (pt)
		*pt = NULL;
	if (!it || !pt)
		return air__failf(err, AIR_EINVAL, 0, "air_metric_iter_next: %s is NULL",
		                  it ? "pt" : "iter");
	if (it->next == STEP_FAILED)
		return it->fail_err ? air__fail(err, air__error_clone(it->fail_err)) : it->fail_rc;
	while (it->qpos == it->qn) {
		if (it->next == STEP_DONE)
			return AIR_EDONE;
		it->qn = it->qpos = 0;
		if ((rc = step_once(it, err)) != AIR_OK)
			return fail(it, rc, err);
	}
	it->pt = it->q[it->qpos++];
	*pt = &it->pt;
	return AIR_OK;
}

int32_t air_metric_iter_run_state(const air_metric_iter *it)
{
	return it && it->run ? air__state_from_name(it->run->state) : AIR_STATE_UNKNOWN;
}

const char *air_metric_iter_run_state_name(const air_metric_iter *it)
{
	return it && it->run ? it->run->state : NULL;
}

const char *air_metric_iter_mlflow_run_id(const air_metric_iter *it)
{
	return it ? it->mlflow_run : NULL;
}

void air_metric_iter_free(air_metric_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->nkeys; i++) {
		air__free(it->keys[i].key);
		air__free(it->keys[i].token);
	}
	air__free(it->keys);
	air_run_free(it->run);
	air__free(it->mlflow_run);
	json_decref(it->seen);
	air__buf_dispose(&it->body);
	air__buf_dispose(&it->query);
	air__free(it->q);
	air_error_free(it->fail_err);
	air__free(it);
}

/* ---- opening ------------------------------------------------------------------------ */

int air_client_open_metric_history(air_client *client, int64_t run_id, const char *key,
                                   const air_metrics_options *opts, air_metric_iter **out,
                                   air_error **err)
{
	air_metric_iter *it;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_open_metric_history: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_open_metric_history: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	if (key && !*key)
		return air__fail(err, air__error_set_field(
			air__error_new(AIR_EINVAL, 0, "the metric key is empty"), "key"));
	if (!(it = air__calloc(1, sizeof(*it))))
		return air__oom(err);
	it->c = client;
	it->run_id = run_id;
	if (opts)
		it->o = *opts;
	else
		air__metrics_options_defaults(&it->o);
	it->all_keys = key == NULL;
	air__client_ctx(client, &it->o.call, &it->ctx);
	rc = key ? add_key(it, key) : AIR_OK;
	if (rc != AIR_OK)
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = air__client_ensure_resolved(client, &it->ctx, err);
	if (rc == AIR_OK && it->o.poll_ms < 0)
		it->o.poll_ms = air__client_poll_ms(client);
	if (rc == AIR_OK)
		rc = air__run_fetch(client, &it->ctx, run_id, &it->run, err);
	if (rc != AIR_OK) {
		air_metric_iter_free(it);
		return rc;
	}
	it->next = STEP_POLL;
	*out = it;
	return AIR_OK;
}

const char *air_metric_point_key(const air_metric_point *pt) { return pt ? pt->key : NULL; }
int64_t air_metric_point_step(const air_metric_point *pt) { return pt ? pt->step : 0; }
double air_metric_point_value(const air_metric_point *pt) { return pt ? pt->value : 0; }
int64_t air_metric_point_timestamp_ms(const air_metric_point *pt)
{
	return pt ? pt->timestamp_ms : 0;
}
