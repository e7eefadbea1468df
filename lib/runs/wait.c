/* wait.c: air_client_wait_run(): poll runs/get until the run is terminal. */
#include "runs/runs.h"

#include <string.h>

/* The client's pause (air__client_poll_ms) unless the options give one. */
#define DEFAULT_POLL_MS (-1)

int air_wait_options_new(air_wait_options **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__calloc(1, sizeof(**out))))
		return AIR_ENOMEM;
	(*out)->poll_ms = DEFAULT_POLL_MS;
	return AIR_OK;
}

void air_wait_options_free(air_wait_options *opts) { air__free(opts); }

int air_wait_options_set_int(air_wait_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	if (opt != AIR_WAIT_POLL_INTERVAL_MS)
		return AIR_EUNSUPPORTED;
	if (value < 0 || value > 24LL * 3600 * 1000)
		return AIR_EINVAL;
	opts->poll_ms = value;
	return AIR_OK;
}

int air_wait_options_set_interrupt(air_wait_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_wait_options_set_deadline_ms(air_wait_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int air_wait_options_set_state_cb(air_wait_options *opts, air_wait_state_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_state = cb;
	opts->state_ud = cb ? userdata : NULL;
	return AIR_OK;
}

/* A read that may be tried again at the next poll. */
static bool transient(int rc)
{
	return rc != AIR_ENOTFOUND && rc != AIR_EINTERRUPTED && rc != AIR_ETIMEOUT &&
	       rc != AIR_ENOMEM && rc != AIR_EABORTED && rc != AIR_EAUTH && rc != AIR_EPERMISSION &&
	       rc != AIR_EINVAL;
}

int air_client_wait_run(air_client *client, int64_t run_id, const air_wait_options *opts,
                        air_run **out, air_error **err)
{
	air_wait_options defaults = {AIR__CALL_OPTS_INIT, DEFAULT_POLL_MS, NULL, NULL};
	const air_wait_options *o = opts ? opts : &defaults;
	char last[64] = "";
	air__run_watch *watch = NULL;
	air__ctx ctx;
	int64_t poll_ms;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_wait_run: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_wait_run: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	air__client_ctx(client, &o->call, &ctx);
	if ((rc = air__client_ensure_resolved(client, &ctx, err)) != AIR_OK)
		return rc;
	poll_ms = o->poll_ms < 0 ? air__client_poll_ms(client) : o->poll_ms;
	/* A local run wakes the pause when it changes (watched before it is read). */
	if ((rc = air__run_watch_open(client, &ctx, run_id, false, &watch, err)) != AIR_OK)
		return rc;
	for (;;) {
		air_run *run = NULL;
		air_error *e = NULL;

		rc = air__run_fetch(client, &ctx, run_id, &run, &e);
		if (rc == AIR_OK) {
			if (o->on_state && strcmp(last, run->state) != 0) {
				snprintf(last, sizeof(last), "%s", run->state);
				if (o->on_state(run, o->state_ud) != 0) {
					air_run_free(run);
					rc = air__failf(err, AIR_EABORTED, 0,
					                "the state callback stopped the wait for run %lld",
					                (long long)run_id);
					break;
				}
			}
			if (run->terminal) {
				*out = run;
				break;
			}
			air_run_free(run);
		} else if (!transient(rc)) {
			rc = e ? air__fail(err, e) : rc;
			break;
		} else {
			air__client_debug(client, AIR_DEBUG_INFO, "reading run %lld failed (%s); retrying",
			                  (long long)run_id, air_error_message(e));
			air_error_free(e);
		}
		if ((rc = air__run_watch_pause(watch, &ctx, poll_ms, "waiting for the run", err)) !=
		    AIR_OK)
			break;
	}
	air__run_watch_free(watch);
	return rc;
}
