/*
 * check_workload.c: a first libair program. Loads a workload YAML file,
 * validates every field and rule offline (no workspace, no credentials) and
 * prints what it would run.
 *
 *     check_workload WORKLOAD.yaml
 *
 * Build: cc check_workload.c $(pkg-config --cflags --libs libair)
 */
#include <stdio.h>

#include <air/air.h>

int main(int argc, char **argv)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: %s WORKLOAD.yaml\n", argv[0]);
		return 2;
	}
	if (air_config_load_file(argv[1], &cfg, &err) != AIR_OK) {
		/* "file:line:column: field: problem", ready to print */
		fprintf(stderr, "%s\n", air_error_message(err));
		air_error_free(err);
		return 1;
	}
	printf("%s: %lld x %s on %lld node(s), libair %s\n", air_config_experiment_name(cfg),
	       (long long)air_config_num_accelerators(cfg), air_config_accelerator_type(cfg),
	       (long long)air_config_num_nodes(cfg), air_version_string());
	air_config_free(cfg);
	return 0;
}
