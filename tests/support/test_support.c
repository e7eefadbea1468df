/* test_support.c: test registry, assertions' failure path, temp dirs and files.
 * Also linked by benchmarks, which have no TAP runner: a failure outside a
 * running test prints the diagnostic and exits. */
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

#include "test_runner.h"

struct air_test_entry air_test_entries[MAX_TESTS];
int air_test_count;
air_test_fn air_test_setup_hook, air_test_teardown_hook;
jmp_buf *air_test_escape;
int air_test_failed, air_test_skipped;
char air_test_skip_reason[256];
static char tmp_root[PATH_MAX];
static int tmp_counter;

void air_test_register(const char *name, air_test_fn fn, const char *file)
{
	if (air_test_count == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(99);
	}
	air_test_entries[air_test_count].name = name;
	air_test_entries[air_test_count].fn = fn;
	air_test_entries[air_test_count].file = file;
	air_test_count++;
}

void air_test_set_hooks(air_test_fn setup, air_test_fn teardown)
{
	air_test_setup_hook = setup;
	air_test_teardown_hook = teardown;
}

/* "# " and the formatted text, each of its lines a TAP comment (a value
 * with line breaks in it must not read as TAP). */
static void comment(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	printf("# %s", prefix);
	for (const char *p = text ? text : "(no memory for the message)"; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			printf("# ");
	}
	printf("\n");
	fflush(stdout);
	free(text);
}

void air_test_fail(const char *file, int line, const char *fmt, ...)
{
	char where[4200];
	va_list ap;

	snprintf(where, sizeof(where), "%s:%d: ", file, line);
	va_start(ap, fmt);
	comment(where, fmt, ap);
	va_end(ap);
	/* On stderr too: a failing run's log (meson --print-errorlogs, CI) shows
	 * why without the TAP output. */
	fprintf(stderr, "%s", where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (!air_test_escape) {
		fprintf(stderr, "%s:%d: fatal outside a test\n", file, line);
		exit(1);
	}
	air_test_failed = 1;
	longjmp(*air_test_escape, 1);
}

void air_test_skip(const char *why)
{
	snprintf(air_test_skip_reason, sizeof(air_test_skip_reason), "%s", why);
	if (!air_test_escape) {
		fprintf(stderr, "skipped: %s\n", why);
		exit(77);
	}
	air_test_skipped = 1;
	longjmp(*air_test_escape, 1);
}

void air_test_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	comment("", fmt, ap);
	va_end(ap);
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

