/* test_points.c: the points of a sweep (grid, explicit points, files,
 * samples), their canonical form, keys and run names, and the offline
 * validation of a sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeps/sweeps.h"
#include "submit_test.h"
#include "test.h"

static char *canon(const char *yaml)
{
	air__buf b = AIR__BUF_INIT;
	air_error *err = NULL;

	ASSERT_OK(air__canon_value(yaml, &b, &err), err);
	return air__buf_detach(&b);
}

#define ASSERT_CANON(yaml, want)                                                      \
	do {                                                                          \
		char *got_ = canon(yaml);                                             \
		ASSERT_EQ_STR(got_, want);                                            \
		free(got_);                                                           \
	} while (0)

AIR_TEST(points__values_have_one_canonical_form)
{
	ASSERT_CANON("1e-3", "0.001");
	ASSERT_CANON("0.001", "0.001");
	ASSERT_CANON("1.0e-3", "0.001");
	ASSERT_CANON("3e-4", "0.0003");
	ASSERT_CANON("0.1", "0.1");
	ASSERT_CANON("1e-10", "1e-10");
	ASSERT_CANON("2.5e20", "2.5e+20");
	ASSERT_CANON("-0.25", "-0.25");
	ASSERT_CANON("123456.789", "123456.789");
	ASSERT_CANON("1000.0", "1000.0");
	ASSERT_CANON("1000", "1000");
	ASSERT_CANON("0x10", "16");
	ASSERT_CANON("+7", "7");
	ASSERT_CANON("true", "true");
	ASSERT_CANON("null", "null");
	ASSERT_CANON("", "null");
	ASSERT_CANON("adam", "\"adam\"");
	ASSERT_CANON("'32'", "\"32\"");
	ASSERT_CANON(".inf", "\".inf\"");
	ASSERT_CANON("[1e-3, b]", "[0.001,\"b\"]");
	ASSERT_CANON("{z: 1, a: 2.50}", "{\"a\":2.5,\"z\":1}");
}

AIR_TEST(points__the_point_is_sorted_by_path)
{
	air__assign a[] = {{"parameters.lr", "1e-3"}, {"compute.num_accelerators", "8"}};
	air_error *err = NULL;
	char *out = NULL;

	ASSERT_OK(air__canon_point(a, 2, &out, &err), err);
	ASSERT_EQ_STR(out, "{\"compute.num_accelerators\":8,\"parameters.lr\":0.001}");
	air__free(out);
}

AIR_TEST(points__keys_fit_and_depend_on_base_and_point_only)
{
	char *k1 = air__sweep_key("alice-exp-20250101-v1", "{\"a\":1}");
	char *k2 = air__sweep_key("alice-exp-20250101-v1", "{\"a\":1}");
	char *k3 = air__sweep_key("alice-exp-20250101-v1", "{\"a\":2}");
	char long_base[300];
	char *k4, *k5;

	ASSERT_EQ_STR(k1, k2);
	ASSERT_TRUE(strcmp(k1, k3) != 0);
	ASSERT_TRUE(has_prefix(k1, "alice-exp-20250101-v1-"));
	ASSERT_EQ_INT(strlen(k1), strlen("alice-exp-20250101-v1-") + 16);
	/* a long base is cut, and the digest tells two long bases apart */
	memset(long_base, 'x', 280);
	long_base[280] = '\0';
	k4 = air__sweep_key(long_base, "{}");
	long_base[279] = 'y';
	k5 = air__sweep_key(long_base, "{}");
	ASSERT_EQ_INT(strlen(k4), 64);
	ASSERT_TRUE(strcmp(k4, k5) != 0);
	air__free(k1);
	air__free(k2);
	air__free(k3);
	air__free(k4);
	air__free(k5);
}

AIR_TEST(points__run_names_carry_the_point)
{
	air__assign a[] = {{"parameters.lr", "1e-3"}, {"parameters.batch_size", "32"}};
	air__assign b[] = {{"parameters.lr", "1e-3"}, {"env_variables.lr", "fast"}};
	air__assign c[] = {{"parameters.note", "'a\\nb'"}};
	char *n1 = air__sweep_run_name("exp", a, 2), *n2 = air__sweep_run_name("exp", b, 2);
	char *n3 = air__sweep_run_name("exp", c, 1), *n4 = air__sweep_run_name("exp", NULL, 0);
	char long_value[400];
	air__assign d[] = {{"parameters.t", long_value}};
	char *n5;

	ASSERT_EQ_STR(n1, "exp lr=0.001 batch_size=32");
	ASSERT_EQ_STR(n2, "exp parameters.lr=0.001 env_variables.lr=fast"); /* same last segment */
	ASSERT_EQ_STR(n3, "exp note=a\\nb");
	ASSERT_EQ_STR(n4, "exp");
	memset(long_value, 'v', 399);
	long_value[399] = '\0';
	n5 = air__sweep_run_name("exp", d, 1);
	ASSERT_EQ_INT(strlen(n5), AIR__SWEEP_RUN_NAME_MAX);
	ASSERT_TRUE(has_suffix(n5, "..."));
	air__free(n1);
	air__free(n2);
	air__free(n3);
	air__free(n4);
	air__free(n5);
}

AIR_TEST(points__a_grid_is_the_cartesian_product_first_axis_slowest)
{
	air_sweep_points *p = NULL;
	const char *lr[] = {"1e-3", "3e-4"}, *bs[] = {"32", "64", "128"};
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, " parameters.lr ", lr, 2, &err), err);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.batch_size", bs, 3, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 6);
	ASSERT_EQ_INT(air_sweep_points_size(p, 4), 2);
	ASSERT_EQ_STR(air_sweep_points_path(p, 4, 0), "parameters.lr");
	ASSERT_EQ_STR(air_sweep_points_value(p, 4, 0), "3e-4");
	ASSERT_EQ_STR(air_sweep_points_value(p, 4, 1), "64");
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 1), "32");
	ASSERT_TRUE(air_sweep_points_path(p, 6, 0) == NULL);
	/* a path twice, explicit points with axes, no values */
	ASSERT_EQ_INT(air_sweep_points_add_axis(p, "parameters.lr", lr, 2, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_add_point(p, lr, 0, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_add_axis(p, "parameters.x", lr, 0, &err), AIR_EINVAL);
	air_error_free(err);
	air_sweep_points_free(p);
}

/* An empty value ("--grid lr=1,,2", "--grid lr=") is refused, naming the
 * axis and the value; the points are left as they were. */
AIR_TEST(points__an_empty_axis_value_is_refused)
{
	air_sweep_points *p = NULL;
	const char *gap[] = {"1", " ", "2"}, *none[] = {""}, *null[] = {"null", "''"};
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_add_axis(p, "parameters.lr", gap, 3, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_message(err),
	              "parameters.lr: value 2 of the axis is empty (write null for a null value)");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_add_axis(p, "parameters.lr", none, 1, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_count(p), 0);
	/* null and an empty string, written out, are values */
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.lr", null, 2, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 2);
	air_sweep_points_free(p);
}

/* Paths that overlap (one a field within the other) cannot both vary, in
 * a grid or in one point: the later would replace the earlier's value. */
AIR_TEST(points__overlapping_paths_are_refused)
{
	air_sweep_points *p = NULL;
	const char *one[] = {"1"}, *pt[] = {"parameters.a.b=1", "parameters.a=2"};
	const char *fine[] = {"parameters.ab=1", "parameters.a=2"};
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.a.b.c", one, 1, &err), err);
	ASSERT_EQ_INT(air_sweep_points_add_axis(p, "parameters.a", one, 1, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_message(err), "parameters.a: overlaps the axis parameters.a.b.c "
	                                      "(one would replace the other's value)");
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.ab", one, 1, &err), err);
	air_sweep_points_free(p);

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_add_point(p, pt, 2, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "parameters.a: overlaps parameters.a.b");
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air_sweep_points_add_point(p, fine, 2, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 1);
	air_sweep_points_free(p);
}

AIR_TEST(points__explicit_points)
{
	air_sweep_points *p = NULL;
	const char *a[] = {"parameters.lr=0.001", "compute.num_accelerators=8"};
	const char *dup[] = {"parameters.lr=1", "parameters.lr=2"}, *bad[] = {"parameters.lr"};
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_point(p, a, 2, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 1);
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 1), "8");
	ASSERT_EQ_INT(air_sweep_points_add_point(p, dup, 2, &err), AIR_EINVAL);
	ASSERT_TRUE(strstr(air_error_message(err), "twice"));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_add_point(p, bad, 1, &err), AIR_EINVAL);
	ASSERT_TRUE(strstr(air_error_message(err), "PATH=VALUE"));
	air_error_free(err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 1);
	air_sweep_points_free(p);
}

static char *sample_text(uint64_t n, uint64_t seed)
{
	air_sweep_points *p = NULL;
	const char *v[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
	air_error *err = NULL;
	char buf[512] = "";

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.a", v, 10, &err), err);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.b", v, 10, &err), err);
	ASSERT_OK(air_sweep_points_sample(p, n, seed, &err), err);
	for (size_t i = 0; i < air_sweep_points_count(p); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s ",
		         air_sweep_points_value(p, i, 0), air_sweep_points_value(p, i, 1));
	air_sweep_points_free(p);
	return strdup(buf);
}

AIR_TEST(points__a_sample_is_reproducible_distinct_and_in_grid_order)
{
	char *a = sample_text(5, 42), *b = sample_text(5, 42), *c = sample_text(5, 43);
	char *all = sample_text(500, 1);
	int prev = -1, n = 0;

	air_test_note("sample(5, seed 42): %s", a);
	ASSERT_EQ_STR(a, b);
	ASSERT_TRUE(strcmp(a, c) != 0);
	for (char *t = strtok(a, " "); t; t = strtok(NULL, " "), n++) {
		ASSERT_TRUE(atoi(t) > prev); /* distinct, ascending */
		prev = atoi(t);
	}
	ASSERT_EQ_INT(n, 5);
	ASSERT_EQ_INT(strlen(all), 100 * 3); /* a sample as large as the grid keeps it all */
	/* the sample of a fixed seed never changes (the same on every platform) */
	ASSERT_EQ_STR(b, "06 45 50 84 85 ");
	free(a);
	free(b);
	free(c);
	free(all);
}

AIR_TEST(points__json_lines_file)
{
	const char *dir = air_test_tmpdir();
	char path[4200];
	air_sweep_points *p = NULL;
	air_error *err = NULL;
	const char *text = "{\"parameters.lr\": 0.001, \"compute.num_accelerators\": 8}\n\n"
	                   "  {\"parameters.lr\": 3e-4, \"parameters.opt\": \"adam\"}\r\n";

	snprintf(path, sizeof(path), "%s/points.jsonl", dir);
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_load_file(p, path, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 2);
	ASSERT_EQ_STR(air_sweep_points_path(p, 0, 1), "compute.num_accelerators");
	ASSERT_EQ_STR(air_sweep_points_value(p, 1, 1), "\"adam\"");
	air_sweep_points_free(p);

	/* floats as short as they read back, nested ones too (not 0.14999999999999999) */
	text = "{\"parameters.lr\": 0.15, \"parameters.b\": [0.1, {\"x\": 1e-7, \"y\": 2}],"
	       " \"parameters.c\": 1000.0, \"parameters.d\": 0.30000000000000004}\n";
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_load_file(p, path, &err), err);
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 0), "0.15");
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 1), "[0.1,{\"x\":1e-07,\"y\":2}]");
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 2), "1000.0");
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 3), "0.30000000000000004");
	air_sweep_points_free(p);

	text = "{\"parameters.lr\": 1}\n[1, 2]\n";
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_load_file(p, path, &err), AIR_ECONFIG);
	ASSERT_TRUE(strstr(air_error_message(err), "points.jsonl:2: a point must be a JSON object"));
	ASSERT_EQ_INT(air_error_line(err), 2);
	air_error_free(err);
	err = NULL;
	air_sweep_points_free(p);

	/* A line that is not JSON: the file's line, then why (no empty part). */
	text = "{\"parameters.lr\": 1}\n{bad\n";
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_load_file(p, path, &err), AIR_ECONFIG);
	ASSERT_TRUE(strstr(air_error_message(err), "points.jsonl:2: not JSON: "));
	ASSERT_NULL(strstr(air_error_message(err), ": :"));
	air_error_free(err);
	err = NULL;
	air_sweep_points_free(p);

	/* A NUL byte, which JSON readers take for the end: refused. */
	air_test_write_file(path, "{\"parameters.lr\": 1}\0{\"x\": 2}\n", 30);
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_load_file(p, path, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "points.jsonl:1: a NUL byte");
	air_error_free(err);
	air_sweep_points_free(p);
}

AIR_TEST(points__yaml_file)
{
	const char *dir = air_test_tmpdir();
	char path[4200];
	air_sweep_points *p = NULL;
	air_error *err = NULL;
	const char *text = "# two points\n- parameters.lr: 1e-3\n  parameters.layers: [64, 64]\n"
	                   "- {parameters.lr: 3e-4, parameters.opt: '32'}\n";

	snprintf(path, sizeof(path), "%s/points.yaml", dir);
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_load_file(p, path, &err), err);
	ASSERT_EQ_INT(air_sweep_points_count(p), 2);
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 0), "1e-3");
	ASSERT_EQ_STR(air_sweep_points_value(p, 0, 1), "[64, 64]");
	ASSERT_EQ_STR(air_sweep_points_value(p, 1, 1), "\"32\"");
	air_sweep_points_free(p);

	text = "- parameters.lr: 1\n- just text\n";
	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_EQ_INT(air_sweep_points_load_file(p, path, &err), AIR_ECONFIG);
	ASSERT_TRUE(strstr(air_error_message(err), "points.yaml:2: a point must be a mapping"));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_sweep_points_load_file(p, "/nonexistent/points.yaml", &err), AIR_EIO);
	air_error_free(err);
	air_sweep_points_free(p);
}

#define BASE "experiment_name: exp\ncommand: python train.py\n" \
             "compute:\n  accelerator_type: GPU_8xH100\n  num_accelerators: 8\n" \
             "parameters: {lr: 0.01}\n"

AIR_TEST(points__validation_names_the_variant_and_the_field)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", BASE);
	air_sweep_points *p = NULL;
	const char *pts[] = {"compute.accelerator_type=GPU_1xH100"};
	const char *pts2[] = {"compute.num_accelerators=12"};
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_point(p, pts, 1, &err), err);
	ASSERT_OK(air_sweep_points_add_point(p, pts2, 1, &err), err);
	ASSERT_EQ_INT(air_config_validate_sweep(cfg, p, NULL, &s, &err), AIR_ECONFIG);
	ASSERT_TRUE(s == NULL);
	air_test_note("%s", air_error_message(err));
	/* GPU_1xH100 with 8 accelerators is valid; 12 of GPU_8xH100 is not */
	ASSERT_TRUE(has_prefix(air_error_message(err), "variant 1 (compute.num_accelerators=12)"));
	ASSERT_EQ_STR(air_error_field(err), "compute.num_accelerators");
	air_error_free(err);
	air_sweep_points_free(p);
	air_config_free(cfg);
}

AIR_TEST(points__a_dry_run_lists_the_variants_with_their_keys)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", BASE "idempotency_token: yaml-key\n");
	air_sweep_points *p = NULL;
	const char *lr[] = {"1e-3", "3e-4"};
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.lr", lr, 2, &err), err);
	ASSERT_OK(air_config_validate_sweep(cfg, p, NULL, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_count(s), 2);
	ASSERT_EQ_STR(air_sweep_base_key(s), "yaml-key"); /* no option: the YAML token */
	ASSERT_EQ_INT(air_sweep_variant_status(s, 1), AIR_VARIANT_VALID);
	ASSERT_EQ_STR(air_sweep_variant_run_name(s, 1), "exp lr=0.0003");
	ASSERT_TRUE(has_prefix(air_sweep_variant_idempotency_key(s, 1), "yaml-key-"));
	ASSERT_EQ_INT(air_sweep_variant_run_id(s, 1), 0);
	air_sweep_free(s);
	air_sweep_points_free(p);
	air_config_free(cfg);
}

AIR_TEST(points__the_sweep_tag_names_the_folder_of_its_runs)
{
	char *t1 = air__sweep_tag("alice exp/1"), *t2 = air__sweep_tag("alice exp:1");

	ASSERT_TRUE(has_prefix(t1, "sweep-alice_exp_1-"));
	ASSERT_EQ_INT(strlen(t1), strlen("sweep-alice_exp_1-") + 8);
	ASSERT_TRUE(strcmp(t1, t2) != 0); /* the digest of the whole key */
	air__free(t1);
	air__free(t2);
}
