/* test_main.c: runs the registered tests and reports them as TAP. */
#include <fnmatch.h>
#include <stdlib.h>

#include "test.h"
#include "test_runner.h"

static jmp_buf escape;

int main(int argc, char **argv)
{
	static int selected[MAX_TESTS];
	static int nsel, failures, k; /* static: survive longjmp */

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < air_test_count; i++) {
		bool want = argc < 2;
		for (int a = 1; a < argc && !want; a++)
			want = fnmatch(argv[a], air_test_entries[i].name, 0) == 0;
		if (want)
			selected[nsel++] = i;
	}
	printf("TAP version 13\n1..%d\n", nsel);
	for (k = 0; k < nsel; k++) {
		int i = selected[k];
		air_test_failed = air_test_skipped = 0;
		air_test_escape = &escape;
		if (setjmp(escape) == 0) {
			if (air_test_setup_hook)
				air_test_setup_hook();
			air_test_entries[i].fn();
		}
		if (air_test_teardown_hook) {
			if (setjmp(escape) == 0)
				air_test_teardown_hook();
		}
		air_test_escape = NULL;
		if (air_test_skipped)
			printf("ok %d - %s # SKIP %s\n", k + 1, air_test_entries[i].name, air_test_skip_reason);
		else if (air_test_failed)
			printf("not ok %d - %s\n", k + 1, air_test_entries[i].name), failures++;
		else
			printf("ok %d - %s\n", k + 1, air_test_entries[i].name);
	}
	return failures ? 1 : 0;
}
