/* test_runner.h: state shared by the test registry (test_support.c) and the
 * TAP runner (test_main.c). */
#ifndef AIR_TEST_RUNNER_H
#define AIR_TEST_RUNNER_H

#include <setjmp.h>

#include "test.h"

#define MAX_TESTS 1024

struct air_test_entry {
	const char *name;
	air_test_fn fn;
	const char *file;
};

extern struct air_test_entry air_test_entries[MAX_TESTS];
extern int air_test_count;
extern air_test_fn air_test_setup_hook, air_test_teardown_hook;
extern jmp_buf *air_test_escape; /* NULL outside a running test */
extern int air_test_failed, air_test_skipped;
extern char air_test_skip_reason[256];

#endif
