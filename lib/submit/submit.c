/* submit.c: the public objects of submit.h — options, progress events and
 * the submission result. The submission itself is in flow.c. */
#include "submit/submit.h"

#include <string.h>

int32_t air_progress_phase(const air_progress *ev)
{
	return ev ? ev->phase : 0;
}

int64_t air_progress_bytes_done(const air_progress *ev)
{
	return ev ? ev->bytes_done : 0;
}

int64_t air_progress_bytes_total(const air_progress *ev)
{
	return ev ? ev->bytes_total : 0;
}

const char *air_progress_detail(const air_progress *ev)
{
	return ev ? ev->detail : NULL;
}

int air_submit_options_new(air_submit_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

void air_submit_options_free(air_submit_options *opts)
{
	if (!opts)
		return;
	air__free(opts->idempotency_key);
	air__free(opts->base_dir);
	air__free(opts);
}

int air_submit_options_set_str(air_submit_options *opts, int32_t opt, const char *value)
{
	char **slot;

	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_SUBMIT_IDEMPOTENCY_KEY:
		/* An empty key (an unset variable in a script) would silently fall
		 * back to a fresh token and lose exactly-once: refused. */
		if (value && air__is_blank(value))
			return AIR_EINVAL;
		slot = &opts->idempotency_key;
		break;
	case AIR_SUBMIT_BASE_DIR:
		slot = &opts->base_dir;
		break;
	case AIR_SUBMIT_SKIP_PREFLIGHT:
		return AIR_EINVAL; /* an integer option */
	default:
		return AIR_EUNSUPPORTED;
	}
	return air__set_str_copy(slot, value);
}

int air_submit_options_set_int(air_submit_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_SUBMIT_SKIP_PREFLIGHT:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		opts->skip_preflight = value == 1;
		return AIR_OK;
	case AIR_SUBMIT_IDEMPOTENCY_KEY:
	case AIR_SUBMIT_BASE_DIR:
		return AIR_EINVAL; /* string options */
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_submit_options_set_progress_cb(air_submit_options *opts, air_progress_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->progress = cb;
	opts->progress_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_submit_options_set_deadline_ms(air_submit_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int air_submit_options_set_interrupt(air_submit_options *opts, air_interrupt *intr)
{
	if (!opts)
		return AIR_EINVAL;
	opts->call.intr = intr;
	return AIR_OK;
}

int64_t air_submission_run_id(const air_submission *sub)
{
	return sub ? sub->run_id : 0;
}

const char *air_submission_dashboard_url(const air_submission *sub)
{
	return sub ? sub->dashboard_url : NULL;
}

const char *air_submission_idempotency_token(const air_submission *sub)
{
	return sub ? sub->idempotency_token : NULL;
}

const char *air_submission_launch_dir(const air_submission *sub)
{
	return sub ? sub->launch_dir : NULL;
}

const char *air_submission_code_source_path(const air_submission *sub)
{
	return sub ? sub->code_source_path : NULL;
}

int32_t air_submission_snapshot_reused(const air_submission *sub)
{
	return sub && sub->snapshot_reused ? 1 : 0;
}

size_t air_submission_warning_count(const air_submission *sub)
{
	return sub ? ((const air__submission_ext *)sub)->n_warnings : 0;
}

const char *air_submission_warning(const air_submission *sub, size_t i)
{
	const air__submission_ext *x = (const air__submission_ext *)sub;

	return x && i < x->n_warnings ? x->warnings[i] : NULL;
}

void air_submission_free(air_submission *sub)
{
	air__submission_ext *x = (air__submission_ext *)sub;

	if (!sub)
		return;
	for (size_t i = 0; i < x->n_warnings; i++)
		air__free(x->warnings[i]);
	air__free(x->warnings);
	air__free(sub->dashboard_url);
	air__free(sub->idempotency_token);
	air__free(sub->launch_dir);
	air__free(sub->code_source_path);
	air__free(sub);
}

const char *air_phase_name(int32_t phase)
{
	static const struct {
		int32_t phase;
		const char *name;
	} names[] = {
		{AIR_PHASE_IDENTITY, "IDENTITY"},   {AIR_PHASE_PREFLIGHT, "PREFLIGHT"},
		{AIR_PHASE_POLICY, "POLICY"},       {AIR_PHASE_DIRECTORY, "DIRECTORY"},
		{AIR_PHASE_IMAGE, "IMAGE"},         {AIR_PHASE_ARTIFACTS, "ARTIFACTS"},
		{AIR_PHASE_PACKAGING, "PACKAGING"}, {AIR_PHASE_SNAPSHOT, "SNAPSHOT"},
		{AIR_PHASE_SUBMIT, "SUBMIT"},       {AIR_PHASE_PERMISSIONS, "PERMISSIONS"},
		{AIR_PHASE_DONE, "DONE"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(names); i++)
		if (names[i].phase == phase)
			return names[i].name;
	return NULL;
}
