/* output.c: envelopes, JSON lines, error lines, time formatting and the
 * cleaning of server-supplied text for the terminal. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int cli_error(const char *fmt, ...)
{
	va_list ap;

	/* What was printed before the error comes before it, also when both
	 * streams go to one file or pipe. */
	fflush(stdout);
	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static bool json_output;

void cli_set_json_output(bool on) { json_output = on; }

static char target_flags[160];

void cli_set_target(const cli_globals *g)
{
	const char *p = g->profile;

	target_flags[0] = '\0';
	if (g->local)
		snprintf(target_flags, sizeof(target_flags), " --local");
	else if (p && *p && strlen(p) < sizeof(target_flags) - 8 &&
	         strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	             strlen(p))
		snprintf(target_flags, sizeof(target_flags), " -p %s", p);
	else if (p && *p && !strchr(p, '\'') && strlen(p) < sizeof(target_flags) - 8)
		snprintf(target_flags, sizeof(target_flags), " -p '%s'", cli_clean(p));
}

const char *cli_target_flags(void) { return target_flags; }

/* The library names the option at fault in the error's field; the flag
 * that sets it is the CLI's to say. */
const char *cli_flag_hint(const air_error *err)
{
	static const struct {
		const char *field, *hint;
	} hints[] = {
		{"profile", "pass --profile NAME"},
		{"artifact", "name it explicitly with --artifact NAME[:TAG]"},
	};
	const char *field = err ? air_error_field(err) : NULL;

	for (size_t i = 0; field && i < sizeof(hints) / sizeof(hints[0]); i++)
		if (!strcmp(field, hints[i].field))
			return hints[i].hint;
	return NULL;
}

char *cli_air_message(const air_error *err, int rc, const char *hint)
{
	const char *msg = err ? air_error_message(err) : air_strerror(rc);
	char *out;

	if (!hint)
		hint = cli_flag_hint(err);
	if (asprintf(&out, "%s%s%s", msg, hint ? "; " : "", hint ? hint : "") < 0)
		return NULL;
	return out;
}

int cli_error_air_hint(const air_error *err, int rc, const char *hint)
{
	char *msg;

	if (rc == AIR_EINTERRUPTED || cli_interrupted())
		return cli_report_interrupted();
	msg = cli_air_message(err, rc, hint);
	/* Messages quote the server: cleaned for the terminal. */
	cli_error("%s", msg ? cli_clean_lines(msg) : air_strerror(rc));
	free(msg);
	if (!json_output)
		cli_print_access_hint(err);
	return 1;
}

int cli_error_air(const air_error *err, int rc) { return cli_error_air_hint(err, rc, NULL); }

void cli_now_rfc3339(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *envelope_head(void)
{
	char ts[32];
	json_t *env = json_object();

	cli_now_rfc3339(ts);
	json_object_set_new(env, "v", json_integer(1));
	json_object_set_new(env, "ts", json_string(ts));
	return env;
}

static void print_pretty(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	fflush(stdout);
}

int cli_print_data(json_t *data)
{
	json_t *env = envelope_head();

	json_object_set_new(env, "data", data ? data : json_object());
	print_pretty(env);
	json_decref(env);
	return 0;
}

int cli_print_error_envelope(const char *code, const char *kind, const char *message,
                             bool retryable)
{
	json_t *env = envelope_head(), *e = json_object();

	json_object_set_new(e, "code", json_string(code));
	json_object_set_new(e, "kind", json_string(kind));
	json_object_set_new(e, "message", json_string(message ? message : ""));
	json_object_set_new(e, "retryable", json_boolean(retryable));
	json_object_set_new(env, "error", e);
	print_pretty(env);
	json_decref(env);
	return 1;
}

#define RULE_WIDTH 60

void cli_print_rule(const char *label)
{
	size_t n = strlen(label), left = n < RULE_WIDTH ? (RULE_WIDTH - n) / 2 : 0;
	size_t right = n < RULE_WIDTH ? RULE_WIDTH - n - left : 0;

	for (size_t i = 0; i < left; i++)
		putchar('=');
	fputs(label, stdout);
	for (size_t i = 0; i < right; i++)
		putchar('=');
	putchar('\n');
}

void cli_print_jsonl(json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	fflush(stdout);
	json_decref(obj);
}

json_t *cli_json_time(int64_t epoch_ms)
{
	time_t secs;
	struct tm tm;
	char buf[64];
	int64_t frac_us;

	if (epoch_ms <= 0)
		return json_null();
	secs = (time_t)(epoch_ms / 1000);
	frac_us = (epoch_ms % 1000) * 1000;
	gmtime_r(&secs, &tm);
	if (frac_us) {
		char head[32];
		strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, sizeof(buf), "%s.%06lld+00:00", head, (long long)frac_us);
	} else {
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	}
	return json_string(buf);
}

int64_t cli_duration_s(int64_t start_ms, int64_t end_ms)
{
	int64_t ms = (end_ms > 0 ? end_ms : (int64_t)time(NULL) * 1000) - start_ms;
	int64_t q = ms / 1000, r = ms % 1000;

	if (r > 500 || (r == 500 && (q % 2) != 0))
		q++;
	return q;
}

void cli_format_duration(int64_t seconds, char *out, size_t n)
{
	int64_t h, m, s;

	if (seconds < 0)
		seconds = 0;
	h = seconds / 3600;
	m = (seconds % 3600) / 60;
	s = seconds % 60;
	if (h)
		snprintf(out, n, "%lldh %lldm %llds", (long long)h, (long long)m, (long long)s);
	else if (m)
		snprintf(out, n, "%lldm %llds", (long long)m, (long long)s);
	else
		snprintf(out, n, "%llds", (long long)s);
}

void cli_format_utc_minutes(int64_t epoch_ms, char *out, size_t n)
{
	time_t secs = (time_t)(epoch_ms / 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(out, n, "%Y-%m-%d %H:%M UTC", &tm);
}

void cli_format_local_iso(int64_t epoch_ms, char *out, size_t n)
{
	time_t secs = (time_t)(epoch_ms / 1000);
	struct tm tm;
	char head[32];
	long off;

	localtime_r(&secs, &tm);
	strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff;
	snprintf(out, n, "%s%c%02ld:%02ld", head, off < 0 ? '-' : '+', labs(off) / 3600,
	         (labs(off) % 3600) / 60);
}

bool cli_isatty_stderr(void) { return isatty(STDERR_FILENO) == 1; }

bool cli_isatty_stdout(void) { return isatty(STDOUT_FILENO) == 1; }

void cli_buffer_stdout(void)
{
	/* Given, not asked for by size: glibc ignores the size of a buffer it
	 * is to allocate (and takes the file's block size, 4 KiB). */
	static char buffer[(size_t)1 << 20];

	/* A terminal keeps its line buffering; a file or a pipe gets large
	 * writes (a million log lines are a few writes, not hundreds). */
	if (!cli_isatty_stdout())
		setvbuf(stdout, buffer, _IOFBF, sizeof(buffer));
}

/* ---- standard output ---- */

/* The errno of the first failed write to stdout seen, 0 when none. */
static int stdout_errno;

bool cli_stdout_failed(void)
{
	if (!ferror(stdout))
		return false;
	if (!stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return true;
}

int cli_finish_stdout(int rc)
{
	int e = fflush(stdout) != 0 ? errno : 0;

	if (!cli_stdout_failed())
		return rc;
	/* what the output misses makes the command fail, whatever it was */
	fprintf(stderr, "Error: writing standard output: %s\n", strerror(e ? e : stdout_errno));
	return rc ? rc : 1;
}

/* ---- terminal safety ---- */

/* Length of the well-formed UTF-8 sequence at @p (@n bytes left) and its
 * code point, or 0 when it is not one. */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
	             : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	uint32_t v;

	if (len == 0 || len > n)
		return 0;
	v = len == 1 ? p[0] : p[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3F);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
		return 0;
	*cp = v;
	return len;
}

/* Code points a terminal acts on instead of showing. */
static bool unsafe(uint32_t cp, bool keep_newlines)
{
	if (cp == '\n')
		return !keep_newlines;
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x061C ||
	       cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Whether @len bytes of @s need cleaning. */
static bool needs_cleaning(const char *s, size_t len, bool keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(p + i, len - i, &cp);

		if (n == 0 || unsafe(cp, keep_newlines))
			return true;
		i += n;
	}
	return false;
}

char *cli_clean_dup(const char *s, size_t len, bool keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(len + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(p + i, len - i, &cp);

		if (n == 0 || unsafe(cp, keep_newlines)) {
			*o++ = '?'; /* never longer than the input: a sequence becomes one byte */
			i += n ? n : 1;
		} else {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		}
	}
	*o = '\0';
	return out;
}

static char **cleaned;
static size_t ncleaned;

static const char *clean(const char *s, bool keep_newlines)
{
	char *copy, **grown;

	if (!s || !needs_cleaning(s, strlen(s), keep_newlines))
		return s;
	if (!(copy = cli_clean_dup(s, strlen(s), keep_newlines)))
		return "?";
	if (!(grown = realloc(cleaned, (ncleaned + 1) * sizeof(*grown)))) {
		free(copy);
		return "?";
	}
	cleaned = grown;
	cleaned[ncleaned++] = copy;
	return copy;
}

const char *cli_clean(const char *s) { return clean(s, false); }

const char *cli_clean_lines(const char *s) { return clean(s, true); }

void cli_clean_release(void)
{
	for (size_t i = 0; i < ncleaned; i++)
		free(cleaned[i]);
	free(cleaned);
	cleaned = NULL;
	ncleaned = 0;
}
