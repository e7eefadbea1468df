/* test_parse.c: reading and parsing workload files: limits, encodings, garbage. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "test.h"

static const char valid_yaml[] =
	"experiment_name: smoke-test\n"
	"command: python train.py\n"
	"compute:\n"
	"  accelerator_type: GPU_1xH100\n"
	"  num_accelerators: 1\n";

static char *tmp_file(const char *name, const char *data, size_t len)
{
	char *path = air__sprintf("%s/%s", air_test_tmpdir(), name);

	air_test_write_file(path, data, len);
	return path;
}

/* Parse @len bytes from memory; returns the status and keeps the error. */
static int parse_mem(const char *data, size_t len, air_config **cfg, air_error **err)
{
	*cfg = NULL;
	*err = NULL;
	return air_config_parse_buffer(data, len, "w.yaml", NULL, cfg, err);
}

/* CPU seconds: the bounds below only catch runaway (quadratic, exponential)
 * behaviour, so they must not depend on how busy the machine is. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

AIR_TEST(parse__empty_file_parses_and_validation_names_it)
{
	char *path = tmp_file("empty.yaml", "", 0);
	air_config *cfg = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_config_parse_file(path, &cfg, &err), err);
	ASSERT_EQ_INT(air_config_validate(cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), path);
	ASSERT_CONTAINS(air_error_message(err), "config is empty");
	ASSERT_EQ_STR(air_error_file(err), path);
	ASSERT_NULL(air_error_field(err));
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_CONFIG);
	air_error_free(err);
	air_config_free(cfg);
	air__free(path);
}

AIR_TEST(parse__load_of_empty_file_fails_with_null_out)
{
	air_config *cfg = (air_config *)1;

	ASSERT_EQ_INT(air_config_load_buffer("", 0, NULL, NULL, &cfg, NULL), AIR_ECONFIG);
	ASSERT_NULL(cfg);
}

AIR_TEST(parse__overrides_fill_an_empty_file)
{
	air_config *cfg;
	air_error *err;
	const char *sets[] = {"experiment_name=e", "command=c", "compute.accelerator_type=GPU_1xA10",
	                      "compute.num_accelerators=2"};

	ASSERT_OK(parse_mem("# only a comment\n", 17, &cfg, &err), err);
	for (size_t i = 0; i < 4; i++)
		ASSERT_OK(air_config_override(cfg, sets[i], &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_num_nodes(cfg), 2);
	air_config_free(cfg);
}

AIR_TEST(parse__file_above_limit_refused_before_parsing)
{
	size_t n = AIR_CONFIG_MAX_BYTES + 1;
	char *data = malloc(n), *path;
	air_config *cfg = NULL;
	air_error *err = NULL;

	/* Invalid YAML throughout: a size error proves the parser never ran. */
	memset(data, '[', n);
	path = tmp_file("big.yaml", data, n);
	ASSERT_EQ_INT(air_config_parse_file(path, &cfg, &err), AIR_ECONFIG);
	ASSERT_NULL(cfg);
	ASSERT_CONTAINS(air_error_message(err), "1048576");
	ASSERT_CONTAINS(air_error_message(err), path);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_parse_buffer(data, n, "b", NULL, &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "1048576");
	air_error_free(err);
	free(data);
	air__free(path);
}

AIR_TEST(parse__file_at_limit_is_read)
{
	size_t n = AIR_CONFIG_MAX_BYTES, head = strlen(valid_yaml);
	char *data = malloc(n), *path;
	air_config *cfg = NULL;
	air_error *err = NULL;

	memcpy(data, valid_yaml, head);
	data[head] = '#';
	memset(data + head + 1, 'x', n - head - 2);
	data[n - 1] = '\n';
	path = tmp_file("limit.yaml", data, n);
	ASSERT_OK(air_config_load_file(path, &cfg, &err), err);
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 1);
	air_config_free(cfg);
	free(data);
	air__free(path);
}

AIR_TEST(parse__unreadable_paths_are_io_errors)
{
	air_config *cfg = NULL;
	air_error *err = NULL;
	char *missing = air__sprintf("%s/nope.yaml", air_test_tmpdir());

	ASSERT_EQ_INT(air_config_parse_file(missing, &cfg, &err), AIR_EIO);
	ASSERT_CONTAINS(air_error_message(err), missing);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_IO);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_parse_file(air_test_tmpdir(), &cfg, &err), AIR_EIO);
	ASSERT_CONTAINS(air_error_message(err), "directory");
	ASSERT_NULL(cfg);
	air_error_free(err);
	air__free(missing);
}

AIR_TEST(parse__source_bytes_and_base_dir)
{
	char *sub = air__sprintf("%s/proj/cfg", air_test_tmpdir()), *path;
	const char *text = "# comment kept\nexperiment_name: a   # trailing\ncommand: c\n"
	                   "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n";
	air_config *cfg = NULL;
	air_error *err = NULL;
	size_t len = 0;

	path = air__sprintf("%s/w.yaml", sub);
	air_test_write_file(path, text, strlen(text));
	ASSERT_OK(air_config_load_file(path, &cfg, &err), err);
	ASSERT_EQ_STR(air_config_source_bytes(cfg, &len), text);
	ASSERT_EQ_INT(len, strlen(text));
	ASSERT_EQ_STR(air_config_base_dir(cfg), sub);
	ASSERT_EQ_STR(air_config_source_name(cfg), path);
	/* Overrides change the document, never the uploaded bytes. */
	ASSERT_OK(air_config_override(cfg, "command=other", &err), err);
	ASSERT_EQ_STR(air_config_source_bytes(cfg, NULL), text);
	air_config_free(cfg);
	air__free(path);
	air__free(sub);

	ASSERT_OK(air_config_parse_buffer(text, strlen(text), NULL, NULL, &cfg, &err), err);
	ASSERT_EQ_STR(air_config_source_name(cfg), "<memory>");
	ASSERT_EQ_STR(air_config_base_dir(cfg), ".");
	air_config_free(cfg);
	ASSERT_OK(air_config_parse_buffer(text, strlen(text), "x", "/srv/p", &cfg, &err), err);
	ASSERT_EQ_STR(air_config_base_dir(cfg), "/srv/p");
	air_config_free(cfg);

	/* Lexical directory of the path as given. */
	{
		const char *dir = air_test_tmpdir();
		char cwd[4096], *doubled = air__sprintf("%s//rel.yaml", dir);
		path = air__sprintf("%s/rel.yaml", dir);
		air_test_write_file(path, text, strlen(text));
		ASSERT_NOT_NULL(getcwd(cwd, sizeof(cwd)));
		ASSERT_EQ_INT(chdir(dir), 0);
		ASSERT_OK(air_config_parse_file("rel.yaml", &cfg, &err), err);
		ASSERT_EQ_INT(chdir(cwd), 0);
		ASSERT_EQ_STR(air_config_base_dir(cfg), ".");
		air_config_free(cfg);
		ASSERT_OK(air_config_parse_file(doubled, &cfg, &err), err);
		ASSERT_EQ_STR(air_config_base_dir(cfg), dir);
		air_config_free(cfg);
		air__free(doubled);
	}
	air__free(path);
}

AIR_TEST(parse__buffer_needs_no_nul_and_keeps_the_name)
{
	char buf[64];
	air_config *cfg;
	air_error *err;

	/* The bytes after len are garbage; only len bytes are read. */
	memset(buf, '[', sizeof(buf));
	memcpy(buf, "parameters: {a: 1}", 18);
	ASSERT_OK(parse_mem(buf, 18, &cfg, &err), err);
	air_config_free(cfg);
	ASSERT_EQ_INT(air_config_parse_buffer("a: [", 4, NULL, NULL, &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "<memory>:");
	air_error_free(err);
}

static void expect_text_error(const char *data, size_t len, const char *what, int line, int col)
{
	air_config *cfg;
	air_error *err;

	ASSERT_EQ_INT(parse_mem(data, len, &cfg, &err), AIR_ECONFIG);
	ASSERT_NULL(cfg);
	ASSERT_CONTAINS(air_error_message(err), what);
	ASSERT_EQ_INT(air_error_line(err), line);
	ASSERT_EQ_INT(air_error_column(err), col);
	ASSERT_EQ_STR(air_error_file(err), "w.yaml");
	air_error_free(err);
}

AIR_TEST(parse__invalid_utf8_variants)
{
	expect_text_error("a: \xc0\x80\n", 6, "UTF-8", 1, 4);          /* overlong NUL */
	expect_text_error("a: \xed\xa0\x80\n", 7, "UTF-8", 1, 4);      /* surrogate */
	expect_text_error("a: \xf4\x90\x80\x80\n", 8, "UTF-8", 1, 4);  /* > U+10FFFF */
	expect_text_error("a: b\nc: \xe2\x82", 10, "UTF-8", 2, 4);      /* truncated at the end */
	expect_text_error("a: \xe0\x80\xaf\n", 7, "UTF-8", 1, 4);      /* overlong 3-byte */
	expect_text_error("a: \xff\n", 5, "UTF-8", 1, 4);
	expect_text_error("a: x\xc2\x80\n", 7, "U+0080", 1, 5);        /* C1 control */
	expect_text_error("a: \xef\xbf\xbe\n", 7, "U+FFFE", 1, 4);
	expect_text_error("a: \x7f\n", 5, "U+007F", 1, 4);
	expect_text_error("a: b\n\x1b[31m\n", 11, "U+001B", 2, 1);
}

AIR_TEST(parse__nul_bytes_and_binary_garbage)
{
	static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0";
	air_config *cfg;
	air_error *err;

	expect_text_error("experiment_name: a\0b\n", 21, "NUL", 1, 19);
	expect_text_error(elf, sizeof(elf) - 1, "U+007F", 1, 1);
	/* UTF-16 text has NULs between ASCII letters. */
	expect_text_error("\xff\xfe" "a\0:\0", 6, "UTF-8", 1, 1);
	/* A BOM and U+0085 (NEL) are fine. */
	{
		const char *ok = "\xef\xbb\xbfparameters: {a: \"x\xc2\x85y\"}\n";
		ASSERT_OK(parse_mem(ok, strlen(ok), &cfg, &err), err);
	}
	air_config_free(cfg);
}

/* Random bytes, random printable YAML-ish text: every outcome is OK or ECONFIG. */
AIR_TEST(parse__random_garbage_never_crashes)
{
	static const char alphabet[] = "ab: -[]{},\n\t\"'&*!|>#%@`?~.0123456789e\\";
	uint32_t seed = 12345;
	char buf[512];

	for (int round = 0; round < 3000; round++) {
		size_t len = 1 + (seed % sizeof(buf));
		air_config *cfg = NULL;
		air_error *err = NULL;
		int rc;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = round % 2 ? (char)(seed >> 16) : alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		rc = parse_mem(buf, len, &cfg, &err);
		ASSERT_TRUE(rc == AIR_OK || rc == AIR_ECONFIG);
		if (rc == AIR_OK) {
			char *s = NULL;
			rc = air_config_validate(cfg, NULL);
			ASSERT_TRUE(rc == AIR_OK || rc == AIR_ECONFIG);
			ASSERT_OK(air_config_to_yaml(cfg, &s, NULL), NULL);
			air_free(s);
		} else {
			ASSERT_NOT_NULL(err);
			ASSERT_TRUE(strlen(air_error_message(err)) > 0);
		}
		air_error_free(err);
		air_config_free(cfg);
	}
}

AIR_TEST(parse__deep_nesting_is_capped_quickly)
{
	size_t n = 50000;
	char *data = malloc(2 * n + 20);
	double t0 = now_s();

	strcpy(data, "parameters: ");
	memset(data + 12, '[', n);
	memset(data + 12 + n, ']', n);
	expect_text_error(data, 12 + 2 * n, "deeper than 64", 1, 76);
	free(data);
	ASSERT_TRUE(now_s() - t0 < 10.0);
}

/* "parameters: {a: [[...]]}": root + parameters + @lists levels. */
static int parse_nested(int lists)
{
	char data[256];
	air_config *cfg = NULL;
	int rc;

	strcpy(data, "parameters: {a: ");
	memset(data + 16, '[', (size_t)lists);
	memset(data + 16 + lists, ']', (size_t)lists);
	strcpy(data + 16 + 2 * lists, "}\n");
	rc = air_config_parse_buffer(data, strlen(data), "w.yaml", NULL, &cfg, NULL);
	air_config_free(cfg);
	return rc;
}

AIR_TEST(parse__nesting_at_the_cap_is_fine)
{
	ASSERT_EQ_INT(parse_nested(62), AIR_OK);
	ASSERT_EQ_INT(parse_nested(63), AIR_ECONFIG);
}

AIR_TEST(parse__alias_bomb_is_refused_quickly)
{
	const char *bomb =
		"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
		"i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
	air_config *cfg;
	air_error *err;
	double t0 = now_s();

	ASSERT_EQ_INT(parse_mem(bomb, strlen(bomb), &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "aliases expand to more than");
	ASSERT_EQ_INT(air_error_line(err), 5); /* e: 111110 more nodes */
	air_error_free(err);
	ASSERT_TRUE(now_s() - t0 < 10.0);
}

AIR_TEST(parse__aliases_are_expanded_copies)
{
	const char *text = "experiment_name: e\ncommand: c\n"
	                   "compute: &c {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                   "parameters: {base: *c, lr: &lr 0.1, again: *lr}\n";
	air_config *cfg;
	air_error *err;
	char *json = NULL;

	ASSERT_OK(parse_mem(text, strlen(text), &cfg, &err), err);
	/* An override below the copy must not change the original. */
	ASSERT_OK(air_config_override(cfg, "parameters.base.num_accelerators=5", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 1);
	ASSERT_OK(air_config_parameters_json(cfg, &json, &err), err);
	ASSERT_EQ_STR(json, "{\"base\":{\"accelerator_type\":\"GPU_1xA10\",\"num_accelerators\":5},"
	                    "\"lr\":0.1,\"again\":0.1}");
	air_free(json);
	air_config_free(cfg);
}

/* An alias of a null used as a key is a null key too (found by fuzz_config). */
AIR_TEST(parse__null_keys_are_refused)
{
	static const char *const inputs[] = {"~: x\n", "parameters:\n  : x\n", "a: &a\nb: {*a : 1}\n",
	                                     "a: &n null\nb:\n  *n : 1\n"};
	air_config *cfg;
	air_error *err;

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		ASSERT_EQ_INT(parse_mem(inputs[i], strlen(inputs[i]), &cfg, &err), AIR_ECONFIG);
		ASSERT_CONTAINS(air_error_message(err), "null mapping key");
		air_error_free(err);
	}
}

AIR_TEST(parse__recursive_alias_is_refused)
{
	air_config *cfg;
	air_error *err;

	ASSERT_EQ_INT(parse_mem("a: &x [1, *x]\n", 14, &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "alias");
	air_error_free(err);
}

AIR_TEST(parse__big_mapping_duplicate_found_fast)
{
	size_t n = 20000;
	air__buf b = AIR__BUF_INIT;
	air_config *cfg;
	air_error *err;
	double t0 = now_s();

	air__buf_puts(&b, "parameters:\n");
	for (size_t i = 0; i < n; i++)
		air__buf_printf(&b, "  k%zu: %zu\n", i, i);
	/* k7 again, after 20000 unique keys: line 2 + n. */
	air__buf_puts(&b, "  k7: again\n  k8: again\n");
	ASSERT_EQ_INT(parse_mem(b.ptr, b.len, &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "duplicate key \"k7\"");
	ASSERT_EQ_INT(air_error_line(err), (int)n + 2);
	air_error_free(err);
	/* Without the repeat it parses, in well under a second. */
	b.len -= strlen("  k7: again\n  k8: again\n");
	b.ptr[b.len] = '\0';
	ASSERT_OK(parse_mem(b.ptr, b.len, &cfg, &err), err);
	air_config_free(cfg);
	air__buf_dispose(&b);
	ASSERT_TRUE(now_s() - t0 < 10.0);
}

AIR_TEST(parse__duplicate_keys_compare_text_not_style)
{
	air_config *cfg;
	air_error *err;

	ASSERT_EQ_INT(parse_mem("parameters:\n  a: 1\n  'a': 2\n", 27, &cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "w.yaml:3:3:");
	ASSERT_CONTAINS(air_error_message(err), "duplicate key \"a\"");
	air_error_free(err);
}

AIR_TEST(parse__syntax_errors_carry_file_line_column)
{
	const char *text = "experiment_name: a\ncommand: \"unterminated\n";
	air_config *cfg;
	air_error *err;

	ASSERT_EQ_INT(parse_mem(text, strlen(text), &cfg, &err), AIR_ECONFIG);
	ASSERT_EQ_INT(air_error_line(err), 2);
	ASSERT_TRUE(air_error_column(err) > 0);
	ASSERT_CONTAINS(air_error_message(err), "w.yaml:2:");
	ASSERT_CONTAINS(air_error_message(err), "YAML syntax error");
	air_error_free(err);
}

/* libfyaml 0.7.12 crashes in fy_parser_destroy after this error inside an
 * explicit '?' key (found by fuzz_config); libair refuses the input first. */
AIR_TEST(parse__tab_before_indicator_in_explicit_key_is_refused)
{
	static const char *const inputs[] = {
		"? x:\t:", "# Singl\n  \"\": d\n  ? xa:a::\t:\n", "- ? x:\t|", "a:\n  ? x: y\n    z:\t- b\n",
	};
	air_config *cfg;
	air_error *err;

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		ASSERT_EQ_INT(parse_mem(inputs[i], strlen(inputs[i]), &cfg, &err), AIR_ECONFIG);
		ASSERT_CONTAINS(air_error_message(err), "cannot be parsed safely");
		ASSERT_TRUE(air_error_line(err) > 0);
		air_error_free(err);
	}
	/* Explicit keys without such tabs, and tabs without explicit keys, parse. */
	ASSERT_OK(parse_mem("parameters:\n  ? a\n  : 1\n", 24, &cfg, &err), err);
	air_config_free(cfg);
	ASSERT_OK(parse_mem("command: |\n  a\t- b\n  why? x\n", 28, &cfg, &err), err);
	air_config_free(cfg);
}

AIR_TEST(parse__tabs_inside_values_are_fine)
{
	const char *text = "parameters: {a: \"x\ty\"}\ncommand: \"a\tb\"\n";
	air_config *cfg;
	air_error *err;

	ASSERT_OK(parse_mem(text, strlen(text), &cfg, &err), err);
	air_config_free(cfg);
}

AIR_TEST(parse__long_scalar)
{
	size_t n = 900000;
	char *data = malloc(n + 64);
	air_config *cfg;
	air_error *err;
	double t0 = now_s();

	strcpy(data, "parameters: {blob: ");
	memset(data + 19, 'z', n);
	strcpy(data + 19 + n, "}\n");
	ASSERT_OK(parse_mem(data, strlen(data), &cfg, &err), err);
	air_config_free(cfg);
	free(data);
	ASSERT_TRUE(now_s() - t0 < 10.0);
}

AIR_TEST(parse__argument_checks)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_parse_file(NULL, &cfg, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "path");
	air_error_free(err);
	ASSERT_EQ_INT(air_config_parse_file("x", NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_config_parse_buffer(NULL, 3, NULL, NULL, &cfg, NULL), AIR_EINVAL);
	ASSERT_OK(air_config_parse_buffer(NULL, 0, NULL, NULL, &cfg, NULL), NULL);
	air_config_free(cfg);
	ASSERT_EQ_INT(air_config_validate(NULL, NULL), AIR_EINVAL);
	air_config_free(NULL);
}

AIR_TEST(parse__a_bad_character_is_found_in_any_byte_of_a_word)
{
	/* The text check reads eight bytes at a time while they are printable
	 * ASCII: a bad character in any of the eight places, after multi-byte
	 * characters and after line breaks, is still found and placed (the
	 * column counts characters). */
	static const struct {
		const char *bad;
		size_t bad_len;
		const char *message;
	} bads[] = {
		{"\x01", 1, "control character U+0001"},
		{"\x7f", 1, "control character U+007F"},
		{"\0", 1, "NUL byte"},
		{"\xc2\x80", 2, "control character U+0080"},
		{"\xff", 1, "invalid UTF-8 byte 0xFF"},
		{"\xc3", 1, "invalid UTF-8 sequence"},
		{"\xed\xa0\x80", 3, "invalid UTF-8 sequence"},
	};

	for (size_t k = 0; k < sizeof(bads) / sizeof(bads[0]); k++)
		for (int at = 0; at < 8; at++) {
			/* Line 2 holds "experiment_name: ", 3 two-byte characters (é)
			 * and `at` letters before the bad character: its column is
			 * 17 + 3 + at + 1. */
			char data[128];
			size_t n = 0;
			air_config *cfg = NULL;
			air_error *err = NULL;

			n += (size_t)snprintf(data, sizeof(data),
			                      "command: c\nexperiment_name: \xc3\xa9\xc3\xa9\xc3\xa9");
			for (int i = 0; i < at; i++)
				data[n++] = 'x';
			memcpy(data + n, bads[k].bad, bads[k].bad_len);
			n += bads[k].bad_len;
			n += (size_t)snprintf(data + n, sizeof(data) - n, "abcdefghijklmnop\n");
			ASSERT_EQ_INT(air_config_parse_buffer(data, n, "w.yaml", NULL, &cfg, &err),
			              AIR_ECONFIG);
			ASSERT_CONTAINS(air_error_message(err), bads[k].message);
			ASSERT_EQ_INT(air_error_line(err), 2);
			ASSERT_EQ_INT(air_error_column(err), 17 + 3 + at + 1);
			ASSERT_NULL(cfg);
			air_error_free(err);
		}
}

/* Loads one after another share libfyaml's parser objects (yaml.c keeps
 * one set): nothing of one file may reach the next. */
AIR_TEST(parse__files_read_in_a_row_share_nothing)
{
	static const char with_tag[] = "%TAG !c! tag:yaml.org,2002:\n---\nexperiment_name: !c!str a\n";
	static const char uses_tag[] = "experiment_name: b\ncommand: !c!str x\n";
	static const char two_docs[] = "experiment_name: first\ncommand: x\n"
	                               "compute: {accelerator_type: GPU_1xH100, num_accelerators: 2}\n"
	                               "---\nexperiment_name: second\n";
	air_config *cfg;
	air_error *err;

	ASSERT_OK(parse_mem(with_tag, strlen(with_tag), &cfg, &err), err);
	air_config_free(cfg);
	/* The tag handle of the file before is not defined here. */
	ASSERT_EQ_INT(parse_mem(uses_tag, strlen(uses_tag), &cfg, &err), AIR_ECONFIG);
	ASSERT_EQ_INT(air_error_line(err), 2);
	ASSERT_CONTAINS(air_error_message(err), "w.yaml:2:");
	air_error_free(err);

	for (int i = 0; i < 3; i++) {
		ASSERT_OK(air_config_load_buffer(two_docs, strlen(two_docs), "w.yaml", NULL, &cfg, &err),
		          err);
		ASSERT_EQ_STR(air_config_experiment_name(cfg), "first");
		ASSERT_EQ_INT(air_config_num_accelerators(cfg), 2);
		air_config_free(cfg);
		ASSERT_OK(air_config_load_buffer(valid_yaml, strlen(valid_yaml), "w.yaml", NULL, &cfg,
		                                 &err),
		          err);
		ASSERT_EQ_STR(air_config_experiment_name(cfg), "smoke-test");
		ASSERT_EQ_INT(air_config_num_accelerators(cfg), 1);
		air_config_free(cfg);
	}
	/* An error after good files is placed in its own file. */
	ASSERT_EQ_INT(parse_mem("\n\nexperiment_name: [a\n", 21, &cfg, &err), AIR_ECONFIG);
	ASSERT_EQ_INT(air_error_line(err), 4);
	air_error_free(err);
	ASSERT_OK(parse_mem(valid_yaml, strlen(valid_yaml), &cfg, &err), err);
	air_config_free(cfg);
}

static void *load_many(void *arg)
{
	static const char bad[] = "experiment_name: a\ncommand: \"unterminated\n";
	long *failures = arg;

	for (int i = 0; i < 300; i++) {
		air_config *cfg = NULL;
		air_error *err = NULL;
		bool good = i % 3 != 0;
		int rc = good ? air_config_load_buffer(valid_yaml, strlen(valid_yaml), "w.yaml", NULL,
		                                       &cfg, &err)
		              : air_config_load_buffer(bad, strlen(bad), "w.yaml", NULL, &cfg, &err);

		if (good ? rc != AIR_OK || strcmp(air_config_experiment_name(cfg), "smoke-test")
		         : rc != AIR_ECONFIG || air_error_line(err) != 2)
			(*failures)++;
		air_config_free(cfg);
		air_error_free(err);
	}
	return NULL;
}

AIR_TEST(parse__threads_load_at_once)
{
	pthread_t t[4];
	long failures[4] = {0};

	for (int i = 0; i < 4; i++)
		ASSERT_EQ_INT(pthread_create(&t[i], NULL, load_many, &failures[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ_INT(failures[i], 0);
	}
}
