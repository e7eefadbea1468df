/* error.c: config errors that name the field and the source position. */
#include "config/config.h"

#include <stdio.h>
#include <string.h>

/* The error: "<shown>:<line>:<col>: <field>: <problem>" (@shown names the
 * source in the message, @file is its position's file). */
static int fail_v(air_error **err, const char *shown, const char *file, int32_t line,
                  int32_t column, const char *field, const char *fmt, va_list ap)
{
	air_error *e;
	char *problem;

	if (!err) /* nobody wants the text */
		return AIR_ECONFIG;
	problem = air__vsprintf(fmt, ap);
	if (!problem)
		return air__fail(err, air__error_new(AIR_ENOMEM, 0, "out of memory"));
	if (shown && line > 0)
		e = air__error_new(AIR_ECONFIG, 0, "%s:%d:%d: %s%s%s", shown, (int)line, (int)column,
		                   field ? field : "", field ? ": " : "", problem);
	else
		e = air__error_new(AIR_ECONFIG, 0, "%s%s%s%s%s", shown ? shown : "", shown ? ": " : "",
		                   field ? field : "", field ? ": " : "", problem);
	air__free(problem);
	air__error_set_field(e, field);
	air__error_set_position(e, file, line, column);
	return air__fail(err, e);
}

int air__cfg_fail(air_error **err, const char *file, const air__ynode *at, const char *field,
                  const char *fmt, ...)
{
	va_list ap;
	char *shown = NULL;
	int rc;

	/* A node without a position is an override's value: the file alone
	 * would blame a text that does not hold it. */
	if (file && at && at->line == 0 && !(shown = air__sprintf("%s (overridden)", file)))
		return air__oom(err);
	va_start(ap, fmt);
	rc = fail_v(err, shown ? shown : file, file, at ? at->line : 0, at ? at->column : 0, field,
	            fmt, ap);
	va_end(ap);
	air__free(shown);
	return rc;
}

int air__cfg_fail_at(air_error **err, const char *file, int32_t line, int32_t column,
                     const char *field, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = fail_v(err, file, file, line, column, field, fmt, ap);
	va_end(ap);
	return rc;
}

/* Longest value shown in a message; longer ones end in "...". */
#define QUOTE_MAX 64

const char *air__cfg_quote(char *out, size_t cap, const char *s, size_t len)
{
	size_t o = 0, limit = len;
	bool cut = false;

	if (cap < 8) {
		if (cap)
			out[0] = '\0';
		return out;
	}
	if (limit > QUOTE_MAX) {
		limit = air__utf8_cut(s, len, QUOTE_MAX);
		cut = true;
	}
	out[o++] = '"';
	for (size_t i = 0; i < limit; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		size_t n;

		if (c == '"' || c == '\\')
			n = (size_t)snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			n = (size_t)snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			n = (size_t)snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c == 0x7F)
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02X", c);
		else
			esc[0] = (char)c, n = 1;
		/* Reserve room for a whole UTF-8 sequence so that none is split. */
		size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : n;
		if (o + need + 5 > cap) {
			cut = true;
			break;
		}
		memcpy(out + o, esc, n);
		o += n;
	}
	if (cut) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}
