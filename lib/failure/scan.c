/*
 * scan.c: the excerpt of a failure report, found in one pass over the tail
 * of a log with memory bounded by the excerpt size:
 *
 * - a traceback starts at a line ending with "Traceback (most recent call
 *   last):"; what precedes the marker is its prefix (a process tag such as
 *   "[rank0]: ", or nothing), which its other lines carry too. Indented
 *   lines after the prefix are its frames and code; the first line that is
 *   not indented and reads as an exception ("ValueError: bad") ends it.
 *   Lines of other processes in between are passed over; a traceback that
 *   gets no line of its own for AIR__FAILURE_MAX_STRAY lines is given up.
 *   Of chained exceptions ("During handling of the above exception ...")
 *   each traceback starts anew: the last complete one wins. Only its first
 *   line and its newest lines are kept, so a traceback of any length ends
 *   with its exception line.
 * - else the first line an alert pattern matches, with up to
 *   AIR__FAILURE_ALERT_CONTEXT lines on each side;
 * - else the last AIR__FAILURE_TAIL lines.
 */
#include "failure/failure.h"

#include <string.h>

static const char marker[] = "Traceback (most recent call last):";

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static bool ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

bool air__exception_line(const char *s, size_t n)
{
	static const char *const suffixes[] = {"Error", "Exception", "Interrupt", "Exit",
	                                       "Iteration"};
	size_t i = 0, last = 0;

	/* A dotted name: pkg.mod.Name */
	for (;;) {
		if (i >= n || !ident_start(s[i]))
			return false;
		last = i;
		while (i < n && ident_char(s[i]))
			i++;
		if (i < n && s[i] == '.' && i + 1 < n && ident_start(s[i + 1])) {
			i++;
			continue;
		}
		break;
	}
	/* Exception classes are named in CamelCase ("x.py: line 3" is none). */
	if (!(s[last] >= 'A' && s[last] <= 'Z') && s[last] != '_')
		return false;
	/* "Name: message" (Python writes ": " before the message) */
	if (i + 1 < n && s[i] == ':' && s[i + 1] == ' ')
		return true;
	if (!blank(s + i, n - i))
		return false;
	/* A bare name (an exception without a message): only the usual names. */
	for (size_t k = 0; k < AIR__ARRAY_SIZE(suffixes); k++) {
		size_t sl = strlen(suffixes[k]);
		if (i - last >= sl && !memcmp(s + i - sl, suffixes[k], sl))
			return true;
	}
	return false;
}

/* ---- one traceback ------------------------------------------------------------------ */

static void tb_init(air__traceback *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	air__lines_init(&t->head, 1);
	air__lines_init(&t->body, max > 1 ? max - 1 : 1);
}

static void tb_dispose(air__traceback *t)
{
	air__lines_dispose(&t->head);
	air__lines_dispose(&t->body);
	air__free(t->prefix);
	t->prefix = NULL;
}

static void tb_reset(air__traceback *t)
{
	air__lines_clear(&t->head);
	air__lines_clear(&t->body);
	air__free(t->prefix);
	t->prefix = NULL;
	t->prefix_len = 0;
	t->frame = t->complete = false;
	t->stray = 0;
}

/* Where @s holds the marker with only white space after it: its prefix length. */
static bool traceback_start(const char *s, size_t n, size_t *prefix)
{
	const char *m = memmem(s, n, marker, sizeof(marker) - 1);
	size_t end;

	if (!m)
		return false;
	end = (size_t)(m - s) + sizeof(marker) - 1;
	if (!blank(s + end, n - end))
		return false;
	*prefix = (size_t)(m - s);
	return true;
}

static int tb_begin(air__scan *s, const char *line, size_t len, size_t prefix)
{
	tb_reset(&s->cur);
	s->open = true;
	if (!(s->cur.prefix = air__strndup(line, prefix)))
		return AIR_ENOMEM;
	s->cur.prefix_len = prefix;
	return air__lines_push(&s->cur.head, line, len);
}

static bool is_frame(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	return n > 6 && !memcmp(s, "File \"", 6);
}

/* A line while a traceback is open: one of its own, or another's. */
static int tb_line(air__scan *s, const char *line, size_t len)
{
	air__traceback *t = &s->cur;
	const char *rest = line + t->prefix_len;
	size_t n = len - t->prefix_len;
	int rc;

	if (len >= t->prefix_len && !memcmp(line, t->prefix, t->prefix_len)) {
		if (blank(rest, n))
			return AIR_OK;
		if (*rest == ' ' || *rest == '\t') {
			t->stray = 0;
			t->frame = t->frame || is_frame(rest, n);
			return air__lines_push(&t->body, line, len);
		}
		if (t->frame && air__exception_line(rest, n)) {
			if ((rc = air__lines_push(&t->body, line, len)) != AIR_OK)
				return rc;
			/* Complete: it becomes the last traceback. */
			t->complete = true;
			s->open = false;
			{
				air__traceback done = s->last;
				s->last = s->cur;
				s->cur = done;
			}
			tb_reset(&s->cur);
			return AIR_OK;
		}
	}
	if (++t->stray > AIR__FAILURE_MAX_STRAY)
		s->open = false; /* given up; kept in case no traceback completes */
	return AIR_OK;
}

/* ---- the scanner ----------------------------------------------------------------------- */

static size_t alert_before(size_t max)
{
	return max - 1 < AIR__FAILURE_ALERT_CONTEXT ? max - 1 : AIR__FAILURE_ALERT_CONTEXT;
}

static size_t alert_after(size_t max)
{
	size_t room = max - 1 - alert_before(max);
	return room < AIR__FAILURE_ALERT_CONTEXT ? room : AIR__FAILURE_ALERT_CONTEXT;
}

void air__scan_init(air__scan *s, size_t max_lines)
{
	memset(s, 0, sizeof(*s));
	s->max = max_lines < 2 ? 2 : max_lines;
	air__lines_init(&s->tail, s->max < AIR__FAILURE_TAIL ? s->max : AIR__FAILURE_TAIL);
	air__lines_init(&s->before, alert_before(s->max));
	air__lines_init(&s->alert, s->max);
	tb_init(&s->cur, s->max);
	tb_init(&s->last, s->max);
}

void air__scan_dispose(air__scan *s)
{
	air__lines_dispose(&s->tail);
	air__lines_dispose(&s->before);
	air__lines_dispose(&s->alert);
	tb_dispose(&s->cur);
	tb_dispose(&s->last);
}

/* The first alert line, the lines before it and those after it. */
static int alert_line(air__scan *s, const char *line, size_t len)
{
	int32_t p;
	int rc;

	if (s->alert_pattern > 0) {
		if (s->alert_after == 0)
			return AIR_OK;
		s->alert_after--;
		return air__lines_push(&s->alert, line, len);
	}
	if ((p = air_log_match_alert(line, len)) == 0)
		return air__lines_push(&s->before, line, len);
	s->alert_pattern = p;
	s->alert_after = alert_after(s->max);
	if ((rc = air__lines_append(&s->alert, &s->before)) != AIR_OK)
		return rc;
	air__lines_dispose(&s->before);
	return air__lines_push(&s->alert, line, len);
}

int air__scan_line(air__scan *s, const char *line, size_t len)
{
	size_t prefix;
	int rc;

	s->lines++;
	if ((rc = air__lines_push(&s->tail, line, len)) != AIR_OK ||
	    (rc = alert_line(s, line, len)) != AIR_OK)
		return rc;
	if (traceback_start(line, len, &prefix))
		return tb_begin(s, line, len, prefix);
	return s->open ? tb_line(s, line, len) : AIR_OK;
}

/* The alert pattern of an excerpt: its last line's (a traceback's
 * exception), else its first line that matches one. */
static int32_t label_of(const air__lines *l)
{
	size_t len;
	const char *t = l->n ? air__lines_at(l, l->n - 1, &len) : NULL;
	int32_t p = t ? air_log_match_alert(t, len) : 0;

	for (size_t i = 0; p == 0 && i < l->n; i++) {
		t = air__lines_at(l, i, &len);
		p = air_log_match_alert(t, len);
	}
	return p;
}

int32_t air__scan_result(const air__scan *s, air__lines *out, int64_t *omitted,
                         int32_t *pattern)
{
	/* The last complete traceback; else one that never completed (cut
	 * short, or an exception line of a form not recognised). */
	const air__traceback *t = s->last.complete ? &s->last
	                          : s->cur.frame && s->cur.head.n ? &s->cur : NULL;
	int32_t kind;
	int rc;

	*omitted = 0;
	*pattern = 0;
	if (t) {
		kind = AIR_EXCERPT_TRACEBACK;
		rc = air__lines_append(out, &t->head);
		if (rc == AIR_OK)
			rc = air__lines_append(out, &t->body);
		*omitted = t->body.dropped;
		*pattern = label_of(&t->body);
	} else if (s->alert_pattern > 0) {
		kind = AIR_EXCERPT_ALERT;
		rc = air__lines_append(out, &s->alert);
		*pattern = s->alert_pattern;
	} else if (s->tail.n > 0) {
		kind = AIR_EXCERPT_TAIL;
		rc = air__lines_append(out, &s->tail);
	} else {
		return AIR_EXCERPT_NONE;
	}
	return rc == AIR_OK ? kind : AIR_ENOMEM;
}
