/* stream.c: air_client_stream_logs(), the callback stream: the iterator,
 * driven on the caller's thread, handing each record to the record callback. */
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

int air_client_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                           air_logs_summary **summary, air_error **err)
{
	air_log_iter *it = NULL;
	const air_log_record *rec;
	int rc;

	if (summary)
		*summary = NULL;
	if ((rc = air_client_open_logs(client, run_id, opts, &it, err)) != AIR_OK)
		return rc;
	while ((rc = air_log_iter_next(it, &rec, err)) == AIR_OK) {
		if (opts && opts->on_record && opts->on_record(rec, opts->record_ud) != 0) {
			rc = air__failf(err, AIR_EABORTED, 0, "the record callback stopped the log stream");
			break;
		}
	}
	if (rc == AIR_EDONE)
		rc = summary ? copy_summary(air_log_iter_summary(it), summary, err) : AIR_OK;
	air_log_iter_free(it);
	return rc;
}
