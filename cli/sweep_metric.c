/* sweep_metric.c: the latest value of one MLflow metric of a run, for the
 * metric column of `air sweep --watch`, through air_client_get_metrics()
 * (include/air/metrics.h). */
#include <string.h>

#include "cli.h"

int cli_sweep_metric(air_client *client, int64_t run_id, const char *name, double *value)
{
	air_metrics *m = NULL;
	int found = 0;

	if (air_client_get_metrics(client, run_id, NULL, &m, NULL) != AIR_OK)
		return 0;
	for (size_t i = 0; i < air_metrics_count(m) && !found; i++)
		if (air_metrics_key(m, i) && !strcmp(air_metrics_key(m, i), name)) {
			*value = air_metrics_value(m, i);
			found = 1;
		}
	air_metrics_free(m);
	return found;
}
