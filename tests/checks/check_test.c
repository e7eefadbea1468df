/* check_test.c: helpers of the check tests (check_test.h). */
#include "check_test.h"

#include <stdio.h>
#include <string.h>

#include "test.h"

air_check_report *check_yaml(air_client *c, const char *yaml, const air_check_options *o)
{
	char path[4200];
	air_config *cfg = NULL;
	air_check_report *r = NULL;
	air_error *err = NULL;

	snprintf(path, sizeof(path), "%s/w.yaml", air_test_tmpdir());
	air_test_write_file(path, yaml, strlen(yaml));
	if (air_config_load_file(path, &cfg, &err) != AIR_OK)
		FAIL("cannot load the workload: %s", air_error_message(err));
	ASSERT_OK(air_client_check(c, cfg, o, &r, &err), err);
	air_config_free(cfg);
	return r;
}

const air_check *find_check(const air_check_report *r, const char *name, const char *field)
{
	for (size_t i = 0; i < air_check_report_count(r); i++) {
		const air_check *c = air_check_report_get(r, i);
		const char *f = air_check_field(c);
		if (!strcmp(air_check_name(c), name) &&
		    (!field || (f && !strcmp(f, field))))
			return c;
	}
	return NULL;
}

const char *report_text(const air_check_report *r)
{
	static char buf[1 << 16];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < air_check_report_count(r) && off < sizeof(buf); i++) {
		const air_check *c = air_check_report_get(r, i);
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s %s %s: %s\n", air_check_name(c),
		                        air_check_status_name(air_check_status(c)),
		                        air_check_field(c) ? air_check_field(c) : "-",
		                        air_check_message(c));
	}
	return buf;
}

void expect_check(const air_check_report *r, const char *name, const char *field, int32_t status,
                  const char *text)
{
	const air_check *c = find_check(r, name, field);

	if (!c)
		FAIL("no check %s (%s) in:\n%s", name, field ? field : "any field", report_text(r));
	if (air_check_status(c) != status || !strstr(air_check_message(c), text))
		FAIL("check %s (%s) is %s \"%s\", not %s with \"%s\"", name, field ? field : "-",
		     air_check_status_name(air_check_status(c)), air_check_message(c),
		     air_check_status_name(status), text);
}

size_t count_checks(const air_check_report *r, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < air_check_report_count(r); i++)
		n += !strcmp(air_check_name(air_check_report_get(r, i)), name);
	return n;
}

air_check_options *check_options(int strict, int resources, int reproducibility, int sanity)
{
	air_check_options *o = NULL;

	ASSERT_EQ_INT(air_check_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_STRICT, strict), AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_RESOURCES, resources), AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_REPRODUCIBILITY, reproducibility),
	              AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_SANITY, sanity), AIR_OK);
	return o;
}
