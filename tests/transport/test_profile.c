/* test_profile.c: the ~/.databrickscfg INI reader (lib/profile.c). */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "transport/profile.h"
#include "test.h"

static air__ini *parse_ok(const char *text)
{
	air__ini *ini = NULL;
	air_error *err = NULL;

	ASSERT_OK(air__ini_parse("test.cfg", text, strlen(text), &ini, &err), err);
	ASSERT_NOT_NULL(ini);
	return ini;
}

static void expect_malformed(const char *text, int line)
{
	air__ini *ini = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air__ini_parse("bad.cfg", text, strlen(text), &ini, &err), AIR_EIO);
	ASSERT_NULL(ini);
	ASSERT_NOT_NULL(err);
	ASSERT_EQ_INT(air_error_line(err), line);
	ASSERT_EQ_STR(air_error_file(err), "bad.cfg");
	ASSERT_CONTAINS(air_error_message(err), "bad.cfg");
	{
		char want[32];
		snprintf(want, sizeof(want), "line %d", line);
		ASSERT_CONTAINS(air_error_message(err), want);
	}
	air_error_free(err);
}

AIR_TEST(profile__sections_keys_and_default)
{
	air__ini *ini = parse_ok("host = https://top.example\n"
	                         "[DEFAULT]\n"
	                         "token = dapi-default\n"
	                         "[p1]\n"
	                         "  host   =   https://p1.example  \n"
	                         "token=abc\n"
	                         "[ spaced ]\n"
	                         "k: v\n");

	ASSERT_EQ_STR(air__ini_get(ini, "DEFAULT", "host"), "https://top.example");
	ASSERT_EQ_STR(air__ini_get(ini, "DEFAULT", "token"), "dapi-default");
	ASSERT_EQ_STR(air__ini_get(ini, "p1", "host"), "https://p1.example");
	ASSERT_EQ_STR(air__ini_get(ini, "p1", "token"), "abc");
	ASSERT_EQ_STR(air__ini_get(ini, "spaced", "k"), "v");
	/* No inheritance from DEFAULT. */
	ASSERT_NULL(air__ini_get(ini, "spaced", "token"));
	ASSERT_NULL(air__ini_get(ini, "missing", "host"));
	ASSERT_TRUE(air__ini_has_section(ini, "p1"));
	ASSERT_FALSE(air__ini_has_section(ini, "P1")); /* case-sensitive */
	air__ini_free(ini);
}

AIR_TEST(profile__comments)
{
	air__ini *ini = parse_ok("# full-line comment\n"
	                         "; another\n"
	                         "[p]\n"
	                         "token = abc#123\n"
	                         "host = https://h.example # trailing comment\n"
	                         "user = me ; also a comment\n"
	                         "semi = a;b\n"
	                         "   # indented comment\n");

	ASSERT_EQ_STR(air__ini_get(ini, "p", "token"), "abc#123");
	ASSERT_EQ_STR(air__ini_get(ini, "p", "host"), "https://h.example");
	ASSERT_EQ_STR(air__ini_get(ini, "p", "user"), "me");
	ASSERT_EQ_STR(air__ini_get(ini, "p", "semi"), "a;b");
	air__ini_free(ini);
}

AIR_TEST(profile__duplicates_and_empty_values)
{
	air__ini *ini = parse_ok("[p]\n"
	                         "token = first\n"
	                         "empty =\n"
	                         "[q]\n"
	                         "x = 1\n"
	                         "[p]\n"
	                         "token = second\n");

	ASSERT_EQ_STR(air__ini_get(ini, "p", "token"), "second");
	ASSERT_NULL(air__ini_get(ini, "p", "empty"));
	ASSERT_EQ_STR(air__ini_get(ini, "q", "x"), "1");
	air__ini_free(ini);
}

AIR_TEST(profile__crlf_bom_and_no_final_newline)
{
	air__ini *ini = parse_ok("\xEF\xBB\xBF[p]\r\nhost = https://h\r\ntoken = t");

	ASSERT_EQ_STR(air__ini_get(ini, "p", "host"), "https://h");
	ASSERT_EQ_STR(air__ini_get(ini, "p", "token"), "t");
	air__ini_free(ini);
}

AIR_TEST(profile__value_with_equals_and_colon)
{
	air__ini *ini = parse_ok("[p]\nhost = https://h.example:8443/?o=1\nt: a=b\n");

	ASSERT_EQ_STR(air__ini_get(ini, "p", "host"), "https://h.example:8443/?o=1");
	ASSERT_EQ_STR(air__ini_get(ini, "p", "t"), "a=b");
	air__ini_free(ini);
}

AIR_TEST(profile__malformed_lines_report_line_numbers)
{
	expect_malformed("[p]\nhost = x\njust some words\n", 3);
	expect_malformed("\n\n[unterminated\n", 3);
	expect_malformed("[p]\n= value\n", 2);
	expect_malformed("[]\n", 1);
	expect_malformed("# c\r\n[p]\r\nkey\r\n", 3);
}

AIR_TEST(profile__empty_file)
{
	air__ini *ini = parse_ok("");

	ASSERT_FALSE(air__ini_has_section(ini, "DEFAULT"));
	ASSERT_NULL(air__ini_get(ini, "DEFAULT", "host"));
	air__ini_free(ini);
}

AIR_TEST(profile__load_missing_unreadable_and_good)
{
	const char *dir = air_test_tmpdir();
	char path[512], sub[512];
	air__ini *ini = NULL;
	air_error *err = NULL;

	snprintf(path, sizeof(path), "%s/none.cfg", dir);
	ASSERT_OK(air__ini_load(path, &ini, &err), err);
	ASSERT_NULL(ini);

	snprintf(sub, sizeof(sub), "%s/adir", dir);
	ASSERT_EQ_INT(mkdir(sub, 0700), 0);
	ASSERT_EQ_INT(air__ini_load(sub, &ini, &err), AIR_EIO);
	ASSERT_CONTAINS(air_error_message(err), sub);
	air_error_free(err);
	err = NULL;

	snprintf(path, sizeof(path), "%s/good.cfg", dir);
	air_test_write_file(path, "[x]\nhost = h\n", 13);
	ASSERT_OK(air__ini_load(path, &ini, &err), err);
	ASSERT_EQ_STR(air__ini_get(ini, "x", "host"), "h");
	air__ini_free(ini);

	if (geteuid() != 0) {
		ASSERT_EQ_INT(chmod(path, 0), 0);
		ASSERT_EQ_INT(air__ini_load(path, &ini, &err), AIR_EIO);
		ASSERT_CONTAINS(air_error_message(err), path);
		air_error_free(err);
	}
}

/* A hostile file: 300,000 sections (or keys) are all found, the last one
 * winning. How the cost grows is measured by bench/profile_bench. */
AIR_TEST(profile__huge_numbers_of_sections_and_keys)
{
	enum { N = 300000 };
	air__buf text = AIR__BUF_INIT;
	air__ini *ini;
	char name[32];

	for (int i = 0; i < N; i++)
		air__buf_printf(&text, "[p%d]\n", i);
	air__buf_puts(&text, "[p7]\nhost = https://seven.example\n");
	ASSERT_TRUE(text.len < 4 * 1024 * 1024); /* within the reader's size limit */
	ini = parse_ok(air__buf_cstr(&text));
	ASSERT_TRUE(air__ini_has_section(ini, "p0"));
	ASSERT_TRUE(air__ini_has_section(ini, "p299999"));
	ASSERT_FALSE(air__ini_has_section(ini, "p300000"));
	ASSERT_EQ_STR(air__ini_get(ini, "p7", "host"), "https://seven.example");
	air__ini_free(ini);

	air__buf_clear(&text);
	air__buf_puts(&text, "[many]\n");
	for (int i = 0; i < N; i++)
		air__buf_printf(&text, "k%d=%d\n", i, i);
	air__buf_puts(&text, "k5 = again\n");
	ini = parse_ok(air__buf_cstr(&text));
	ASSERT_EQ_STR(air__ini_get(ini, "many", "k0"), "0");
	ASSERT_EQ_STR(air__ini_get(ini, "many", "k5"), "again");
	snprintf(name, sizeof(name), "k%d", N - 1);
	ASSERT_EQ_STR(air__ini_get(ini, "many", name), "299999");
	ASSERT_NULL(air__ini_get(ini, "many", "k300000"));
	air__ini_free(ini);
	air__buf_dispose(&text);
}
