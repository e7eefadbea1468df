/*
 * fuzz_logs_page.c: libFuzzer target for the log page scanner (lib/logs_json.c).
 *
 * Input: a logs endpoint reply. It is parsed twice into the same page (the
 * second parse reuses the buffers), then taken as a reply buffer (decoded in
 * place), which must give the same page. Invariants checked (abort on violation):
 * a failure is AIR_EPROTO with a message and leaves no records; every record
 * body lies in the arena, NUL-terminated at its length; and, differentially,
 * whenever jansson reads the input (without raw NUL bytes, which jansson
 * sometimes lets through) as an object, the scanner accepts it too
 * and finds the same records (object entries of the last log_records array),
 * bodies, timestamps and page token.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_logs_page
 *   build-fuzz/fuzz/fuzz_logs_page -runs=200000 fuzz/corpus/fuzz_logs_page
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/logs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_logs_page: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static void check_page(const air__log_page *p, size_t size)
{
	for (size_t i = 0; i < p->n; i++) {
		const air__log_rec *r = &p->recs[i];
		CHECK(r->time_ns >= 0);
		if (r->len == 0 && r->body[0] == '\0')
			continue;
		CHECK(r->body >= p->arena && r->body + r->len < p->arena + size + 1);
		CHECK(r->body[r->len] == '\0');
	}
	if (p->next_token)
		CHECK(p->next_token[0] != '\0');
}

/* The records jansson sees: object entries of log_records. */
static void compare(const air__log_page *p, const json_t *root)
{
	const json_t *items = json_object_get(root, "log_records");
	const json_t *tok = json_object_get(root, "next_page_token");
	size_t k = 0, i;
	json_t *r;

	json_array_foreach(items, i, r) {
		const json_t *body;
		int64_t t = 0;

		if (!json_is_object(r))
			continue;
		CHECK(k < p->n);
		body = json_object_get(r, "body");
		if (!air__json_int64(r, "time_unix_nano", &t) || t < 0)
			t = 0;
		CHECK(p->recs[k].time_ns == t);
		if (json_is_string(body)) {
			CHECK(p->recs[k].len == json_string_length(body));
			CHECK(memcmp(p->recs[k].body, json_string_value(body), p->recs[k].len) == 0);
		} else {
			CHECK(p->recs[k].len == 0);
		}
		k++;
	}
	CHECK(k == p->n);
	if (json_is_string(tok) && json_string_length(tok) && !memchr(json_string_value(tok), 0,
	                                                                  json_string_length(tok)))
		CHECK(p->next_token && !strcmp(p->next_token, json_string_value(tok)));
	else
		CHECK(!p->next_token);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	air__log_page page;
	json_t *root;

	memset(&page, 0, sizeof(page));
	for (int pass = 0; pass < 2; pass++) {
		air_error *err = NULL;
		int rc = air__log_page_parse(&page, (const char *)data, size, &err);

		if (rc != AIR_OK) {
			CHECK(rc == AIR_EPROTO && err && air_error_message(err)[0]);
			CHECK(page.n == 0 && !page.next_token);
		} else {
			CHECK(!err);
			check_page(&page, size);
		}
		air_error_free(err);
	}
	/* The same reply taken in place: the same outcome and records. */
	{
		air__log_page taken = {0};
		air__buf body = AIR__BUF_INIT;
		int rc, parsed = air__log_page_parse(&page, (const char *)data, size, NULL);

		air__buf_put(&body, data, size);
		CHECK(!air__buf_oom(&body));
		rc = air__log_page_take(&taken, &body, NULL);
		CHECK(rc == parsed);
		CHECK(taken.n == page.n);
		for (size_t i = 0; i < page.n; i++) {
			CHECK(taken.recs[i].time_ns == page.recs[i].time_ns);
			CHECK(taken.recs[i].len == page.recs[i].len);
			CHECK(!memcmp(taken.recs[i].body, page.recs[i].body, page.recs[i].len + 1));
		}
		CHECK(!taken.next_token == !page.next_token);
		CHECK(!taken.next_token || !strcmp(taken.next_token, page.next_token));
		if (rc == AIR_OK)
			check_page(&taken, size);
		air__buf_dispose(&body);
		air__log_page_dispose(&taken);
	}
	/* jansson lets a raw NUL byte end a number ("0.5\0}"); JSON does not. */
	root = memchr(data, 0, size) ? NULL : json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
	if (json_is_object(root)) {
		CHECK(air__log_page_parse(&page, (const char *)data, size, NULL) == AIR_OK);
		compare(&page, root);
	}
	json_decref(root);
	air__log_page_dispose(&page);
	return 0;
}
