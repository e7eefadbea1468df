/* options.c: the options of metrics reads and histories. */
#include "metrics/metrics.h"

void air__metrics_options_defaults(air_metrics_options *o)
{
	*o = (air_metrics_options){0};
	o->call = (air__call_opts)AIR__CALL_OPTS_INIT;
	o->follow = false;
	o->poll_ms = -1; /* the client's (air__client_poll_ms) */
	o->page_size = AIR__METRICS_PAGE_DEFAULT;
}

int air_metrics_options_new(air_metrics_options **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__malloc(sizeof(**out))))
		return AIR_ENOMEM;
	air__metrics_options_defaults(*out);
	return AIR_OK;
}

void air_metrics_options_free(air_metrics_options *opts) { air__free(opts); }

int air_metrics_options_set_int(air_metrics_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_METRICS_FOLLOW:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		opts->follow = value == 1;
		return AIR_OK;
	case AIR_METRICS_POLL_INTERVAL_MS:
		if (value < 0)
			return AIR_EINVAL;
		opts->poll_ms = value;
		return AIR_OK;
	case AIR_METRICS_PAGE_SIZE:
		if (value < 1 || value > AIR__METRICS_PAGE_MAX)
			return AIR_EINVAL;
		opts->page_size = value;
		return AIR_OK;
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_metrics_options_set_interrupt(air_metrics_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_metrics_options_set_deadline_ms(air_metrics_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int air_metrics_options_set_poll_cb(air_metrics_options *opts, air_metrics_poll_cb cb,
                                    void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_poll = cb;
	opts->poll_ud = cb ? userdata : NULL;
	return AIR_OK;
}
