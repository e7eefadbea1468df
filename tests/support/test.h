/*
 * test.h: a small TAP test harness for libair's C tests.
 *
 *     AIR_TEST(config__rejects_empty_file) { ... ASSERT_EQ_INT(rc, AIR_ECONFIG); ... }
 *
 * Tests register themselves; test_main.c runs them in file order and prints
 * TAP ("ok 3 - config__rejects_empty_file"), which `meson test` reads with
 * protocol: 'tap'. A failed assertion prints a diagnostic and leaves the test
 * at once (longjmp); later tests still run. Run one test with
 * `./test_x NAME` or a prefix with `./test_x PREFIX*`.
 * Name tests <module>__<case>.
 */
#ifndef AIR_TEST_H
#define AIR_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*air_test_fn)(void);

void air_test_register(const char *name, air_test_fn fn, const char *file);
/* Hooks run around every test of the binary (at most one of each). */
void air_test_set_hooks(air_test_fn setup, air_test_fn teardown);
__attribute__((noreturn)) void air_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void air_test_skip(const char *why);   /* marks the running test as skipped and leaves it */
void air_test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Source root of the project (from the AIR_SOURCE_ROOT env var or the build). */
const char *air_test_source_root(void);
/* A fresh empty directory under the build's tmp area; removed at exit. */
const char *air_test_tmpdir(void);
/* Read a whole file; returns malloc'ed NUL-terminated data or NULL. */
char *air_test_read_file(const char *path, size_t *len);
/* Write a file (creating parent directories); aborts the test on failure. */
void air_test_write_file(const char *path, const char *data, size_t len);

#define AIR_TEST(name)                                                        \
	static void test_##name(void);                                        \
	__attribute__((constructor)) static void register_##name(void)        \
	{                                                                     \
		air_test_register(#name, test_##name, __FILE__);              \
	}                                                                     \
	static void test_##name(void)

#define AIR_TEST_HOOKS(setup, teardown)                                       \
	__attribute__((constructor)) static void register_hooks_(void)        \
	{                                                                     \
		air_test_set_hooks(setup, teardown);                          \
	}

#define FAIL(...) air_test_fail(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT_TRUE(c)                                                        \
	do {                                                                  \
		if (!(c))                                                     \
			FAIL("assertion failed: %s", #c);                     \
	} while (0)
#define ASSERT_FALSE(c) ASSERT_TRUE(!(c))

#define ASSERT_EQ_INT(a, b)                                                   \
	do {                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_)                                                 \
			FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);       \
	} while (0)

#define ASSERT_NE_INT(a, b)                                                   \
	do {                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ == b_)                                                 \
			FAIL("%s != %s: both %lld", #a, #b, a_);              \
	} while (0)

#define ASSERT_EQ_STR(a, b)                                                   \
	do {                                                                  \
		const char *a_ = (a), *b_ = (b);                              \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                        \
			FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b,            \
			     a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
	} while (0)

#define ASSERT_CONTAINS(hay, needle)                                          \
	do {                                                                  \
		const char *h_ = (hay), *n_ = (needle);                       \
		if (!h_ || !strstr(h_, n_))                                   \
			FAIL("%s does not contain \"%s\": \"%s\"", #hay, n_,  \
			     h_ ? h_ : "(null)");                             \
	} while (0)

#define ASSERT_NOT_CONTAINS(hay, needle)                                      \
	do {                                                                  \
		const char *h_ = (hay), *n_ = (needle);                       \
		if (h_ && strstr(h_, n_))                                     \
			FAIL("%s contains \"%s\": \"%s\"", #hay, n_, h_);     \
	} while (0)

#define ASSERT_NULL(p)                                                        \
	do {                                                                  \
		if ((p) != NULL)                                              \
			FAIL("%s is not NULL", #p);                           \
	} while (0)

#define ASSERT_NOT_NULL(p)                                                    \
	do {                                                                  \
		if ((p) == NULL)                                              \
			FAIL("%s is NULL", #p);                               \
	} while (0)

/* rc must be AIR_OK; on failure print the error's message. */
#define ASSERT_OK(rc, err)                                                    \
	do {                                                                  \
		int rc_ = (rc);                                               \
		if (rc_ != 0)                                                 \
			FAIL("%s failed: %d %s", #rc, rc_,                    \
			     (err) ? air_error_message(err) : "(no error object)"); \
	} while (0)

#endif /* AIR_TEST_H */
