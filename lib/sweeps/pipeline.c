/*
 * pipeline.c: every variant's launch directory and runs/submit, on the
 * calling thread, as one stream of requests over one multi handle
 * (air__http_do_feed): at most max_parallel requests in flight, so at most
 * that many connections. A variant is a small state machine — one mkdirs of
 * its launch directory, its files in parallel, runs/submit — and the next
 * request handed out is the one that brings a variant closest to its run:
 * a runs/submit first, then an upload, then the mkdirs of a new variant.
 * At most 2 x max_parallel variants are open at a time, so memory does not
 * grow with the size of the sweep. Between them, the sweep's stop mark is
 * read (air_client_stop_sweep()): first, before any runs/submit is sent,
 * then again LOOK_MS after the last look ended, while variants are still to
 * be submitted. A look is one attempt (no retry holds a place for long); one
 * that fails lets the sweep go on. A look that finds the mark stops handing
 * out requests; those in flight end as they do (a runs/submit the server
 * has received gives its run).
 */
#include "sweeps/sweeps.h"

#include <string.h>

#define MKDIRS_PATH "/api/2.0/workspace/mkdirs"
#define SUBMIT_PATH "/api/2.2/jobs/runs/submit"
/* Requests of one variant: mkdirs, the artifacts, runs/submit. */
#define REQ_MKDIRS 0
#define REQ_FIRST_UPLOAD 1
#define REQ_SUBMIT (REQ_FIRST_UPLOAD + AIR__MAX_ARTIFACTS)
#define NREQ (REQ_SUBMIT + 1)
/* The least time between the end of a look at the stop mark and the next;
 * and the longest a look waits for its reply. */
#define LOOK_MS 1000
#define LOOK_TIMEOUT_MS 10000

typedef enum step { STEP_MKDIRS, STEP_UPLOAD, STEP_SUBMIT } step;

typedef struct job job;
typedef struct rtag {
	job *j;
	int k;
} rtag;

struct job {
	bool open;
	size_t index;
	step at;
	int handed;              /* requests of the current step handed out */
	int ended;               /* ... and ended */
	int pending;             /* requests in flight */
	air_config *cfg;
	air__workload w;
	bool has_w;
	char *yaml;              /* training_config.yaml: the variant's effective config */
	char *dir, *command_path;
	air__artifact arts[AIR__MAX_ARTIFACTS];
	size_t n_arts;
	char *paths[AIR__MAX_ARTIFACTS], *urls[AIR__MAX_ARTIFACTS];
	char *mkdirs_body, *submit_body;
	air__http_req req[NREQ];
	air__http_resp resp[NREQ];
	rtag tag[NREQ];
	air_error *err;          /* the first failure */
};

/* The looks at the stop mark. */
typedef struct look {
	char *query;
	air__http_req req;
	air__http_resp resp;
	rtag tag;                /* {NULL, 0}: not a variant's */
	bool pending;
	bool answered;           /* the first one has ended: a runs/submit may be sent */
	int64_t ended;           /* when the last one ended (monotonic ms) */
} look;

typedef struct pipe {
	const air__pipeline_env *e;
	job *jobs;
	size_t n_jobs;
	size_t cursor, end;      /* the next variant to open, and the end of the range */
	bool stopped;            /* the callback asked to stop: requests in flight are cut */
	bool draining;           /* the sweep was stopped: those in flight end as they do */
	look look;
} pipe;

static void job_close(job *j)
{
	if (j->has_w)
		air__workload_dispose(&j->w);
	air__artifacts_dispose(j->arts, j->n_arts);
	for (size_t i = 0; i < AIR__MAX_ARTIFACTS; i++) {
		air__free(j->paths[i]);
		air__free(j->urls[i]);
	}
	for (int k = 0; k < NREQ; k++)
		air__http_resp_clear(&j->resp[k]);
	air_config_free(j->cfg);
	air__free(j->yaml);
	air__free(j->dir);
	air__free(j->command_path);
	air__free(j->mkdirs_body);
	air__free(j->submit_body);
	air_error_free(j->err);
	memset(j, 0, sizeof(*j));
}

/* Variant @i's requests, built from its config. */
static int job_prepare(pipe *p, job *j, size_t i, air_error **err)
{
	const air__pipeline_env *e = p->e;
	air__submit_params sp;
	json_t *body;
	int rc;

	j->open = true;
	j->index = i;
	for (int k = 0; k < NREQ; k++) {
		j->resp[k] = (air__http_resp)AIR__HTTP_RESP_INIT;
		j->tag[k] = (rtag){j, k};
	}
	if ((rc = air__variant_config(e->base, e->points, i, &j->cfg, err)) != AIR_OK ||
	    (rc = air_config_to_yaml(j->cfg, &j->yaml, err)) != AIR_OK ||
	    (rc = air__workload_load(j->cfg, &j->w, err)) != AIR_OK)
		return rc;
	j->has_w = true;
	/* the variant's own effective config: a rerun of its run starts from it */
	j->w.source_bytes = j->yaml;
	j->w.source_len = strlen(j->yaml);
	if ((rc = air__artifacts_build(&j->w, j->arts, &j->n_arts, err)) != AIR_OK)
		return rc;
	j->dir = air__sprintf("%s/v%zu", e->sweep_dir, i);
	j->command_path = j->dir ? air__sprintf("%s/command.sh", j->dir) : NULL;
	body = j->dir ? json_pack("{s:s}", "path", j->dir) : NULL;
	j->mkdirs_body = body ? air__json_compact(body) : NULL;
	json_decref(body);
	if (!j->command_path || !j->mkdirs_body)
		return air__oom(err);
	air__api_json_req(&j->req[REQ_MKDIRS], "POST", MKDIRS_PATH, NULL, j->mkdirs_body);
	for (size_t k = 0; k < j->n_arts; k++) {
		air__upload up = {.data = j->arts[k].data, .len = j->arts[k].len};

		if (!(j->paths[k] = air__sprintf("%s/%s", j->dir, j->arts[k].name)) ||
		    !(j->urls[k] = air__import_file_url(j->paths[k])))
			return air__oom(err);
		up.path = j->paths[k];
		air__ws_import_req(&j->req[REQ_FIRST_UPLOAD + k], j->urls[k], &up, true);
	}
	sp = (air__submit_params){j->command_path, e->sweep->v[i].key, e->policy_id,
	                          e->code_source_path, air__client_default_runtime(e->c)};
	body = air__submit_body(&j->w, &sp);
	if (!body || !air__json_set_str(body, "run_name", e->sweep->v[i].run_name) ||
	    !(j->submit_body = air__json_compact(body))) {
		json_decref(body);
		return air__oom(err);
	}
	json_decref(body);
	air__api_json_req(&j->req[REQ_SUBMIT], "POST", SUBMIT_PATH, NULL, j->submit_body);
	j->at = STEP_MKDIRS;
	return AIR_OK;
}

int air__sweep_notify(const air__pipeline_env *e, size_t i)
{
	const air_sweep_options *o = e->opts;

	if (!o || !o->progress || o->progress(e->sweep, i, o->progress_ud) == 0)
		return AIR_OK;
	return AIR_EABORTED;
}

/* Variant @j->index failed with @e (taken): recorded, reported, closed. */
static int job_fail(pipe *p, job *j, air_error *e)
{
	size_t i = j->index;

	air__sweep_fail(p->e->sweep, i, e);
	j->err = NULL;
	job_close(j);
	return air__sweep_notify(p->e, i);
}

static bool hand(job *j, int k, const air__http_req **req, air__http_resp **resp, void **tag)
{
	*req = &j->req[k];
	*resp = &j->resp[k];
	*tag = &j->tag[k];
	j->handed++;
	j->pending++;
	return true;
}

/* Open the next variant that is still to be submitted; false when none. */
static bool open_next(pipe *p, job *j)
{
	air__variant *v;
	air_error *e = NULL;

	while (p->cursor < p->end) {
		size_t i = p->cursor++;

		v = &p->e->sweep->v[i];
		if (v->status != AIR_VARIANT_VALID)
			continue;
		if (job_prepare(p, j, i, &e) != AIR_OK) {
			if (job_fail(p, j, e) != AIR_OK) {
				p->stopped = true;
				return false;
			}
			e = NULL;
			continue;
		}
		v->status = AIR_VARIANT_UPLOADING;
		v->launch_dir = air__strdup(j->dir);
		return true;
	}
	return false;
}

/* Whether a variant is still to be sent its runs/submit. */
static bool submits_left(const pipe *p)
{
	if (p->cursor < p->end)
		return true;
	for (size_t s = 0; s < p->n_jobs; s++)
		if (p->jobs[s].open && (p->jobs[s].at != STEP_SUBMIT || p->jobs[s].handed == 0))
			return true;
	return false;
}

/* The next look at the stop mark, when one is due. */
static bool look_due(pipe *p, const air__http_req **req, air__http_resp **resp, void **tag)
{
	look *l = &p->look;
	int64_t now = air__mono_ms();

	if (!p->e->mark_path || l->pending || (l->answered && now - l->ended < LOOK_MS) ||
	    !submits_left(p))
		return false;
	if (!l->query) {
		air__ws_export_req(&l->req, p->e->mark_path, &l->query);
		if (!l->query) {
			l->answered = true; /* no look: the sweep goes on, as when one fails */
			return false;
		}
		l->req.flags = AIR__HTTP_NO_RETRY;
		l->req.inactivity_timeout_ms = LOOK_TIMEOUT_MS;
	}
	air__http_resp_clear(&l->resp);
	l->resp = (air__http_resp)AIR__HTTP_RESP_INIT;
	l->pending = true;
	*req = &l->req;
	*resp = &l->resp;
	*tag = &l->tag;
	return true;
}

/* A look has ended: the mark says stopped (the sweep stops), or is not
 * there. A look that fails is only said (the next one may read it). */
static void looked(pipe *p, int rc, air_error *e)
{
	look *l = &p->look;

	l->pending = false;
	l->answered = true;
	l->ended = air__mono_ms();
	if (rc == AIR_OK && air__sweep_mark_stopped(l->resp.body, l->resp.body_len)) {
		p->e->sweep->stopped = true;
		p->draining = true;
	} else if (rc != AIR_OK && air_error_http_status(e) != 404) {
		air__client_debug(p->e->c, AIR_DEBUG_INFO, "sweep: its stop mark not read (%s)",
		                  air_error_message(e));
	}
	air_error_free(e);
}

static bool next(void *ud, const air__http_req **req, air__http_resp **resp, void **tag)
{
	pipe *p = ud;
	job *free_slot = NULL;

	if (p->stopped || p->draining)
		return false;
	if (look_due(p, req, resp, tag))
		return true;
	/* the step closest to a run first; none before the first look's answer */
	for (size_t s = 0; s < p->n_jobs && (!p->e->mark_path || p->look.answered); s++) {
		job *j = &p->jobs[s];
		if (j->open && !j->err && j->at == STEP_SUBMIT && j->handed == 0)
			return hand(j, REQ_SUBMIT, req, resp, tag);
	}
	for (size_t s = 0; s < p->n_jobs; s++) {
		job *j = &p->jobs[s];
		if (j->open && !j->err && j->at == STEP_UPLOAD && (size_t)j->handed < j->n_arts)
			return hand(j, REQ_FIRST_UPLOAD + j->handed, req, resp, tag);
		if (!j->open && !free_slot)
			free_slot = j;
	}
	if (free_slot && open_next(p, free_slot)) {
		if (air__sweep_notify(p->e, free_slot->index) != AIR_OK) {
			/* stopped by the callback: the variant stays unsent */
			p->e->sweep->v[free_slot->index].status = AIR_VARIANT_VALID;
			air__free(p->e->sweep->v[free_slot->index].launch_dir);
			p->e->sweep->v[free_slot->index].launch_dir = NULL;
			job_close(free_slot);
			p->stopped = true;
			return false;
		}
		return hand(free_slot, REQ_MKDIRS, req, resp, tag);
	}
	return false;
}

/* The run id of a runs/submit reply. */
static int submitted(pipe *p, job *j, air_error **err)
{
	const air__pipeline_env *e = p->e;
	air__variant *v = &e->sweep->v[j->index];
	const char *host = air__client_host(e->c);
	json_t *reply = NULL;
	int64_t id = 0;
	int rc = air__api_json_reply(&j->resp[REQ_SUBMIT], "POST", SUBMIT_PATH, &reply, err);

	if (rc == AIR_OK && (!air__json_int64(reply, "run_id", &id) || id <= 0))
		rc = air__failf(err, AIR_EPROTO, 0, "runs/submit replied without a run_id");
	json_decref(reply);
	if (rc != AIR_OK)
		return rc;
	v->run_id = id;
	v->status = AIR_VARIANT_SUBMITTED;
	if (!(v->dashboard_url = air__sprintf("%s/jobs/runs/%lld", host ? host : "", (long long)id)))
		return air__oom(err);
	return AIR_OK;
}

static air_error *step_error(job *j, int k, air_error *e)
{
	if (k == REQ_MKDIRS)
		return air__ws_mkdirs_error(e, j->dir);
	if (k == REQ_SUBMIT)
		return air__error_prefix(e, "submitting the run");
	return air__ws_import_error(e, j->paths[k - REQ_FIRST_UPLOAD]);
}

static int done(void *ud, void *tagp, int rc, air_error *e)
{
	pipe *p = ud;
	rtag *t = tagp;
	job *j = t->j;
	size_t i;

	if (!j) {
		looked(p, rc, e);
		return AIR_OK;
	}
	i = j->index;
	j->pending--;
	j->ended++;
	if (rc != AIR_OK && p->stopped) {
		/* cut short by the stop: the variant stays open, not submitted */
		air_error_free(e);
		return AIR_EABORTED;
	}
	if (rc != AIR_OK && !j->err)
		j->err = step_error(j, t->k, e);
	else if (rc != AIR_OK)
		air_error_free(e);
	if (rc == AIR_OK && t->k == REQ_SUBMIT && submitted(p, j, &j->err) == AIR_OK) {
		job_close(j);
		rc = air__sweep_notify(p->e, i);
	} else if (j->err) {
		rc = j->pending == 0 ? job_fail(p, j, j->err) : AIR_OK;
	} else if (j->ended == j->handed &&
	           (j->at == STEP_MKDIRS || (size_t)j->ended == j->n_arts)) {
		j->at = j->at == STEP_MKDIRS ? STEP_UPLOAD : STEP_SUBMIT;
		j->handed = j->ended = 0;
	}
	if (rc != AIR_OK)
		p->stopped = true;
	return p->stopped ? AIR_EABORTED : AIR_OK;
}

int air__pipeline_run(const air__pipeline_env *e, size_t first, size_t count, air_error **err)
{
	pipe p = {e, NULL, 0, first, count < e->sweep->n - first ? first + count : e->sweep->n, false,
	          false, {.resp = AIR__HTTP_RESP_INIT}};
	air__http_feed feed = {next, done, &p, e->max_parallel};
	air_error *stop = NULL;
	bool marked;
	int rc;

	p.n_jobs = (size_t)(2 * e->max_parallel);
	if (!(p.jobs = air__calloc(p.n_jobs, sizeof(*p.jobs))))
		return air__oom(err);
	rc = air__http_do_feed(e->c, e->ctx, &feed, &stop);
	/* Stopped by its mark: the variants not sent fail, the call does not,
	 * unless its interrupt or deadline ended it meanwhile. */
	marked = e->sweep->stopped && (rc == AIR_EABORTED || rc == AIR_OK);
	if (marked) {
		air_error_free(stop);
		stop = NULL;
		air__failf(&stop, AIR_EABORTED, AIR_KIND_ABORTED, "sweep %s was stopped",
		           e->sweep->base_key);
		rc = AIR_EABORTED;
	} else if (rc == AIR_EABORTED || (rc == AIR_OK && p.stopped)) {
		air_error_free(stop);
		stop = NULL;
		rc = air__failf(&stop, AIR_EABORTED, AIR_KIND_ABORTED,
		                "the sweep was stopped by its progress callback");
	}
	/* Stopped: what was open, and what was never started, is not submitted. */
	for (size_t s = 0; s < p.n_jobs; s++)
		if (p.jobs[s].open) {
			air__sweep_fail(e->sweep, p.jobs[s].index,
			                air__error_prefix(air__error_clone(stop), "not submitted"));
			job_close(&p.jobs[s]);
		}
	if (rc != AIR_OK)
		for (size_t i = first; i < p.end; i++)
			if (e->sweep->v[i].status == AIR_VARIANT_VALID)
				air__sweep_fail(e->sweep, i,
				                air__error_prefix(air__error_clone(stop), "not submitted"));
	air__free(p.jobs);
	air__free(p.look.query);
	air__http_resp_clear(&p.look.resp);
	if (marked) {
		air_error_free(stop);
		return AIR_OK;
	}
	if (rc != AIR_OK)
		return air__fail(err, stop);
	air_error_free(stop);
	return AIR_OK;
}
