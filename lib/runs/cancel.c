/* cancel.c: runs/cancel for one run, several runs, or all active runs. */
#include "runs/list.h"

#include <string.h>

typedef struct cancel_entry {
	int64_t run_id;
	int32_t status;
	char *message;
} cancel_entry;

struct air_cancel_report {
	cancel_entry *entries;
	size_t count;
	size_t failures;
};

/* The cancel endpoint reports unknown runs as 400 INVALID_PARAMETER_VALUE. */
static air_error *classify(air_error *e)
{
	const char *code = air_error_server_code(e);

	if (air_error_code(e) != AIR_ENOTFOUND && air_error_http_status(e) == 400 && code &&
	    !strcmp(code, "INVALID_PARAMETER_VALUE")) {
		air__error_set_code(e, AIR_ENOTFOUND);
		air__error_set_kind(e, AIR_KIND_NOT_FOUND);
		air__error_set_retryable(e, false);
	}
	return e;
}

static int cancel_one(air_client *c, const air__ctx *ctx, int64_t run_id, air_error **err)
{
	json_t *body;
	air_error *e = NULL;
	int rc;

	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	body = json_object();
	if (!body || !air__json_set_int(body, "run_id", run_id)) {
		json_decref(body);
		return air__oom(err);
	}
	rc = air__api_json(c, ctx, "POST", "/api/2.2/jobs/runs/cancel", NULL, body, NULL, NULL, &e);
	json_decref(body);
	if (rc == AIR_OK)
		return AIR_OK;
	if (!e)
		return air__failf(err, rc, 0, "cannot cancel run %lld: %s", (long long)run_id,
		                  air_strerror(rc));
	return air__fail(err, classify(e));
}

int air_client_cancel_run(air_client *client, int64_t run_id, const air_call_options *opts,
                          air_error **err)
{
	air__ctx ctx;
	int rc;

	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_cancel_run: client is NULL");
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	return rc == AIR_OK ? cancel_one(client, &ctx, run_id, err) : rc;
}

static int report_new(size_t n, air_cancel_report **out, air_error **err)
{
	*out = air__calloc(1, sizeof(**out));
	if (*out && n)
		(*out)->entries = air__calloc(n, sizeof(cancel_entry));
	if (!*out || (n && !(*out)->entries)) {
		air_cancel_report_free(*out);
		*out = NULL;
		return air__oom(err);
	}
	return AIR_OK;
}

/* Cancel each id in order; a failure is recorded and the rest still run. An
 * interrupt or the deadline stops the whole call instead. */
static int cancel_each(air_client *c, const air__ctx *ctx, const int64_t *ids, size_t n,
                       air_cancel_report *rep, air_error **err)
{
	for (size_t i = 0; i < n; i++) {
		cancel_entry *e = &rep->entries[rep->count++];
		air_error *ae = NULL;

		e->run_id = ids[i];
		e->status = cancel_one(c, ctx, ids[i], &ae);
		if (e->status == AIR_EINTERRUPTED || e->status == AIR_ETIMEOUT)
			return ae ? air__fail(err, ae) : e->status;
		if (e->status != AIR_OK) {
			e->message = air__strdup(ae ? air_error_message(ae) : air_strerror(e->status));
			rep->failures++;
		}
		air_error_free(ae);
	}
	return AIR_OK;
}

int air_client_cancel_runs(air_client *client, const int64_t *run_ids, size_t n,
                           const air_call_options *opts, air_cancel_report **out, air_error **err)
{
	air__ctx ctx;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_cancel_runs: out is NULL");
	*out = NULL;
	if (!client || (n && !run_ids))
		return air__failf(err, AIR_EINVAL, 0, "air_client_cancel_runs: %s is NULL",
		                  client ? "run_ids" : "client");
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc == AIR_OK)
		rc = report_new(n, out, err);
	if (rc == AIR_OK && (rc = cancel_each(client, &ctx, run_ids, n, *out, err)) != AIR_OK) {
		air_cancel_report_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Collects the ids of the runs listed. */
typedef struct id_list {
	int64_t *ids;
	size_t n, cap;
} id_list;

static int add_id(const air_run *run, void *ud)
{
	id_list *l = ud;

	if (l->n == l->cap) {
		int64_t *p = air__realloc(l->ids, (l->cap = l->cap ? l->cap * 2 : 16) * sizeof(*p));
		if (!p)
			return AIR_ENOMEM;
		l->ids = p;
	}
	l->ids[l->n++] = run->id;
	return AIR_OK;
}

/* The caller's active AI Runtime runs, by the scan strategy (those of the
 * sweep whose folder is @sweep_tag, when given). */
static int active_run_ids(air_client *client, const air__call_opts *call, const char *sweep_tag,
                          int64_t **ids, size_t *n, air_error **err)
{
	id_list l = {NULL, 0, 0};
	int rc = air__list_each(client, call, sweep_tag, false, add_id, &l, err);

	if (rc != AIR_OK) {
		air__free(l.ids);
		l = (id_list){NULL, 0, 0};
	}
	*ids = l.ids;
	*n = l.n;
	return rc;
}

int air__cancel_active(air_client *client, const air__call_opts *call, const char *sweep_tag,
                       air_cancel_report **out, air_error **err)
{
	int64_t *ids = NULL;
	air__ctx ctx;
	size_t n = 0;
	int rc;

	*out = NULL;
	/* One deadline for the listing and the cancellations together. */
	air__client_ctx(client, call, &ctx);
	rc = active_run_ids(client, call, sweep_tag, &ids, &n, err);
	if (rc == AIR_OK)
		rc = report_new(n, out, err);
	if (rc == AIR_OK && (rc = cancel_each(client, &ctx, ids, n, *out, err)) != AIR_OK) {
		air_cancel_report_free(*out);
		*out = NULL;
	}
	air__free(ids);
	return rc;
}

int air_client_cancel_all(air_client *client, const air_call_options *opts,
                          air_cancel_report **out, air_error **err)
{
	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_cancel_all: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_cancel_all: client is NULL");
	return air__cancel_active(client, opts ? &opts->call : NULL, NULL, out, err);
}

size_t air_cancel_report_count(const air_cancel_report *rep) { return rep ? rep->count : 0; }

static const cancel_entry *entry(const air_cancel_report *rep, size_t i)
{
	return rep && i < rep->count ? &rep->entries[i] : NULL;
}

int64_t air_cancel_report_run_id(const air_cancel_report *rep, size_t i)
{
	const cancel_entry *e = entry(rep, i);
	return e ? e->run_id : 0;
}

int32_t air_cancel_report_status(const air_cancel_report *rep, size_t i)
{
	const cancel_entry *e = entry(rep, i);
	return e ? e->status : AIR_EINVAL;
}

const char *air_cancel_report_message(const air_cancel_report *rep, size_t i)
{
	const cancel_entry *e = entry(rep, i);
	return e ? e->message : NULL;
}

size_t air_cancel_report_failures(const air_cancel_report *rep)
{
	return rep ? rep->failures : 0;
}

void air_cancel_report_free(air_cancel_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->count; i++)
		air__free(rep->entries[i].message);
	air__free(rep->entries);
	air__free(rep);
}
