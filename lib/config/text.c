/*
 * text.c: checks on the raw bytes of a workload before libfyaml sees
 * them. libfyaml 0.7 silently truncates at a NUL byte and drops invalid
 * UTF-8, and one of its error paths corrupts memory (see below).
 */
#include "config/config.h"

#include <string.h>

typedef struct checker {
	const char *name;
	bool positions;
	air_error **err;
} checker;

static int fail_at(const checker *c, int32_t line, int32_t column, const char *fmt, ...)
	AIR__PRINTF(4, 5);

static int fail_at(const checker *c, int32_t line, int32_t column, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int rc;

	if (!c->err)
		return AIR_ECONFIG;
	va_start(ap, fmt);
	msg = air__vsprintf(fmt, ap);
	va_end(ap);
	if (!c->positions)
		line = column = 0;
	rc = air__cfg_fail_at(c->err, c->name, line, column, NULL, "%s", msg ? msg : "");
	air__free(msg);
	return rc;
}

/* The line and column (in characters) of byte @at of @s. */
static void position_of(const unsigned char *s, size_t at, int32_t *line, int32_t *col)
{
	*line = *col = 1;
	for (size_t i = 0; i < at; i++) {
		if (s[i] == '\n')
			++*line, *col = 1;
		else if ((s[i] & 0xC0) != 0x80)
			++*col;
	}
}

/* Whether any byte of the word @w is below 0x20 (but for LF) or above 0x7E.
 * Each test is exact per byte: no carry crosses into the next byte. */
static bool word_has_special(uint64_t w)
{
	const uint64_t low7 = 0x7F7F7F7F7F7F7F7Fu, highs = 0x8080808080808080u;
	const uint64_t ones = 0x0101010101010101u, lf = w ^ (ones * '\n');
	uint64_t below_space = ~(((w & low7) + ones * 0x60) | w) & highs;
	uint64_t is_lf = ~(((lf & low7) + low7) | lf) & highs;
	uint64_t above_tilde = (((w & low7) + ones) | w) & highs;

	return (below_space & ~is_lf) | above_tilde;
}

/* What is wrong with a character that is not printable ASCII, LF, tab or CR. */
typedef enum problem { FINE, NUL_BYTE, CONTROL, BAD_BYTE, BAD_SEQUENCE } problem;

/* Byte @i of @s starts such a character: FINE with *@n its length when it
 * is printable UTF-8; *@cp is the code point (or byte) to name. */
static problem special_char(const unsigned char *s, size_t len, size_t i, size_t *n,
                            uint32_t *cp)
{
	unsigned c = s[i];

	*cp = c;
	if (c == 0)
		return NUL_BYTE;
	if (c < 0x80)
		return CONTROL;
	*n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
	if (*n == 0 || c > 0xF4 || i + *n > len)
		return BAD_BYTE;
	*cp = c & (0x7Fu >> *n);
	for (size_t k = 1; k < *n; k++) {
		if ((s[i + k] & 0xC0) != 0x80)
			return BAD_SEQUENCE;
		*cp = (*cp << 6) | (s[i + k] & 0x3F);
	}
	if ((*n == 3 && *cp < 0x800) || (*n == 4 && (*cp < 0x10000 || *cp > 0x10FFFF)) ||
	    (*cp >= 0xD800 && *cp <= 0xDFFF))
		return BAD_SEQUENCE;
	if ((*cp >= 0x80 && *cp <= 0x9F && *cp != 0x85) || *cp == 0xFFFE || *cp == 0xFFFF)
		return CONTROL;
	return FINE;
}

static int fail_char(const checker *ck, const unsigned char *s, size_t at, problem p,
                     uint32_t cp)
{
	int32_t line, col;

	position_of(s, at, &line, &col);
	switch (p) {
	case NUL_BYTE:
		return fail_at(ck, line, col, "NUL byte in the input (binary data is not YAML)");
	case CONTROL:
		return fail_at(ck, line, col, "control character U+%04X is not allowed in YAML",
		               (unsigned)cp);
	case BAD_BYTE:
		return fail_at(ck, line, col, "invalid UTF-8 byte 0x%02X", (unsigned)cp);
	default:
		return fail_at(ck, line, col, "invalid UTF-8 sequence");
	}
}

/* Valid UTF-8, no NUL, only YAML-printable characters (tab, LF, CR,
 * U+0020..U+007E, U+0085, U+00A0.., no surrogates, no U+FFFE/U+FFFF).
 * Eight bytes at a time while they are printable ASCII; the position is
 * counted only for an error. */
static int check_text(const checker *ck, const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c;
		uint32_t cp;
		size_t n = 1;
		problem p;

		if (len - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!word_has_special(w)) {
				i += 8;
				continue;
			}
		}
		c = s[i];
		if ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if ((p = special_char(s, len, i, &n, &cp)) != FINE)
			return fail_char(ck, s, i, p, cp);
		i += n;
	}
	return 0;
}

/* libfyaml 0.7.12 corrupts its list of indentation levels (a use after free
 * in fy_parser_destroy) after reporting "cannot use tab for indentation of
 * block entry" inside an explicit '?' key. Refuse what leads there before
 * parsing: an explicit key in block context together with a tab right
 * before an indicator (':', '?', '|', '>', "- "). Files without tabs, or
 * without explicit keys, are never affected. */
static bool explicit_key_line(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] == ' ')
		i++;
	/* Indicators that may precede a key on its line: "- ", "? ", ": ". */
	while (i < len && s[i] && strchr("-?:", s[i])) {
		bool blank_after = i + 1 == len || strchr(" \t\r\n", s[i + 1]);
		if (!blank_after)
			return false;
		if (s[i] == '?')
			return true;
		for (i++; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
			;
	}
	return false;
}

static int check_tab_before_indicator(const checker *ck, const char *s, size_t len)
{
	bool explicit_key = false;
	int32_t line = 1, col = 1, tab_line = 0, tab_col = 0;

	if (!memchr(s, '\t', len))
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (i == 0 || s[i - 1] == '\n')
			explicit_key |= explicit_key_line(s, i, len);
		if (s[i] == '\t' && !tab_line) {
			size_t j = i;
			while (j < len && (s[j] == ' ' || s[j] == '\t'))
				j++;
			if (j < len && (strchr(":?|>", s[j]) ||
			                (s[j] == '-' && (j + 1 == len || strchr(" \t\r\n", s[j + 1]))))) {
				tab_line = line;
				tab_col = col;
			}
		}
		if (s[i] == '\n')
			line++, col = 1;
		else if (((unsigned char)s[i] & 0xC0) != 0x80)
			col++;
	}
	if (explicit_key && tab_line)
		return fail_at(ck, tab_line, tab_col,
		               "a tab before an indicator (':', '?', '|', '>', '-') in a file with "
		               "explicit '?' keys cannot be parsed safely; use spaces");
	return 0;
}

int air__yaml_check_text(const char *data, size_t len, const char *name, air_error **err)
{
	checker c = {name, name != NULL, err};

	return check_text(&c, (const unsigned char *)data, len);
}

int air__yaml_check_input(const char *data, size_t len, const char *name, bool positions,
                          air_error **err)
{
	checker c = {name, positions, err};
	int rc = check_text(&c, (const unsigned char *)data, len);

	return rc ? rc : check_tab_before_indicator(&c, data, len);
}
