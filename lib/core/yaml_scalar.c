/*
 * yaml_scalar.c: the YAML rules every writer of YAML in libair follows (the
 * workload emitter in config, the bundle writer in submit): the core-schema
 * type of a plain scalar, when a string may be written plain, and the
 * double-quoted form otherwise. Text written this way reads back as the same
 * string under YAML 1.2 and 1.1 readers alike.
 */
#include "core/core.h"

#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_octal(char c) { return c >= '0' && c <= '7'; }
static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Whether @s is not empty and every character of it is @in_class. */
static bool all_in(const char *s, size_t len, bool (*in_class)(char))
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!in_class(s[i]))
			return false;
	return true;
}

static bool is_one_of(const char *s, size_t len, const char *const *words)
{
	for (; *words; words++)
		if (len == 0 ? (*words)[0] == '\0'
		             : (*words)[0] == s[0] && strlen(*words) == len && !memcmp(*words, s, len))
			return true;
	return false;
}

static bool is_core_int(const char *s, size_t len)
{
	if (len > 2 && s[0] == '0' && s[1] == 'o')
		return all_in(s + 2, len - 2, is_octal);
	if (len > 2 && s[0] == '0' && s[1] == 'x')
		return all_in(s + 2, len - 2, is_hex);
	if (len > 0 && (s[0] == '-' || s[0] == '+'))
		s++, len--;
	return all_in(s, len, is_digit);
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static bool is_core_float(const char *s, size_t len)
{
	static const char *const special[] = {
		".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF",
		".nan", ".NaN", ".NAN", NULL,
	};
	size_t i = 0, digits = 0, frac = 0;

	if (is_one_of(s, len, special))
		return true;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++, frac++;
	}
	if (digits == 0 && frac == 0)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp = 0;
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++, exp++;
		if (exp == 0)
			return false;
	}
	return i == len;
}

air__ytype air__yscalar_resolve(const char *s, size_t len)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const bools[] = {"true", "True", "TRUE", "false", "False", "FALSE", NULL};

	if (len == 0)
		return AIR__YT_NULL;
	/* Only numbers start with these; only the words below (at most 5
	 * characters) with the rest. */
	if (!strchr("0123456789-+.", s[0]) || s[0] == '\0') {
		if (len > 5)
			return AIR__YT_STR;
		if (is_one_of(s, len, nulls))
			return AIR__YT_NULL;
		return is_one_of(s, len, bools) ? AIR__YT_BOOL : AIR__YT_STR;
	}
	if (is_core_int(s, len))
		return AIR__YT_INT;
	if (is_core_float(s, len))
		return AIR__YT_FLOAT;
	return AIR__YT_STR;
}

/* U+0085, U+2028, U+2029 and U+FEFF read as line breaks or BOMs somewhere. */
static size_t special_unicode(const unsigned char *s, size_t left)
{
	if (left >= 2 && s[0] == 0xC2 && s[1] == 0x85)
		return 2;
	if (left >= 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))
		return 3;
	if (left >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		return 3;
	return 0;
}

/* The C1 controls but U+0085 (U+0080 to U+009F): not printable in YAML, so
 * only escaped ("\x9B"); their second byte is the code point. */
static bool c1_control(const unsigned char *s, size_t left)
{
	return left >= 2 && s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F && s[1] != 0x85;
}

/* Words a YAML 1.1 reader (PyYAML, which workloads often use to read
 * hyperparameters.yaml) would take for booleans. */
static bool yaml11_bool(const char *s, size_t len)
{
	static const char *const words[] = {"y", "Y", "n", "N", "yes", "Yes", "YES", "no", "No",
	                                    "NO", "on", "On", "ON", "off", "Off", "OFF"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !memcmp(words[i], s, len))
			return true;
	return false;
}

bool air__yaml_plain_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len == 0 || air__yscalar_resolve(s, len) != AIR__YT_STR || yaml11_bool(s, len))
		return false;
	if (strchr("-?:,[]{}#&*!|>'\"%@` \t+0123456789", s[0]) || s[len - 1] == ' ' ||
	    s[len - 1] == ':' || (s[0] == '.' && len > 1 && s[1] >= '0' && s[1] <= '9') ||
	    (len == 1 && s[0] == '=') || (len == 2 && s[0] == '<' && s[1] == '<'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (u[i] < 0x20 || u[i] == 0x7F || strchr(",[]{}", s[i]) || special_unicode(u + i, len - i) ||
		    c1_control(u + i, len - i))
			return false;
		if ((s[i] == ':' && i + 1 < len && s[i + 1] == ' ') ||
		    (s[i] == ' ' && i + 1 < len && s[i + 1] == '#'))
			return false;
	}
	return true;
}

bool air__yaml_literal_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!memchr(s, '\n', len) || u[0] == ' ' || u[0] == '\t' || u[0] == '\n')
		return false;
	for (size_t i = 0; i < len; i++)
		if ((u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') || u[i] == 0x7F ||
		    special_unicode(u + i, len - i) || c1_control(u + i, len - i))
			return false;
	return true;
}

void air__yaml_put_quoted(air__buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	air__buf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		size_t sp = special_unicode(u + i, len - i);
		if (sp) {
			air__buf_puts(b, sp == 2 ? "\\N" : u[i + 2] == 0xA8 ? "\\L" : u[i + 2] == 0xA9 ? "\\P"
			                                                                               : "\\uFEFF");
			i += sp - 1;
		} else if (s[i] == '"' || s[i] == '\\') {
			air__buf_putc(b, '\\');
			air__buf_putc(b, s[i]);
		} else if (s[i] == '\n') {
			air__buf_puts(b, "\\n");
		} else if (s[i] == '\t') {
			air__buf_puts(b, "\\t");
		} else if (s[i] == '\r') {
			air__buf_puts(b, "\\r");
		} else if (u[i] < 0x20 || u[i] == 0x7F) {
			air__buf_printf(b, "\\x%02X", u[i]);
		} else if (c1_control(u + i, len - i)) {
			air__buf_printf(b, "\\x%02X", u[++i]);
		} else {
			air__buf_putc(b, s[i]);
		}
	}
	air__buf_putc(b, '"');
}
