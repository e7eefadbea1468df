/* logs.c: placeholder implementation of logs.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int air_logs_options_new(air_logs_options **out)
{
	return AIR_EUNSUPPORTED;
}

void air_logs_options_free(air_logs_options *opts)
{
}

int air_logs_options_set_int(air_logs_options *opts, int32_t opt, int64_t value)
{
	return AIR_EUNSUPPORTED;
}

int air_logs_options_set_interrupt(air_logs_options *opts, air_interrupt *intr)
{
	return AIR_EUNSUPPORTED;
}

const char *air_log_record_line(const air_log_record *rec, size_t *len_out)
{
	return NULL;
}

int64_t air_log_record_time_ns(const air_log_record *rec)
{
	return 0;
}

int32_t air_log_record_node(const air_log_record *rec)
{
	return 0;
}

int32_t air_log_record_source(const air_log_record *rec)
{
	return 0;
}

int32_t air_log_alert_pattern_count(void)
{
	return 0;
}

const char *air_log_alert_pattern(int32_t pattern)
{
	return NULL;
}

int32_t air_log_match_alert(const char *line, size_t len)
{
	return 0;
}

int air_client_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts, air_log_record_cb on_record, air_log_status_cb on_status, air_log_alert_cb on_alert, void *userdata, air_logs_summary **summary, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int64_t air_logs_summary_records(const air_logs_summary *s)
{
	return 0;
}

const char *air_logs_summary_state(const air_logs_summary *s)
{
	return NULL;
}

int32_t air_logs_summary_terminal(const air_logs_summary *s)
{
	return 0;
}

int32_t air_logs_summary_succeeded(const air_logs_summary *s)
{
	return 0;
}

int32_t air_logs_summary_source(const air_logs_summary *s)
{
	return 0;
}

int32_t air_logs_summary_ok(const air_logs_summary *s)
{
	return 0;
}

const char *air_logs_summary_no_logs_message(const air_logs_summary *s)
{
	return NULL;
}

void air_logs_summary_free(air_logs_summary *s)
{
}

int air_client_download_logs(air_client *client, int64_t run_id, const char *dir, const air_logs_options *opts, air_download_report **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

size_t air_download_report_count(const air_download_report *rep)
{
	return 0;
}

int32_t air_download_report_node(const air_download_report *rep, size_t i)
{
	return 0;
}

const char *air_download_report_path(const air_download_report *rep, size_t i)
{
	return NULL;
}

int64_t air_download_report_bytes(const air_download_report *rep, size_t i)
{
	return 0;
}

int32_t air_download_report_complete(const air_download_report *rep, size_t i)
{
	return 0;
}

const char *air_download_report_error(const air_download_report *rep, size_t i)
{
	return NULL;
}

const char *air_download_report_no_logs_message(const air_download_report *rep)
{
	return NULL;
}

int32_t air_download_report_ok(const air_download_report *rep)
{
	return 0;
}

void air_download_report_free(air_download_report *rep)
{
}
