/*
 * fuzz_run_json.c: libFuzzer target for the runs/get → air_run derivation
 * (lib/run_parse.c, lib/run_fetch.c page merging).
 *
 * Input: a JSON document. When it is an object it is used as a run, as a
 * second page of itself, as the for-each run listing iterations and as a
 * runs/get-output reply; every getter is read. Invariants checked (abort on
 * violation): a failure is AIR_EPROTO; the display state is never NULL and
 * follows docs/runs-and-logs.md#reading-a-run; a run with a result SUCCESS
 * succeeded and is terminal; string getters are NUL-terminated; air_run_to_json gives JSON that parses back.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_run_json
 *   build-fuzz/fuzz/fuzz_run_json -runs=200000 fuzz/corpus/fuzz_run_json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_run_json: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void read_all(const air_run *r)
{
	const char *res = air_run_result_state(r), *lcs = air_run_life_cycle_state(r);
	char *json = NULL;
	json_t *back;

	CHECK(air_run_state_name(r) != NULL);
	CHECK(!strcmp(air_run_state_name(r), res ? res : lcs ? lcs : "UNKNOWN"));
	if (res && !strcmp(res, "SUCCESS"))
		CHECK(air_run_succeeded(r) && air_run_is_terminal(r));
	CHECK(air_run_id(r) > 0);
	touch(air_run_name(r));
	touch(air_run_creator(r));
	touch(air_run_state_message(r));
	touch(air_run_experiment_name(r));
	touch(air_run_accelerator_type(r));
	touch(air_run_accelerators(r));
	touch(air_run_command_path(r));
	touch(air_run_code_source_path(r));
	touch(air_run_environment_version(r));
	touch(air_run_dashboard_url(r));
	touch(air_run_mlflow_run_url(r));
	touch(air_run_mlflow_experiment_url(r));
	touch(air_run_status_message(r));
	/* Summed as size_t: the values may be anywhere in int64_t. */
	sink += (size_t)air_run_start_time_ms(r) + (size_t)air_run_end_time_ms(r) +
	        (size_t)air_run_task_run_id(r) + (size_t)air_run_attempt_number(r) +
	        (size_t)air_run_latest_attempt(r) + (size_t)air_run_max_retries(r) +
	        (size_t)air_run_accelerator_count(r) + (size_t)air_run_is_ai_runtime(r) +
	        (size_t)air_run_is_sweep(r);
	CHECK(air_run_latest_attempt(r) >= 0);
	for (int32_t k = 0; k < 5; k++)
		sink += (size_t)air_run_sweep_stat(r, k);
	for (size_t i = 0; i < air_run_iteration_count(r); i++) {
		touch(air_run_iteration_task_key(r, i));
		CHECK(air_run_iteration_state_name(r, i) != NULL);
		touch(air_run_iteration_experiment(r, i));
		sink += (size_t)air_run_iteration_run_id(r, i);
	}
	CHECK(air_run_to_json(r, &json, NULL) == AIR_OK);
	back = json_loads(json, JSON_ALLOW_NUL, NULL);
	CHECK(json_is_object(back));
	json_decref(back);
	air_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);
	air_run *run = NULL;
	air_error *err = NULL;
	int rc;

	if (!doc)
		return 0;
	if (json_is_object(doc)) {
		/* A second page of the same run. */
		json_t *merged = json_deep_copy(doc);
		air__run_merge_page(merged, doc);
		json_decref(merged);
	}
	rc = air__run_from_json(json_incref(doc), &run, &err);
	if (rc != AIR_OK) {
		CHECK(rc == AIR_EPROTO && err && !run);
		air_error_free(err);
		json_decref(doc);
		return 0;
	}
	CHECK(air__run_set_dashboard(run, "https://h", 42, false) == AIR_OK);
	CHECK(air__run_set_output(run, doc, "https://h") == AIR_OK);
	air__run_set_iterations(run, json_incref(doc));
	read_all(run);
	air_run_free(run);
	json_decref(doc);
	return 0;
}
