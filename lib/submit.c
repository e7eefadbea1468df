/* submit.c: placeholder implementation of submit.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int32_t air_progress_phase(const air_progress *ev)
{
	return 0;
}

int64_t air_progress_bytes_done(const air_progress *ev)
{
	return 0;
}

int64_t air_progress_bytes_total(const air_progress *ev)
{
	return 0;
}

const char *air_progress_detail(const air_progress *ev)
{
	return NULL;
}

int air_submit_options_new(air_submit_options **out)
{
	return AIR_EUNSUPPORTED;
}

void air_submit_options_free(air_submit_options *opts)
{
}

int air_submit_options_set_str(air_submit_options *opts, int32_t opt, const char *value)
{
	return AIR_EUNSUPPORTED;
}

int air_submit_options_set_int(air_submit_options *opts, int32_t opt, int64_t value)
{
	return AIR_EUNSUPPORTED;
}

int air_submit_options_set_progress_cb(air_submit_options *opts, air_progress_cb cb, void *userdata)
{
	return AIR_EUNSUPPORTED;
}

int air_submit_options_set_interrupt(air_submit_options *opts, air_interrupt *intr)
{
	return AIR_EUNSUPPORTED;
}

int air_client_submit(air_client *client, const air_config *cfg, const air_submit_options *opts, air_submission **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int64_t air_submission_run_id(const air_submission *sub)
{
	return 0;
}

const char *air_submission_dashboard_url(const air_submission *sub)
{
	return NULL;
}

const char *air_submission_idempotency_token(const air_submission *sub)
{
	return NULL;
}

const char *air_submission_launch_dir(const air_submission *sub)
{
	return NULL;
}

const char *air_submission_code_source_path(const air_submission *sub)
{
	return NULL;
}

int32_t air_submission_snapshot_reused(const air_submission *sub)
{
	return 0;
}

void air_submission_free(air_submission *sub)
{
}
