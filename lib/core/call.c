/* call.c: what every call shares: its interrupt and deadline (air__ctx), and
 * air_call_options, the options of calls without options of their own. */
#include "core/core.h"

#include <poll.h>

void air__ctx_init(air__ctx *ctx, const air__call_opts *call, air_interrupt *client_intr)
{
	*ctx = (air__ctx){0};
	ctx->client_intr = client_intr;
	if (!call)
		return;
	ctx->intr = call->intr;
	ctx->deadline_ms = call->deadline_ms;
	if (call->deadline_ms > 0)
		ctx->deadline = air__mono_ms() + call->deadline_ms;
}

int air__call_opts_set_interrupt(air__call_opts *o, air_interrupt *intr)
{
	if (!o)
		return AIR_EINVAL;
	o->intr = intr;
	return AIR_OK;
}

int air__call_opts_set_deadline(air__call_opts *o, int64_t ms)
{
	/* A year is plenty; the bound keeps now + ms far from overflowing. */
	if (!o || ms < 0 || ms > 366LL * 24 * 3600 * 1000)
		return AIR_EINVAL;
	o->deadline_ms = ms;
	return AIR_OK;
}

bool air__ctx_interrupted(const air__ctx *ctx)
{
	return ctx && (air__interrupted(ctx->intr) || air__interrupted(ctx->client_intr));
}

int64_t air__ctx_remaining(const air__ctx *ctx)
{
	int64_t left;

	if (!ctx || ctx->deadline == 0)
		return INT64_MAX;
	left = ctx->deadline - air__mono_ms();
	return left > 0 ? left : 0;
}

air__call_opts air__ctx_rest(const air__ctx *ctx)
{
	air__call_opts o = {ctx ? ctx->intr : NULL, 0};
	int64_t left = air__ctx_remaining(ctx);

	if (left != INT64_MAX)
		o.deadline_ms = left > 0 ? left : 1; /* 0 would be none */
	return o;
}

air_error *air__ctx_deadline_error(const air__ctx *ctx, const char *what)
{
	air_error *e = air__error_new(AIR_ETIMEOUT, AIR_KIND_TRANSIENT,
	                              "%s%sthe call's deadline of %lld ms passed", what ? what : "",
	                              what ? ": " : "", (long long)(ctx ? ctx->deadline_ms : 0));
	return air__error_set_retryable(e, true);
}

int air__ctx_check(const air__ctx *ctx, const char *what, air_error **err)
{
	if (air__ctx_interrupted(ctx))
		return air__failf(err, AIR_EINTERRUPTED, 0, "%s%sinterrupted", what ? what : "",
		                  what ? ": " : "");
	if (ctx && ctx->deadline && air__ctx_remaining(ctx) == 0)
		return air__fail(err, air__ctx_deadline_error(ctx, what));
	return AIR_OK;
}

int air__ctx_sleep(const air__ctx *ctx, int64_t ms, const char *what, air_error **err)
{
	air_interrupt *intrs[2] = {ctx ? ctx->intr : NULL, ctx ? ctx->client_intr : NULL};
	int64_t left = air__ctx_remaining(ctx);

	/* A sleep that would outlast the deadline ends at it, with its error. */
	if (air__wait_interrupts(intrs, 2, ms < left ? ms : left) != AIR_OK || ms >= left)
		return air__ctx_check(ctx, what, err);
	return AIR_OK;
}

int air__ctx_wait_fd(const air__ctx *ctx, int fd, short events, int64_t ms, bool *ready,
                     const char *what, air_error **err)
{
	struct pollfd p[3] = {{fd, events, 0}};
	int intr[2];
	size_t n = 1 + air__ctx_fds(ctx, intr);
	int64_t left = air__ctx_remaining(ctx), end = air__mono_after(ms < left ? ms : left);

	*ready = false;
	for (size_t i = 1; i < n; i++)
		p[i] = (struct pollfd){intr[i - 1], POLLIN, 0};
	/* A wait that would outlast the deadline ends at it, with its error
	 * (@end: INT64_MAX for a wait without end). */
	for (;;) {
		int64_t now = air__mono_ms();
		int r;

		if (air__ctx_interrupted(ctx))
			return air__ctx_check(ctx, what, err);
		if (now >= end)
			return ms < left ? AIR_OK : air__ctx_check(ctx, what, err);
		r = poll(p, n, end - now > INT32_MAX ? INT32_MAX : (int)(end - now));
		if (r > 0 && (p[0].revents & (events | POLLERR | POLLHUP))) {
			*ready = !air__ctx_interrupted(ctx);
			return *ready ? AIR_OK : air__ctx_check(ctx, what, err);
		}
	}
}

size_t air__ctx_fds(const air__ctx *ctx, int fds[2])
{
	size_t n = 0;

	if (ctx && ctx->intr)
		fds[n++] = air__interrupt_fd(ctx->intr);
	if (ctx && ctx->client_intr && ctx->client_intr != ctx->intr)
		fds[n++] = air__interrupt_fd(ctx->client_intr);
	return n;
}

int air_call_options_new(air_call_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

void air_call_options_free(air_call_options *opts) { air__free(opts); }

int air_call_options_set_interrupt(air_call_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_call_options_set_deadline_ms(air_call_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}
