/* test_main.c: runs the registered tests and reports them as TAP. */
#include "test.h"

#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TESTS 1024

static struct {
	const char *name;
	air_test_fn fn;
	const char *file;
} tests[MAX_TESTS];
static int ntests;
static air_test_fn setup_hook, teardown_hook;
static jmp_buf escape;
static int current_failed, current_skipped;
static char skip_reason[256];
static char tmp_root[PATH_MAX];
static int tmp_counter;

void air_test_register(const char *name, air_test_fn fn, const char *file)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(99);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	tests[ntests].file = file;
	ntests++;
}

void air_test_set_hooks(air_test_fn setup, air_test_fn teardown)
{
	setup_hook = setup;
	teardown_hook = teardown;
}

void air_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	current_failed = 1;
	longjmp(escape, 1);
}

void air_test_skip(const char *why)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", why);
	current_skipped = 1;
	longjmp(escape, 1);
}

void air_test_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

const char *air_test_source_root(void)
{
	const char *r = getenv("AIR_SOURCE_ROOT");
#ifdef AIR_TEST_SOURCE_ROOT
	if (!r)
		r = AIR_TEST_SOURCE_ROOT;
#endif
	return r ? r : ".";
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmp_root(void)
{
	if (tmp_root[0] && !getenv("AIR_TEST_KEEP_TMP"))
		nftw(tmp_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *air_test_tmpdir(void)
{
	static char path[PATH_MAX + 32];

	if (!tmp_root[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmp_root, sizeof(tmp_root), "%s/airtest.XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tmp_root)) {
			perror("mkdtemp");
			exit(99);
		}
		atexit(remove_tmp_root);
	}
	snprintf(path, sizeof(path), "%s/t%d", tmp_root, ++tmp_counter);
	if (mkdir(path, 0700) != 0)
		FAIL("mkdir %s: %s", path, strerror(errno));
	return path;
}

char *air_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			data = realloc(data, cap);
			if (!data) {
				fclose(f);
				return NULL;
			}
		}
		size_t r = fread(data + n, 1, 4096, f);
		n += r;
		if (r < 4096)
			break;
	}
	fclose(f);
	data[n] = '\0';
	if (len)
		*len = n;
	return data;
}

static void mkdirs_for(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
}

void air_test_write_file(const char *path, const char *data, size_t len)
{
	FILE *f;

	mkdirs_for(path);
	f = fopen(path, "wb");
	if (!f)
		FAIL("cannot write %s: %s", path, strerror(errno));
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		FAIL("short write to %s", path);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static int selected[MAX_TESTS];
	static int nsel, failures, k; /* static: survive longjmp */

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < ntests; i++) {
		bool want = argc < 2;
		for (int a = 1; a < argc && !want; a++)
			want = fnmatch(argv[a], tests[i].name, 0) == 0;
		if (want)
			selected[nsel++] = i;
	}
	printf("TAP version 13\n1..%d\n", nsel);
	for (k = 0; k < nsel; k++) {
		int i = selected[k];
		current_failed = current_skipped = 0;
		if (setjmp(escape) == 0) {
			if (setup_hook)
				setup_hook();
			tests[i].fn();
		}
		if (teardown_hook) {
			if (setjmp(escape) == 0)
				teardown_hook();
		}
		if (current_skipped)
			printf("ok %d - %s # SKIP %s\n", k + 1, tests[i].name, skip_reason);
		else if (current_failed)
			printf("not ok %d - %s\n", k + 1, tests[i].name), failures++;
		else
			printf("ok %d - %s\n", k + 1, tests[i].name);
	}
	return failures ? 1 : 0;
}
