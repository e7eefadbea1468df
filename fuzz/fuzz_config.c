/*
 * fuzz_config.c: libFuzzer target for the workload-config engine.
 *
 * Input: a workload YAML. Parse, validate, read every value, apply a few
 * overrides (fixed ones and one taken from the input's first line), ask
 * for field help on that line, and serialise. Invariants checked (abort on
 * violation): every failure is AIR_ECONFIG with a non-empty message, and
 * to_yaml output parses back to the same document (compared as JSON).
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_config
 *   mkdir -p /tmp/fuzz-config-work
 *   build-fuzz/fuzz/fuzz_config -dict=fuzz/fuzz_config.dict -runs=20000 \
 *       /tmp/fuzz-config-work fuzz/corpus/fuzz_config
 * (libFuzzer adds new inputs to the first directory, so keep it outside the
 * source tree.)
 *
 * fuzz/corpus/fuzz_config holds the examples and tricky inputs (aliases,
 * block scalars, tags, quoting, both code_source forms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int rc, air_error *err, const char *what)
{
	if (rc == AIR_OK)
		return;
	if (rc != AIR_ECONFIG || !err || !air_error_message(err)[0]) {
		fprintf(stderr, "%s: unexpected status %s: %s\n", what, air_status_name(rc),
		        err ? air_error_message(err) : "(no error)");
		abort();
	}
}

static char *to_json(const air_config *cfg)
{
	char *s = NULL;

	if (air_config_to_json(cfg, &s, NULL) != AIR_OK)
		abort();
	return s;
}

/* to_yaml must read back as the same document. */
static void round_trip(const air_config *cfg)
{
	char *yaml = NULL, *json = to_json(cfg), *again_json;
	air_config *again = NULL;
	air_error *err = NULL;

	if (air_config_to_yaml(cfg, &yaml, NULL) != AIR_OK)
		abort();
	if (air_config_parse_buffer(yaml, strlen(yaml), "again.yaml", NULL, &again, &err) != AIR_OK) {
		fprintf(stderr, "to_yaml output does not parse: %s\n%s\n", air_error_message(err), yaml);
		abort();
	}
	again_json = to_json(again);
	if (strcmp(json, again_json) != 0) {
		fprintf(stderr, "round trip changed the document:\n%s\n%s\n%s\n", yaml, json, again_json);
		abort();
	}
	air_free(again_json);
	air_config_free(again);
	air_free(json);
	air_free(yaml);
}

static void read_values(const air_config *cfg)
{
	char *s = NULL;
	size_t n = 0;

	if (!air_config_is_valid(cfg))
		return;
	n += strlen(air_config_experiment_name(cfg)) + strlen(air_config_command(cfg));
	n += (size_t)air_config_num_nodes(cfg) + (size_t)air_config_max_retries(cfg);
	n += air_config_pool_id(cfg) ? strlen(air_config_pool_id(cfg)) : 0;
	n += air_config_environment_version(cfg) ? strlen(air_config_environment_version(cfg)) : 0;
	for (size_t i = 0; i < air_config_env_count(cfg); i++)
		n += strlen(air_config_env_name(cfg, i)) + strlen(air_config_env_value(cfg, i));
	for (size_t i = 0; i < air_config_secret_count(cfg); i++)
		n += strlen(air_config_secret_scope(cfg, i)) + strlen(air_config_secret_key(cfg, i));
	for (size_t i = 0; i < air_config_dependency_count(cfg); i++)
		n += strlen(air_config_dependency(cfg, i));
	for (size_t i = 0; i < air_config_include_path_count(cfg); i++)
		n += strlen(air_config_include_path(cfg, i));
	for (size_t i = 0; i < air_config_permission_count(cfg); i++)
		n += strlen(air_config_permission_principal(cfg, i)) +
		     strlen(air_config_permission_level(cfg, i));
	if (air_config_code_source_form(cfg) != AIR_CODE_SOURCE_NONE)
		n += strlen(air_config_root_path(cfg));
	if (air_config_parameters_yaml(cfg, &s, NULL) != AIR_OK)
		abort();
	n += strlen(s);
	air_free(s);
	if (air_config_parameters_json(cfg, &s, NULL) != AIR_OK)
		abort();
	n += strlen(s);
	air_free(s);
	if (n == (size_t)-1) /* keep the reads */
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const overrides[] = {
		"compute.num_accelerators=8", "parameters.fuzz=[1, {a: b}, \"x\\ny\"]",
		"code_source.root_path=.", "env_variables.RANK=0",
	};
	air_config *cfg = NULL;
	air_error *err = NULL;
	const air_field *field = NULL;
	char line[128];
	size_t n = 0;
	int rc;

	/* The first line doubles as an override and a help path. */
	while (n < size && n < sizeof(line) - 1 && data[n] != '\n' && data[n] != '\0')
		n++;
	memcpy(line, data, n);
	line[n] = '\0';
	rc = air_schema_lookup(line, &field, &err);
	check(rc, err, "help");
	if (rc == AIR_OK) {
		/* Every string of the field and of its children is readable. */
		n = strlen(air_field_name(field)) + strlen(air_field_type(field));
		for (size_t i = 0; i < air_field_child_count(field); i++)
			n += strlen(air_field_name(air_field_child(field, i)));
		if (n == 0)
			abort();
	}
	air_error_free(err);
	err = NULL;

	rc = air_config_parse_buffer((const char *)data, size, "fuzz.yaml", NULL, &cfg, &err);
	check(rc, err, "parse");
	air_error_free(err);
	err = NULL;
	if (rc != AIR_OK)
		return 0;
	check(air_config_validate(cfg, &err), err, "validate");
	air_error_free(err);
	err = NULL;
	read_values(cfg);
	round_trip(cfg);

	check(air_config_override(cfg, line, &err), err, "override from input");
	air_error_free(err);
	err = NULL;
	for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++) {
		if ((size >> i) & 1)
			continue; /* a different subset per input */
		check(air_config_override(cfg, overrides[i], &err), err, "override");
		air_error_free(err);
		err = NULL;
	}
	check(air_config_validate(cfg, &err), err, "validate after overrides");
	air_error_free(err);
	read_values(cfg);
	round_trip(cfg);
	air_config_free(cfg);
	return 0;
}
