/* report.c: the public objects of check.h — options, the report and its
 * checks. The checking itself is in check.c. */
#include "checks/checks.h"

#include <string.h>

const char *air_check_status_name(int32_t status)
{
	switch (status) {
	case AIR_CHECK_PASS:
		return "pass";
	case AIR_CHECK_WARN:
		return "warn";
	case AIR_CHECK_FAIL:
		return "fail";
	case AIR_CHECK_SKIPPED:
		return "skipped";
	default:
		return NULL;
	}
}

const char *air_check_name(const air_check *check) { return check ? check->name : NULL; }
int32_t air_check_status(const air_check *check) { return check ? check->status : 0; }
const char *air_check_field(const air_check *check) { return check ? check->field : NULL; }
const char *air_check_message(const air_check *check) { return check ? check->message : ""; }
int64_t air_check_bytes(const air_check *check) { return check ? check->bytes : -1; }
int64_t air_check_files(const air_check *check) { return check ? check->files : -1; }

int air_check_options_new(air_check_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

void air_check_options_free(air_check_options *opts)
{
	if (!opts)
		return;
	for (size_t i = 0; i < AIR__CHECK_STR_OPTS; i++)
		air__free(opts->str[i]);
	air__free(opts);
}

int air_check_options_set_str(air_check_options *opts, int32_t opt, const char *value)
{
	if (!opts)
		return AIR_EINVAL;
	if (opt >= 100 && opt <= AIR_CHECKS_SANITY)
		return AIR_EINVAL; /* an integer option */
	if (opt < AIR_CHECKS_IDEMPOTENCY_KEY || opt >= AIR__CHECK_STR_OPTS)
		return AIR_EUNSUPPORTED;
	/* As for a submission: a blank key would silently stand for no key. */
	if (opt == AIR_CHECKS_IDEMPOTENCY_KEY && value && air__is_blank(value))
		return AIR_EINVAL;
	return air__set_str_copy(&opts->str[opt], value);
}

int air_check_options_set_int(air_check_options *opts, int32_t opt, int64_t value)
{
	bool *flag;

	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_CHECKS_STRICT:
		flag = &opts->strict;
		break;
	case AIR_CHECKS_RESOURCES:
		flag = &opts->no_resources;
		break;
	case AIR_CHECKS_REPRODUCIBILITY:
		flag = &opts->no_reproducibility;
		break;
	case AIR_CHECKS_SANITY:
		flag = &opts->no_sanity;
		break;
	default:
		return opt >= AIR_CHECKS_IDEMPOTENCY_KEY && opt < AIR__CHECK_STR_OPTS ? AIR_EINVAL
		                                                                       : AIR_EUNSUPPORTED;
	}
	if (value != 0 && value != 1)
		return AIR_EINVAL;
	/* The groups are stored as "left out", so that zeroed options run them all. */
	*flag = opt == AIR_CHECKS_STRICT ? value == 1 : value == 0;
	return AIR_OK;
}

int air_check_options_set_check_cb(air_check_options *opts, air_check_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->cb = cb;
	opts->cb_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_check_options_set_interrupt(air_check_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_check_options_set_deadline_ms(air_check_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int32_t air_check_report_ok(const air_check_report *report)
{
	if (!report)
		return 0;
	for (size_t i = 0; i < report->count; i++) {
		int32_t s = report->items[i].status;
		if (s == AIR_CHECK_FAIL || (s == AIR_CHECK_WARN && report->strict))
			return 0;
	}
	return 1;
}

size_t air_check_report_count(const air_check_report *report)
{
	return report ? report->count : 0;
}

const air_check *air_check_report_get(const air_check_report *report, size_t i)
{
	return report && i < report->count ? &report->items[i] : NULL;
}

void air_check_report_free(air_check_report *report)
{
	if (!report)
		return;
	for (size_t i = 0; i < report->count; i++) {
		air__free(report->items[i].field);
		air__free(report->items[i].message);
	}
	air__free(report->items);
	air__free(report);
}
