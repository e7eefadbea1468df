/*
 * redact.c: a node's output scrubbed of the run's secret values as a byte
 * stream, before it is cut into records (records.c). A value is found
 * wherever it is, across lines and across reads: the bytes that could still
 * be the start of a value wait for the next ones, and every byte that
 * belongs to an occurrence (overlapping occurrences of several values
 * merged) becomes one "[REDACTED]". An occurrence that reaches into the
 * bytes kept for the next read is replaced at once, and its bytes there are
 * kept as the start of the next read's (matched again, never written), so
 * that output made of occurrences without end goes out as it comes.
 *
 * Each value is looked for in the forms a program is likely to print it:
 * as it is, with its line endings as LF, as CRLF or as lone CR (a file
 * that went through `tr '\n' '\r'` or an old Mac tool), and each of these
 * without surrounding white space (a value read from a file usually ends
 * with a newline that `$(cat ...)` or strip() drops). Forms shorter than
 * AIR__LOCAL_MIN_SECRET bytes are not looked for: a local run refuses such
 * a secret (secrets.c).
 */
#include "local/local_priv.h"

#include <string.h>

#define REPLACEMENT "[REDACTED]"

struct air__lredact {
	char **pat;      /* the forms of every value, without duplicates */
	size_t *len;
	size_t n;
	size_t longest;
};

void air__lredact_free(air__lredact *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		explicit_bzero(r->pat[i], r->len[i]);
		air__free(r->pat[i]);
	}
	air__free(r->pat);
	air__free(r->len);
	air__free(r);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

size_t air__lredact_significant(const char *v, size_t n, const char **start)
{
	while (n > 0 && is_space(v[n - 1]))
		n--;
	while (n > 0 && is_space(*v)) {
		v++;
		n--;
	}
	if (start)
		*start = v;
	return n;
}

size_t air__lredact_shortest(const char *v, size_t n)
{
	const char *start;
	size_t m = air__lredact_significant(v, n, &start), len = m;

	for (size_t i = 0; i + 1 < m; i++)
		if (start[i] == '\r' && start[i + 1] == '\n')
			len--;
	return len;
}

/* Add @v (@n bytes) unless it is too short or already there. */
static int add_form(air__lredact *r, const char *v, size_t n)
{
	char **pat;
	size_t *len;

	if (n < AIR__LOCAL_MIN_SECRET)
		return AIR_OK;
	for (size_t i = 0; i < r->n; i++)
		if (r->len[i] == n && !memcmp(r->pat[i], v, n))
			return AIR_OK;
	if (!(pat = air__realloc(r->pat, (r->n + 1) * sizeof(*pat))))
		return AIR_ENOMEM;
	r->pat = pat;
	if (!(len = air__realloc(r->len, (r->n + 1) * sizeof(*len))))
		return AIR_ENOMEM;
	r->len = len;
	if (!(r->pat[r->n] = air__strndup(v, n)))
		return AIR_ENOMEM;
	r->len[r->n++] = n;
	if (n > r->longest)
		r->longest = n;
	return AIR_OK;
}

/* @v with its line endings rewritten: every CRLF, lone LF and lone CR
 * becomes @eol. */
static void with_line_endings(const char *v, size_t n, const char *eol, air__buf *out)
{
	air__buf_clear(out);
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '\r' && i + 1 < n && v[i + 1] == '\n')
			continue; /* the LF that follows writes the ending */
		if (v[i] == '\n' || v[i] == '\r')
			air__buf_puts(out, eol);
		else
			air__buf_putc(out, v[i]);
	}
}

/* A form and the same without surrounding white space. */
static int add_forms(air__lredact *r, const char *v, size_t n)
{
	const char *start;
	size_t m = air__lredact_significant(v, n, &start);
	int rc = add_form(r, v, n);

	return rc == AIR_OK ? add_form(r, start, m) : rc;
}

void air__lsecrets_wipe(json_t *secrets)
{
	const char *name;
	json_t *v;

	json_object_foreach(secrets, name, v)
		explicit_bzero((char *)json_string_value(v), json_string_length(v));
	json_decref(secrets);
}

int air__lredact_new(const json_t *secrets, air__lredact **out)
{
	static const char *const line_endings[] = {"\n", "\r\n", "\r"};
	air__lredact *r = air__calloc(1, sizeof(*r));
	air__buf form = AIR__BUF_INIT;
	const char *name;
	json_t *v;
	int rc = r ? AIR_OK : AIR_ENOMEM;

	json_object_foreach((json_t *)secrets, name, v) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		bool lines = s && (memchr(s, '\n', n) || memchr(s, '\r', n));

		if (rc != AIR_OK || !s)
			continue;
		rc = add_forms(r, s, n);
		for (size_t e = 0; lines && rc == AIR_OK && e < AIR__ARRAY_SIZE(line_endings); e++) {
			with_line_endings(s, n, line_endings[e], &form);
			rc = air__buf_oom(&form) ? AIR_ENOMEM : add_forms(r, form.ptr, form.len);
		}
	}
	if (form.ptr)
		explicit_bzero(form.ptr, form.cap); /* a longer form may have been there */
	air__buf_dispose(&form);
	if (rc != AIR_OK) {
		air__lredact_free(r);
		r = NULL;
	}
	*out = r;
	return rc;
}

/* The first occurrence of form @k in @s (@n bytes) at or after @from, or n. */
static size_t find(const air__lredact *r, size_t k, const char *s, size_t n, size_t from)
{
	const char *hit = from < n ? memmem(s + from, n - from, r->pat[k], r->len[k]) : NULL;

	return hit ? (size_t)(hit - s) : n;
}

/* Where the bytes that could still begin a form start: the smallest p such
 * that s[p..n) is a proper prefix of a form (n when there is none). */
static size_t pending_start(const air__lredact *r, const char *s, size_t n)
{
	size_t best = n;

	for (size_t k = 0; k < r->n; k++) {
		size_t p = n >= r->len[k] ? n - r->len[k] + 1 : 0;

		while (p < best) {
			const char *c = memchr(s + p, r->pat[k][0], n - p);

			if (!c || (size_t)(c - s) >= best)
				break;
			p = (size_t)(c - s);
			if (!memcmp(s + p, r->pat[k], n - p)) {
				best = p;
				break;
			}
			p++;
		}
	}
	return best;
}

void air__lredact_step(const air__lredact *r, air__buf *raw, size_t *redacted, air__buf *out,
                       bool final)
{
	const char *s = raw->ptr;
	size_t n = raw->len, cut, done = 0, left = 0;
	size_t *next;
	size_t lo = 0, hi = 0; /* the occurrence range being merged */
	bool open = false, told = false; /* told: its [REDACTED] is out already */

	if (n == 0)
		return;
	if (!r || r->n == 0 || !(next = air__calloc(r->n, sizeof(*next)))) {
		if (r && r->n > 0) {
			/* Out of memory: withhold the text rather than risk a value. */
			air__buf_puts(out, "[withheld]");
		} else {
			air__buf_put(out, s, n);
		}
		air__buf_clear(raw);
		*redacted = 0;
		return;
	}
	/* What was replaced at the last step goes on where it stopped. */
	if (*redacted > 0) {
		open = told = true;
		hi = *redacted < n ? *redacted : n;
	}
	/* Occurrences that begin from @cut on may not be whole yet. */
	cut = final ? n : pending_start(r, s, n);
	for (size_t k = 0; k < r->n; k++)
		next[k] = find(r, k, s, n, 0);
	for (;;) {
		size_t k = r->n, at = n;

		for (size_t j = 0; j < r->n; j++)
			if (next[j] < at) {
				at = next[j];
				k = j;
			}
		if (k == r->n || at >= cut)
			break;
		if (open && at < hi) {
			if (at + r->len[k] > hi)
				hi = at + r->len[k];
		} else {
			if (open) {
				air__buf_put(out, s + done, lo - done);
				if (!told)
					air__buf_puts(out, REPLACEMENT);
				done = hi;
			}
			lo = at;
			hi = at + r->len[k];
			open = true;
			told = false;
		}
		next[k] = find(r, k, s, n, at + 1);
	}
	if (open) {
		/* The last range; one that reaches into the bytes kept for the
		 * next step is replaced now, and its part there stays as the
		 * start of the next step's (matched again, not written). */
		air__buf_put(out, s + done, lo - done);
		if (!told)
			air__buf_puts(out, REPLACEMENT);
		done = hi;
		if (done > cut) {
			left = done - cut;
			done = cut;
		}
	}
	if (cut > done)
		air__buf_put(out, s + done, cut - done);
	memmove(raw->ptr, raw->ptr + cut, n - cut);
	raw->len = n - cut;
	raw->ptr[raw->len] = '\0';
	*redacted = left;
	air__free(next);
}
