/* consumer.c: a program outside the project that uses an installed (or
 * embedded) libair: it prints the runtime version and checks a call. */
#include <stdio.h>
#include <string.h>

#include <air/air.h>

int main(void)
{
	static const char yaml[] = "experiment_name: embed\n"
	                           "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                           "command: echo hi\n";
	air_config *cfg = NULL;
	air_error *err = NULL;
	const air_field *f = NULL;

	if (air_config_load_buffer(yaml, strlen(yaml), "embed.yaml", NULL, &cfg, &err) != AIR_OK ||
	    air_schema_lookup("compute.accelerator_type", &f, &err) != AIR_OK) {
		fprintf(stderr, "consumer: %s\n", air_error_message(err));
		air_error_free(err);
		return 1;
	}
	printf("libair %s (header %s): %s %s\n", air_version_string(), AIR_VERSION_STRING,
	       air_config_experiment_name(cfg), air_field_type(f));
	air_config_free(cfg);
	return air_version_number() == AIR_VERSION_NUM ? 0 : 1;
}
