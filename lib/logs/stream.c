/* stream.c: air_client_stream_logs(), the callback stream: the iterator,
 * driven on the caller's thread, handing each record to the record callback,
 * or the records ready at once to the text callback. */
#include "logs/logs.h"

static int copy_summary(const air_logs_summary *from, air_logs_summary **out, air_error **err)
{
	air_logs_summary *sum = air__calloc(1, sizeof(*sum));

	if (!sum)
		return air__oom(err);
	*sum = *from;
	sum->state = air__strdup(from->state ? from->state : "UNKNOWN");
	sum->no_logs = from->no_logs ? air__strdup(from->no_logs) : NULL;
	if (!sum->state || (from->no_logs && !sum->no_logs)) {
		air_logs_summary_free(sum);
		return air__oom(err);
	}
	*out = sum;
	return AIR_OK;
}

/* Hand every record to the record callback, one by one. */
static int by_record(air_log_iter *it, const air_logs_options *opts, air_error **err)
{
	const air_log_record *rec;
	int rc;

	while ((rc = air_log_iter_next(it, &rec, err)) == AIR_OK)
		if (opts && opts->on_record && opts->on_record(rec, opts->record_ud) != 0)
			return air__failf(err, AIR_EABORTED, 0, "the record callback stopped the log stream");
	return rc;
}

/* Hand the records to the text callback, as many at a time as are ready. */
static int by_text(air_log_iter *it, const air_logs_options *opts, air_error **err)
{
	const char *text;
	size_t len;
	int rc;

	air__log_iter_want_text(it);
	while ((rc = air__log_iter_next_text(it, &text, &len, err)) == AIR_OK)
		if (len > 0 && opts->on_text(text, len, opts->text_ud) != 0)
			return air__failf(err, AIR_EABORTED, 0, "the text callback stopped the log stream");
	return rc;
}

int air_client_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                           air_logs_summary **summary, air_error **err)
{
	air_log_iter *it = NULL;
	int rc;

	if (summary)
		*summary = NULL;
	if (opts && opts->on_record && opts->on_text)
		return air__failf(err, AIR_EINVAL, 0,
		                  "air_client_stream_logs: set a record callback or a text callback, "
		                  "not both");
	if ((rc = air_client_open_logs(client, run_id, opts, &it, err)) != AIR_OK)
		return rc;
	rc = opts && opts->on_text ? by_text(it, opts, err) : by_record(it, opts, err);
	if (rc == AIR_EDONE)
		rc = summary ? copy_summary(air_log_iter_summary(it), summary, err) : AIR_OK;
	air_log_iter_free(it);
	return rc;
}
