/*
 * fuzz_runs_list.c: libFuzzer target for a runs/list page and a workflows
 * index page as the listing reads them (lib/runs/list.c, list_index.c,
 * filter.c): every entry of "runs" is checked for AI Runtime, derived into a
 * row with its dashboard URL, matched against task filters and sorted by
 * start; the page token logic is replayed; every entry of
 * "training_workflows" gets its submit time and the entries are sorted.
 *
 * Invariants (abort on violation): a row that fails to derive fails with
 * AIR_EPROTO; rows come out sorted newest first (rows without a start
 * last); index entries come out sorted by submit time, newest first, ties
 * in arrival order; nothing leaks (the build's sanitizers).
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_runs_list
 *   build-fuzz/fuzz/fuzz_runs_list -max_total_time=60 WORKDIR fuzz/corpus/fuzz_runs_list
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                       \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "fuzz_runs_list: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                       \
		}                                                                      \
	} while (0)

#define MAX_ROWS 64

static void rows(const json_t *page)
{
	json_t *list = json_object_get(page, "runs"), *seen = json_object();
	air_list_options o;
	air_run *row[MAX_ROWS];
	size_t n = 0;
	const char *next = air__json_nonempty(page, "next_page_token");

	/* The scan's end-of-data rule: no token, has_more false, or seen before. */
	if (next && !json_is_false(json_object_get(page, "has_more")))
		json_object_set_new(seen, next, json_true());
	json_decref(seen);
	air__list_options_defaults(&o);
	o.experiment = (char *)"*smoke*";
	o.accel_type = (char *)"GPU_8x*";
	o.num_accel = 16;
	for (size_t i = 0; i < json_array_size(list) && n < MAX_ROWS; i++) {
		json_t *obj = json_array_get(list, i);
		air_error *err = NULL;
		air_run *r = NULL;
		int rc;

		(void)air__run_json_is_ai_runtime(obj);
		rc = air__run_from_json(json_incref(obj), &r, &err);
		if (rc != AIR_OK) {
			CHECK(rc == AIR_EPROTO && err && !r);
			air_error_free(err);
			continue;
		}
		CHECK(air__run_set_dashboard(r, "https://h.example", 7, i % 2) == AIR_OK);
		(void)air__list_task_filters_match(&o, r);
		(void)air__list_row_start_ms(r);
		row[n++] = r;
	}
	air__list_sort_rows(row, n);
	for (size_t i = 1; i < n; i++) {
		int64_t a = air__list_row_start_ms(row[i - 1]), b = air__list_row_start_ms(row[i]);
		CHECK(b <= 0 || (a > 0 && a >= b));
	}
	for (size_t i = 0; i < n; i++)
		air_run_free(row[i]);
}

static void index_page(const json_t *page)
{
	json_t *list = json_object_get(page, "training_workflows");
	air__index_entry e[MAX_ROWS];
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(list) && n < MAX_ROWS; i++) {
		json_t *w = json_array_get(list, i);
		int64_t id;

		if (!air__json_int64(w, "job_run_id", &id))
			continue;
		e[n].run_id = id;
		e[n].submit_ns = air__parse_submit_time(json_object_get(w, "submit_time"));
		e[n].order = n;
		n++;
	}
	air__index_sort(e, n);
	for (size_t i = 1; i < n; i++)
		CHECK(e[i - 1].submit_ns > e[i].submit_ns ||
		      (e[i - 1].submit_ns == e[i].submit_ns && e[i - 1].order < e[i].order));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *page = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);

	if (!page)
		return 0;
	rows(page);
	index_page(page);
	json_decref(page);
	return 0;
}
