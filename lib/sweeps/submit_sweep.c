/*
 * submit_sweep.c: air_client_submit_sweep() (docs/submit.md#sweeps).
 *
 * Every variant is validated before the first request. Then what the
 * variants share, once: the snapshot plan, identity, the base key, the
 * pre-flight of each distinct variant, the workspace checks, the code
 * snapshot and the git provenance (in the sweep's folder). Then each
 * variant's launch directory and runs/submit through the pipeline. Where the
 * workspace queues runs, the whole sweep is one pipeline of at most
 * max_parallel requests in flight; where runs start at once (a local
 * workspace), at most max_parallel of the sweep's runs go at a time: the call
 * waits for one to end before it submits the next.
 */
#include "sweeps/sweeps.h"

#include <string.h>

/* What a sweep holds while it runs. */
typedef struct sweep_call {
	air_client *c;
	const air_config *cfg;
	const air_sweep_points *points;
	const air_sweep_options *opts;
	air__ctx ctx;
	air_submit_options *sopts;
	air__flow f;
	bool flow_open;
	air_sweep *s;
	char *sweep_dir;
	char *tag;            /* the folder of its launch directories (air__sweep_tag()) */
	char *mark_path;      /* its stop mark (air_client_stop_sweep()) */
	bool sending;         /* variants are being sent */
	char *stop_seen;      /* AIR_SWEEP_RESUME: the stop mark's text as the call began */
	int64_t resumed_ms;   /* when the sweep's stop was last undone (epoch ms), or 0 */
	int64_t started_ms;   /* when this call started (epoch ms) */
} sweep_call;

/* The base key: the option, else the YAML token, else derived from the
 * user, the experiment, today's date and the config. */
static int base_key(sweep_call *k, air_error **err)
{
	const char *given = air__sweep_offline_base(k->cfg, k->opts);
	char *user = NULL, *base = NULL;
	air_error *e = NULL;
	int rc;

	if (given)
		return (base = air__trim_dup(given)) ? air__sweep_set_keys(k->s, base, err)
		                                     : air__oom(err);
	if ((rc = air__client_user_name(k->c, &k->ctx, &user, &e)) != AIR_OK)
		return air__fail(err, air__error_prefix(e, "looking up the current user"));
	rc = air__sweep_derived_base(k->cfg, user, air__now_ms(), &base, err);
	air__free(user);
	return rc == AIR_OK ? air__sweep_set_keys(k->s, base, err) : rc;
}

/* "<user base>/.air/cli_launch/<experiment>/<sweep tag>/<16 hex>": this
 * submission of the sweep; variant i goes to its "v<i>". */
static int sweep_dir(sweep_call *k, air_error **err)
{
	char hex[17], *raw;
	int rc = air__launch_suffix(hex);

	if (rc != AIR_OK)
		return air__failf(err, rc, 0, "cannot read random bytes for the launch directory");
	if (!(k->tag = air__sweep_tag(k->s->base_key)))
		return air__oom(err);
	raw = air__sprintf("%s/.air/cli_launch/%s/%s/%s", k->f.user_base,
	                   air_config_experiment_name(k->cfg), k->tag, hex);
	k->sweep_dir = raw ? air__path_clean(raw) : NULL;
	k->mark_path = air__sweep_mark_path(k->f.user_base, k->tag);
	air__free(raw);
	return k->sweep_dir && k->mark_path ? AIR_OK : air__oom(err);
}

/* The stop mark's text into *text (NULL when there is none); a mark that
 * cannot be read fails (it may say stopped; @err may be NULL). */
static int read_mark(sweep_call *k, char **text, air_error **err)
{
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *e = NULL;
	int rc = air__ws_export(k->c, &k->ctx, k->mark_path, &resp, &e);

	*text = NULL;
	if (rc == AIR_ENOTFOUND) {
		air_error_free(e);
		rc = AIR_OK;
	} else if (rc != AIR_OK) {
		rc = air__fail(err, air__error_prefix(e, "resuming sweep %s", k->s->base_key));
	} else if (!(*text = air__strndup(resp.body ? resp.body : "", resp.body_len))) {
		rc = air__oom(err);
	}
	air__http_resp_clear(&resp);
	return rc;
}

/* AIR_SWEEP_RESUME, as the call begins: the stop it is to undo, a mark
 * that says stopped (k->stop_seen), before the shared checks. */
static int resume_look(sweep_call *k, air_error **err)
{
	char *text = NULL;
	int rc = read_mark(k, &text, err);

	if (rc == AIR_OK && text && air__sweep_mark_stopped(text, strlen(text)))
		k->stop_seen = text;
	else
		air__free(text);
	return rc;
}

/* Once the checks have passed, before any variant is sent: the mark is
 * rewritten to say resumed if it still reads as it did, so that a stop
 * written since the call began is kept (the sweep then sees it); one
 * written between this look and the rewrite is undone too (workspace files
 * have no compare-and-swap). */
static int resume_apply(sweep_call *k, air_error **err)
{
	char *text = NULL;
	air_error *e = NULL;
	int rc = read_mark(k, &text, err);

	if (rc == AIR_OK && text && !strcmp(text, k->stop_seen)) {
		int64_t now = air__now_ms();

		rc = air__sweep_mark_write(k->c, &k->ctx, k->mark_path, "resumed", now, &e);
		if (rc == AIR_OK) {
			k->s->resumed = true;
			k->resumed_ms = now;
		} else {
			rc = air__fail(err, air__error_prefix(e, "resuming sweep %s", k->s->base_key));
		}
	}
	air__free(text);
	return rc;
}

/* One pre-flight per distinct variant (bodies compared without their
 * command_path); a finding fails the sweep, naming the variant. */
static int preflights(sweep_call *k, air_error **err)
{
	char (*seen)[2 * AIR__SHA256_LEN + 1] = NULL;
	size_t n_seen = 0;
	int rc = AIR_OK;

	if (k->opts && k->opts->skip_preflight)
		return AIR_OK;
	if (!(seen = air__calloc(k->s->n, sizeof(*seen))))
		return air__oom(err);
	for (size_t i = 0; i < k->s->n && rc == AIR_OK; i++) {
		air_config *cfg = NULL;
		air__workload w;
		json_t *body = NULL;
		char *text = NULL, *cmd = NULL, digest[2 * AIR__SHA256_LEN + 1];
		bool dup = false;
		air_error *e = NULL;

		if ((rc = air__variant_config(k->cfg, k->points, i, &cfg, err)) != AIR_OK)
			break;
		if ((rc = air__workload_load(cfg, &w, err)) != AIR_OK) {
			air_config_free(cfg);
			break;
		}
		body = air__preflight_body(&w, "");
		text = body ? air__json_compact(body) : NULL;
		json_decref(body);
		if (text) {
			air__sha256_hex(text, strlen(text), digest);
			for (size_t j = 0; j < n_seen && !dup; j++)
				dup = !strcmp(seen[j], digest);
			memcpy(seen[n_seen], digest, sizeof(digest));
		}
		cmd = air__sprintf("%s/v%zu/command.sh", k->sweep_dir, i);
		body = text && cmd && !dup ? air__preflight_body(&w, cmd) : NULL;
		if (!text || !cmd || (!dup && !body)) {
			rc = air__oom(err);
		} else if (!dup) {
			n_seen++;
			if ((rc = air__preflight(k->c, &k->ctx, body, &e)) != AIR_OK) {
				char *point = air__variant_text(k->points, i);

				rc = air__fail(err, air__error_prefix(e, "variant %zu (%s)", i,
				                                      point ? point : "?"));
				air__free(point);
			}
		}
		json_decref(body);
		air__free(text);
		air__free(cmd);
		air__workload_dispose(&w);
		air_config_free(cfg);
	}
	air__free(seen);
	return rc;
}

/* The shared steps, once. */
static int shared(sweep_call *k, air_error **err)
{
	int rc = air__sweep_submit_options(k->opts, &k->sopts, err);

	if (rc == AIR_OK && (rc = air__flow_open(&k->f, k->c, k->cfg, k->sopts, err)) == AIR_OK) {
		/* one deadline for the whole sweep, counted from its start */
		k->f.ctx.deadline = k->ctx.deadline;
		k->f.ctx.deadline_ms = k->ctx.deadline_ms;
	}
	k->flow_open = true;
	if (rc == AIR_OK)
		rc = air__flow_local_checks(&k->f, err);
	if (rc == AIR_OK)
		rc = air__client_ensure_resolved(k->c, &k->ctx, err);
	if (rc == AIR_OK)
		rc = air__flow_identity(&k->f, err);
	if (rc == AIR_OK)
		rc = base_key(k, err);
	if (rc == AIR_OK)
		rc = sweep_dir(k, err);
	if (rc == AIR_OK && k->opts && k->opts->resume)
		rc = resume_look(k, err);
	if (rc == AIR_OK)
		rc = preflights(k, err);
	if (rc == AIR_OK)
		rc = air__flow_workspace_checks(&k->f, err);
	if (rc == AIR_OK)
		rc = air__flow_upload_snapshot(&k->f, err);
	if (rc == AIR_OK && k->f.has_snap) {
		/* the git provenance of the sweep's code, once, in its folder */
		k->f.launch_dir = air__strdup(k->sweep_dir);
		rc = k->f.launch_dir ? air__flow_upload_sidecars(&k->f, err) : air__oom(err);
	}
	/* Last: a sweep that fails its checks leaves its stop as it was. */
	if (rc == AIR_OK && k->stop_seen)
		rc = resume_apply(k, err);
	return rc;
}

/* Whether run @id has ended (*canceled: cancelled; *old: cancelled with a
 * stop since undone: it had ended before the stop was undone, or, the stop
 * undone earlier, before this call began), or is being cancelled
 * (*stopping: TERMINATING with user_cancelled_or_timedout, as a local run
 * is once its cancellation is requested); a run that cannot be read counts
 * as ended. */
static int has_ended(sweep_call *k, int64_t id, bool *ended, bool *canceled, bool *stopping,
                     bool *old, air_error **err)
{
	air_run *run = NULL;
	air_error *e = NULL;
	int rc = air__run_fetch(k->c, &k->ctx, id, &run, &e);
	int64_t end;

	if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT)
		return air__fail(err, e);
	if (rc != AIR_OK)
		air__client_debug(k->c, AIR_DEBUG_INFO, "sweep: run %lld not read (%s); not waited for",
		                  (long long)id, air_error_message(e));
	*ended = rc != AIR_OK || run->terminal;
	*canceled = rc == AIR_OK && air_run_state(run) == AIR_STATE_CANCELED;
	end = rc == AIR_OK && run->terminal ? air_run_end_time_ms(run) : 0;
	*old = k->resumed_ms > 0 && end > 0 &&
	       end < (k->resumed_ms > k->started_ms ? k->resumed_ms : k->started_ms);
	*stopping = rc == AIR_OK && !run->terminal && air_run_state(run) == AIR_STATE_TERMINATING &&
	            json_is_true(air__json_at(run->json, "state.user_cancelled_or_timedout"));
	air_error_free(e);
	air_run_free(run);
	return AIR_OK;
}

/* Whether @e is a local workspace's refusal of a variant of a stopped
 * sweep (409 RESOURCE_CONFLICT, decided under its state lock). */
static bool refused(const air_error *e)
{
	const char *code = e ? air_error_server_code(e) : NULL;

	return air_error_http_status(e) == 409 && code && !strcmp(code, "RESOURCE_CONFLICT");
}

/* The error of a variant that the sweep's stop left unsubmitted. */
static air_error *stopped_error(const sweep_call *k)
{
	return air__error_new(AIR_EABORTED, 0, "not submitted: sweep %s was stopped",
	                      k->s->base_key);
}

/* Whether the sweep's stop mark says stopped (then so does k->s); a mark
 * that cannot be read does not. One that says resumed gives the time the
 * stop was undone (k->resumed_ms, when this call did not undo it). */
static bool look_at_mark(sweep_call *k)
{
	char *text = NULL;
	int64_t resumed;

	if (read_mark(k, &text, NULL) == AIR_OK && text) {
		if (air__sweep_mark_stopped(text, strlen(text)))
			k->s->stopped = true;
		else if (!k->s->resumed && (resumed = air__sweep_mark_resumed_ms(text, strlen(text))) > 0)
			k->resumed_ms = resumed;
	}
	air__free(text);
	return k->s->stopped;
}

/* Variants of [@first, @end) refused so after the batch's look at the stop
 * mark: with the mark read again, they are not submitted, as the sweep's
 * variants still to be sent. */
static void refused_by_stop(sweep_call *k, size_t first, size_t end)
{
	bool any = false;

	for (size_t i = first; i < end && !any; i++)
		any = refused(k->s->v[i].err);
	if (!any || !look_at_mark(k))
		return;
	for (size_t i = first; i < end; i++)
		if (refused(k->s->v[i].err))
			air__sweep_fail(k->s, i, stopped_error(k));
}

/* A run of the sweep holding a place; @old: cancelled with a stop since
 * undone (has_ended()), or, in the submission that undid it, already
 * cancelled or being cancelled when first looked at (a run cancelled
 * before it started ends when its cancellation does, maybe after). */
typedef struct going_run {
	int64_t id;
	bool looked, old;
} going_run;

/* Where runs start at once: at most @e->max_parallel of the sweep's going.
 * Its stop mark (looked at before each batch and while it waits for a free
 * place: a stopped sweep does not wait for its runs), or a run of the sweep
 * that ends cancelled, stops it: the variants not yet sent are not
 * submitted, said as the sweep's stop when the mark is there. A place freed
 * while another run is being cancelled is taken only once that one has
 * ended, so that a cancellation of the sweep is seen first. */
static int one_batch_at_a_time(sweep_call *k, const air__pipeline_env *pe, air_error **err)
{
	going_run *going = air__calloc((size_t)pe->max_parallel, sizeof(*going));
	int64_t canceled = 0;
	size_t n_going = 0, i = 0;
	int rc = going ? AIR_OK : air__oom(err);

	/* When its stop was last undone (and whether it is stopped): a run
	 * cancelled with that stop does not stop it again. */
	if (rc == AIR_OK && !k->s->resumed)
		look_at_mark(k);

	while (rc == AIR_OK && i < k->s->n && !canceled && !k->s->stopped) {
		size_t room, end;
		bool held = false;

		for (size_t g = 0; g < n_going && rc == AIR_OK;) {
			bool ended = false, was_canceled = false, stopping = false, old = false;
			going_run *r = &going[g];

			if ((rc = has_ended(k, r->id, &ended, &was_canceled, &stopping, &old, err)) != AIR_OK)
				break;
			if (!r->looked && k->s->resumed)
				r->old = (ended && was_canceled) || stopping;
			r->looked = true;
			if (ended) {
				/* A run cancelled with a stop since undone only frees its
				 * place. */
				if (was_canceled && !canceled && !old && !r->old)
					canceled = r->id;
				going[g] = going[--n_going];
			} else {
				held = held || stopping;
				g++;
			}
		}
		/* Cancelled with the sweep (`air cancel --sweep` marks it first):
		 * said as the sweep's stop, whichever the sweep saw first. */
		if (rc == AIR_OK && canceled && look_at_mark(k))
			canceled = 0;
		if (rc != AIR_OK || canceled || k->s->stopped)
			break;
		room = (size_t)pe->max_parallel - n_going;
		if ((room == 0 || held) && look_at_mark(k))
			break;
		if (room == 0 || held) {
			rc = air__ctx_sleep(&k->ctx, air__client_poll_ms(k->c),
			                    "waiting for a run of the sweep to end", err);
			continue;
		}
		end = i + room < k->s->n ? i + room : k->s->n;
		rc = air__pipeline_run(pe, i, end - i, err);
		if (rc == AIR_OK)
			refused_by_stop(k, i, end);
		for (; i < end; i++)
			if (k->s->v[i].status == AIR_VARIANT_SUBMITTED)
				going[n_going++] = (going_run){k->s->v[i].run_id, false, false};
	}
	if (rc != AIR_OK)
		for (; i < k->s->n; i++)
			if (k->s->v[i].status == AIR_VARIANT_VALID)
				air__sweep_fail(k->s, i, air__error_new(rc, 0, "not submitted: the sweep "
				                "stopped before it"));
	for (; canceled && i < k->s->n; i++)
		if (k->s->v[i].status == AIR_VARIANT_VALID)
			air__sweep_fail(k->s, i, air__error_new(AIR_EABORTED, 0, "not submitted: run %lld "
			                "of the sweep was cancelled", (long long)canceled));
	for (; k->s->stopped && i < k->s->n; i++)
		if (k->s->v[i].status == AIR_VARIANT_VALID)
			air__sweep_fail(k->s, i, stopped_error(k));
	air__free(going);
	return rc;
}

/* The runs of a stopped sweep's variants that were not sent, submitted by
 * an earlier submission of it: found among the sweep's runs by their run
 * name (the earliest of a name: a plain rerun of a variant's run shares its
 * launch directory and name). */
typedef struct adoption {
	air_sweep *s;
	int64_t *found;       /* per variant: its run, 0 when none */
} adoption;

static int find_variant_run(const air_run *run, void *ud)
{
	adoption *a = ud;
	const char *name = air_run_name(run);

	for (size_t i = 0; name && i < a->s->n; i++) {
		const air__variant *v = &a->s->v[i];
		if (v->status == AIR_VARIANT_FAILED && air_error_code(v->err) == AIR_EABORTED &&
		    v->run_name && !strcmp(v->run_name, name) &&
		    (!a->found[i] || air_run_id(run) < a->found[i]))
			a->found[i] = air_run_id(run);
	}
	return AIR_OK;
}

/* A stopped sweep submitted again starts nothing new, and its variants
 * that have a run are reported with it, as when it was not stopped; a
 * listing that fails leaves them not submitted (said through the debug
 * callback). */
static void adopt_runs(sweep_call *k)
{
	adoption a = {k->s, air__calloc(k->s->n, sizeof(int64_t))};
	const char *host = air__client_host(k->c);
	air__call_opts rest = air__ctx_rest(&k->ctx);
	air_error *e = NULL;

	if (a.found &&
	    air__list_each(k->c, &rest, k->tag, true, find_variant_run, &a, &e) == AIR_OK) {
		for (size_t i = 0; i < k->s->n; i++) {
			air__variant *v = &k->s->v[i];

			if (!a.found[i])
				continue;
			v->dashboard_url = air__sprintf("%s/jobs/runs/%lld", host ? host : "",
			                                (long long)a.found[i]);
			if (!v->dashboard_url)
				continue;
			v->run_id = a.found[i];
			v->status = AIR_VARIANT_SUBMITTED;
			air_error_free(v->err);
			v->err = NULL;
			k->s->failed--;
		}
	} else if (e) {
		air__client_debug(k->c, AIR_DEBUG_INFO, "sweep: its runs not listed (%s)",
		                  air_error_message(e));
	}
	air_error_free(e);
	air__free(a.found);
}

static int variants(sweep_call *k, air_error **err)
{
	int64_t maxp = k->opts && k->opts->max_parallel ? k->opts->max_parallel
	                                                : air__client_sweep_parallel(k->c);
	air__pipeline_env pe = {k->c, &k->ctx, k->cfg, k->points, k->opts, k->s, k->sweep_dir,
	                        k->f.policy_id, k->f.code_source_path, maxp, k->mark_path};
	int rc;

	k->sending = true;
	rc = air__client_schedules_runs(k->c) ? air__pipeline_run(&pe, 0, SIZE_MAX, err)
	                                      : one_batch_at_a_time(k, &pe, err);
	if (rc == AIR_OK && k->s->stopped)
		adopt_runs(k);
	return rc;
}

/* The workload's permissions on its experiment, once for the whole sweep
 * after its variants were submitted (the experiment is the base workload's).
 * The runs stand whatever happens: a failure is reported through the debug
 * callback, as the sweep has no warnings of its own. */
static void grant_once(sweep_call *k)
{
	const char *p, *end;
	bool any = false;

	for (size_t i = 0; i < k->s->n && !any; i++)
		any = k->s->v[i].status == AIR_VARIANT_SUBMITTED;
	if (!any || air__flow_grant_permissions(&k->f, NULL) != AIR_OK)
		return;
	for (p = air__buf_cstr(&k->f.warnings); *p; p = end + 1) {
		end = strchr(p, '\n');
		air__client_debug(k->c, AIR_DEBUG_INFO, "sweep: %.*s", (int)(end - p), p);
	}
}

int air_client_submit_sweep(air_client *client, const air_config *cfg,
                            const air_sweep_points *points, const air_sweep_options *opts,
                            air_sweep **out, air_error **err)
{
	sweep_call k;
	int rc;

	memset(&k, 0, sizeof(k));
	k.c = client;
	k.cfg = cfg;
	k.points = points;
	k.opts = opts;
	k.started_ms = air__now_ms();
	if (out)
		*out = NULL;
	if (!client || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_submit_sweep: client and out are required");
	air__client_ctx(client, opts ? &opts->call : NULL, &k.ctx);
	if (opts && opts->resume && cfg && !air__sweep_offline_base(cfg, opts))
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "resuming a sweep needs its base key (AIR_SWEEP_BASE_KEY, or the YAML "
		                  "idempotency_token): a derived key changes with the date, and would "
		                  "start a new sweep");
	rc = air__sweep_check(cfg, points, opts, false, &k.ctx, &k.s, err);
	if (rc == AIR_OK)
		rc = shared(&k, err);
	if (rc == AIR_OK)
		rc = variants(&k, err);
	if (rc == AIR_OK)
		grant_once(&k);
	if (k.flow_open)
		air__flow_dispose(&k.f);
	air_submit_options_free(k.sopts);
	air__free(k.stop_seen);
	air__free(k.sweep_dir);
	air__free(k.tag);
	air__free(k.mark_path);
	/* Stopped while variants were being sent: which were is worth knowing. */
	if (rc == AIR_OK ||
	    (k.sending && (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_EABORTED)))
		*out = k.s;
	else
		air_sweep_free(k.s);
	return rc;
}
