/*
 * check_test.h: what the tests of air_client_check() share — running a check
 * of a workload written as YAML, and finding its entries in the report.
 */
#ifndef AIR_CHECK_TEST_H
#define AIR_CHECK_TEST_H

#include <air/air.h>

/* Check @yaml (written to <tmp>/w.yaml) through @c with @o (may be NULL);
 * FAIL unless the call returns AIR_OK. Caller frees the report. */
air_check_report *check_yaml(air_client *c, const char *yaml, const air_check_options *o);
/* The first entry named @name whose field is @field (NULL: any field), or NULL. */
const air_check *find_check(const air_check_report *r, const char *name, const char *field);
/* FAIL unless such an entry exists with @status and a message containing @text. */
void expect_check(const air_check_report *r, const char *name, const char *field, int32_t status,
                  const char *text);
/* Number of entries named @name. */
size_t count_checks(const air_check_report *r, const char *name);
/* Every entry as "name status field: message" lines (static buffer). */
const char *report_text(const air_check_report *r);
/* Options with @strict and the groups left out when 0. */
air_check_options *check_options(int strict, int resources, int reproducibility, int sanity);

#endif /* AIR_CHECK_TEST_H */
