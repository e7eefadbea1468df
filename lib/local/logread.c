/*
 * logread.c: the log endpoint's records read straight from a node log, for a
 * reader in this process. The endpoint (logs.c) turns the records of a page
 * into JSON that the logs module parses again; this reader hands over the
 * records themselves: the file is read in large blocks into one buffer
 * whose newlines become NULs, and each record points into it (valid until
 * the next page). The queries, the page tokens (byte offsets of record
 * starts), the attempt picked and the time bounds are the endpoint's; a
 * query it does not answer the same way (a run that does not exist or is
 * damaged, a page token that is not a record's start, a descending page) is
 * left to the endpoint, which answers or fails as a workspace does.
 *
 * One more query than the endpoint: a tail read oldest first (@tail of
 * air__log_query), which starts at the oldest of the newest N records of
 * the window, found by counting newlines back from its end. And a page may
 * be asked for as text (@text): the records' lines, each followed by a
 * newline, moved together over the times in the block just read, for a
 * reader that writes them out as they are.
 */
#include "local/local_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#  include <emmintrin.h>
#endif

/* Bytes read at a time: a page is what one block holds (a record that does
 * not fit grows it). */
#define BLOCK ((size_t)256 << 10)
/* Bytes the buffer has beyond a block: a short line is copied sixteen
 * bytes at once. */
#define SLACK 16
/* Bytes counted at a time when looking for the start of a tail. */
#define COUNT_BLOCK ((size_t)64 << 10)

struct air__local_log {
	/* The file of the last query. */
	int64_t run_id;
	int64_t attempt_asked;
	int32_t node;
	bool settled;        /* the run had ended: its latest attempt cannot change */
	char *path;
	int fd;              /* -1: no such file yet, an empty log */
	/* What the file's count file said when it was opened, for its first
	 * counted_size bytes (0: none). */
	air__llog_counted counted;
	size_t counted_size;
	/* The file mapped when a query searched it (a tail, a start time) and
	 * asked for text: its text pages are copied from here instead of read
	 * (the search has brought the bytes in already). */
	air__llog view;
	/* The current page. */
	char *buf;
	size_t cap;
	air__log_rec *recs;
	size_t rcap;
	char token[24];
};

/* ---- finding records -------------------------------------------------------------------- */

/* Newlines among @n bytes at @p: sixteen bytes at a time with SSE2, else
 * eight at a time. */
static size_t count_newlines(const char *p, size_t n)
{
	const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL, nl = 0x0A0A0A0A0A0A0A0AULL;
	size_t count = 0, i = 0;

#ifdef __SSE2__
	const __m128i nls = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (n - i >= 16) {
		__m128i acc = zero;
		/* Each byte of acc counts at most 255 blocks before it is summed. */
		for (size_t k = 0; k < 255 && n - i >= 16; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)),
			                                       nls));
		acc = _mm_sad_epu8(acc, zero);
		count += (size_t)_mm_cvtsi128_si64(acc) +
		         (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
	}
#endif

	while (n - i >= 8) {
		uint64_t acc = 0;
		/* Each lane of acc counts at most 255 words before it is summed. */
		for (size_t k = 0; k < 255 && n - i >= 8; k++, i += 8) {
			uint64_t w, x;
			memcpy(&w, p + i, 8);
			x = w ^ nl; /* a zero byte where p holds '\n' */
			acc += (~(((x & lo7) + lo7) | x | lo7)) >> 7;
		}
		/* The lanes' sum: pairs, then the four 16-bit sums at once. */
		acc = (acc & 0x00FF00FF00FF00FFULL) + ((acc >> 8) & 0x00FF00FF00FF00FFULL);
		count += (size_t)((acc * 0x0001000100010001ULL) >> 48);
	}
	for (; i < n; i++)
		count += p[i] == '\n';
	return count;
}

/* The start of the oldest of the newest @n records of [@lo, @hi) (@hi a
 * record boundary): @lo when there are no more. The record ending at
 * hi - 1 is the newest, so its start follows the (n+1)-th newline before hi. */
static size_t tail_start(const air__llog *l, size_t lo, size_t hi, int64_t n)
{
	uint64_t need = (uint64_t)n + 1;
	size_t end = hi;

	while (end > lo) {
		size_t start = end - lo > COUNT_BLOCK ? end - COUNT_BLOCK : lo;
		size_t c = count_newlines(l->base + start, end - start);

		if (c >= need) {
			const char *e = l->base + end;
			while (need-- > 0)
				e = memrchr(l->base + start, '\n', (size_t)(e - (l->base + start)));
			return (size_t)(e - l->base) + 1;
		}
		need -= c;
		end = start;
	}
	return lo;
}

/* The start of the record after the first @n records of @l (l->size when
 * it has no more). */
static size_t skip_records(const air__llog *l, uint64_t n)
{
	size_t at = 0;

	while (n-- > 0 && at < l->size) {
		const char *nl = memchr(l->base + at, '\n', l->size - at);
		at = nl ? (size_t)(nl - l->base) + 1 : l->size;
	}
	return at;
}

/* The offset where the page of @q starts; false when the endpoint should
 * answer the query (a token that is not a record's start). */
static bool first_offset(air__local_log *r, const air__log_query *q, uint64_t *at)
{
	air__llog l;
	size_t lo, hi;
	int64_t v;

	if (q->token) {
		char b;
		if (!air__parse_int64(q->token, &v) || v < 0)
			return false;
		*at = (uint64_t)v;
		/* A record starts at 0 and after a newline. */
		return v == 0 || (r->fd >= 0 && pread(r->fd, &b, 1, (off_t)v - 1) == 1 && b == '\n');
	}
	if (q->from <= 0 && q->tail <= 0) {
		*at = 0;
		return true;
	}
	if (!r->path || air__llog_open(r->path, &l) != 0)
		return false;
	lo = q->from > 0 ? air__llog_lower_bound(&l, q->from * 1000000000) : 0;
	if (q->tail > 0) {
		int64_t count;
		hi = q->to > 0 ? air__llog_lower_bound(&l, q->to * 1000000000) : l.size;
		/* The tail of a whole complete log: its count file tells how many
		 * records come before the tail, so the shorter way is counted,
		 * from the start or back from the end. */
		if (lo == 0 && hi == l.size && r->counted_size == l.size &&
		    (count = r->counted.records) >= 0 &&
		    count - q->tail < q->tail)
			lo = count > q->tail ? skip_records(&l, (uint64_t)(count - q->tail)) : 0;
		else
			lo = hi > lo ? tail_start(&l, lo, hi, q->tail) : hi;
	}
	air__llog_close(&r->view);
	if (q->text)
		r->view = l;
	else
		air__llog_close(&l);
	*at = lo;
	return true;
}

static bool borne_out(int fd, air__llog_counted c);

/* The file @q reads, opened (re-resolved while the run goes on: the endpoint
 * picks the latest attempt at every page). AIR_OK, AIR_EUNSUPPORTED (the
 * endpoint answers: no such run, a damaged one, an unreadable log) or
 * AIR_ENOMEM. */
static int open_log(air__local *ws, air__local_log *r, const air__log_query *q)
{
	char *dir, *path;
	json_t *status;
	int32_t attempt;
	struct stat st;

	if (r->path && r->fd >= 0 && r->settled && r->run_id == q->run_id &&
	    r->attempt_asked == q->attempt && r->node == q->node)
		return AIR_OK;
	if (!(dir = air__lrun_dir(ws->dir, q->run_id)))
		return AIR_ENOMEM;
	status = air__lrun_load(dir, NULL, NULL);
	if (!status) {
		air__free(dir);
		return AIR_EUNSUPPORTED;
	}
	attempt = air__lstatus_pick_attempt(status, q->attempt);
	r->settled = air__lstatus_terminal(status);
	json_decref(status);
	path = air__lnode_log(dir, attempt, q->node);
	air__free(dir);
	if (!path)
		return AIR_ENOMEM;
	r->run_id = q->run_id;
	r->attempt_asked = q->attempt;
	r->node = q->node;
	if (r->path && !strcmp(r->path, path) && r->fd >= 0) {
		air__free(path);
		return AIR_OK;
	}
	/* Another file, or one that did not exist yet. */
	if (r->fd >= 0)
		close(r->fd);
	air__llog_close(&r->view);
	air__free(r->path);
	r->path = path;
	r->counted = (air__llog_counted){-1, 0};
	r->counted_size = 0;
	if ((r->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT) {
		air__free(r->path);
		r->path = NULL;
		return AIR_EUNSUPPORTED;
	}
	/* A complete log's count file (a log still written has none). */
	if (r->fd >= 0 && fstat(r->fd, &st) == 0 &&
	    (r->counted = air__llog_count(path, (size_t)st.st_size)).records >= 0 &&
	    borne_out(r->fd, r->counted))
		r->counted_size = (size_t)st.st_size;
	else
		r->counted = (air__llog_counted){-1, 0};
	return AIR_OK;
}

/* Room for @n records. */
static bool fit_records(air__local_log *r, size_t n)
{
	air__log_rec *more;

	if (n <= r->rcap)
		return true;
	if (!(more = air__realloc(r->recs, n * sizeof(*more))))
		return false;
	r->recs = more;
	r->rcap = n;
	return true;
}

/* Whether the 8 bytes of @w are all ASCII digits. */
static bool all_digits(uint64_t w)
{
	return (((w + 0x4646464646464646ULL) | (w - 0x3030303030303030ULL)) &
	        0x8080808080808080ULL) == 0;
}

/* The value of 8 ASCII digits (first digit in the lowest byte). */
static uint64_t eight_digits(uint64_t w)
{
	w -= 0x3030303030303030ULL;
	w = w * 10 + (w >> 8);
	return (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	        (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
	       32;
}

/* Whether the record at @p starts with a time of these years: nineteen
 * digits and a space (the first sixteen, read eight at a time, in *a and *b). */
static inline bool nineteen_digits(const char *p, const char *end, uint64_t *a, uint64_t *b)
{
	if (end - p <= 19 || p[19] != ' ')
		return false;
	memcpy(a, p, 8);
	memcpy(b, p + 8, 8);
	return all_digits(*a) && all_digits(*b) && (unsigned char)(p[16] - '0') < 10 &&
	       (unsigned char)(p[17] - '0') < 10 && (unsigned char)(p[18] - '0') < 10;
}

/* Whether the log open as @fd bears out the time width its count file @c
 * vouches for, as far as one read shows: its first record's time has it. A
 * count file that says "20" beside a log of shorter times (edited, or left
 * beside another log of the same size) is then not used. */
static bool borne_out(int fd, air__llog_counted c)
{
	char head[AIR__LOCAL_TEXT_AT];
	uint64_t a, b;

	return c.text_at != AIR__LOCAL_TEXT_AT ||
	       (pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	        nineteen_digits(head, head + sizeof(head), &a, &b));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#  define AIR__FAST_TIMES 1
/* The value of the nineteen digits at @p (the first sixteen, read eight at
 * a time, in @a and @b), known to fit an int64. */
static inline int64_t nineteen_value(const char *p, uint64_t a, uint64_t b)
{
	return (int64_t)((eight_digits(a) * 100000000 + eight_digits(b)) * 1000 +
	                 (uint64_t)(p[16] - '0') * 100 + (uint64_t)(p[17] - '0') * 10 +
	                 (uint64_t)(p[18] - '0'));
}
#endif

/* "<time_unix_nano> <text>": the time (0 when missing), and where the text
 * starts (as the endpoint reads a record: digits, saturating before they
 * overflow, then one space). */
static const char *split_time(const char *p, const char *end, int64_t *t)
{
	uint64_t a, b;
	int64_t v = 0;

	/* The usual time converted eight digits at a time (little-endian loads);
	 * one that could overflow is read digit by digit. */
#ifdef AIR__FAST_TIMES
	if (nineteen_digits(p, end, &a, &b) && p[0] <= '8') {
		*t = nineteen_value(p, a, b);
		return p + 20;
	}
#endif
	while (p < end && *p >= '0' && *p <= '9') {
		if (v <= (INT64_MAX - 9) / 10)
			v = v * 10 + (*p - '0');
		p++;
	}
	*t = v;
	return p < end && *p == ' ' ? p + 1 : p;
}

/* split_time() of a record whose writer vouched for its time's width (its
 * count file: nineteen digits and a space, read unchecked). */
static inline const char *vouched_time(const char *p, const char *end, int64_t *t)
{
#ifdef AIR__FAST_TIMES
	uint64_t a, b;

	memcpy(&a, p, 8);
	memcpy(&b, p + 8, 8);
	*t = nineteen_value(p, a, b);
	return p + AIR__LOCAL_TEXT_AT;
#else
	return split_time(p, end, t);
#endif
}

/* Where the text of the record at @p starts, as split_time() finds it, for
 * a reader that does not need the time. */
static inline const char *skip_time(const char *p, const char *end)
{
	uint64_t a, b;
	int64_t t;

	return nineteen_digits(p, end, &a, &b) ? p + 20 : split_time(p, end, &t);
}

/* The page buffer: a block, and the slack after it. */
static int make_buffer(air__local_log *r)
{
	if (!r->buf && !(r->buf = air__malloc((r->cap = BLOCK) + SLACK)))
		return AIR_ENOMEM;
	return AIR_OK;
}

/* A buffer twice as large, for a record longer than the block. */
static int grow_buffer(air__local_log *r)
{
	char *more = air__realloc(r->buf, r->cap * 2 + SLACK);

	if (!more)
		return AIR_ENOMEM;
	r->buf = more;
	r->cap *= 2;
	return AIR_OK;
}

/* ---- finding newlines ----------------------------------------------------------------- */

/* Newlines of a block, found sixty-four bytes at a time (SSE2) and handed
 * out one by one from a bit mask. */
typedef struct nl_scan {
	const char *p;
	size_t end;   /* bytes of the block */
	size_t base;  /* offset of the bytes @mask covers */
	uint64_t mask;
} nl_scan;

static uint64_t nl_mask(const char *p, size_t base, size_t end)
{
	uint64_t m = 0;

#ifdef __SSE2__
	if (end - base >= 64) {
		const __m128i nl = _mm_set1_epi8('\n');
		for (int k = 3; k >= 0; k--)
			m = (m << 16) | (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)(p + base + 16 * (size_t)k)), nl));
		return m;
	}
#endif
	for (size_t i = 0; i < 64 && base + i < end; i++)
		m |= (uint64_t)(p[base + i] == '\n') << i;
	return m;
}

static void nl_start(nl_scan *s, const char *p, size_t end)
{
	*s = (nl_scan){p, end, 0, end ? nl_mask(p, 0, end) : 0};
}

/* The offset of the next newline, or s->end when there is none. */
static size_t nl_next(nl_scan *s)
{
	size_t at;

	while (s->mask == 0) {
		s->base += 64;
		if (s->base >= s->end)
			return s->end;
		/* Lines are read once, from memory the caches do not hold yet. */
		__builtin_prefetch(s->p + s->base + 1024);
		s->mask = nl_mask(s->p, s->base, s->end);
	}
	at = s->base + (size_t)__builtin_ctzll(s->mask);
	s->mask &= s->mask - 1;
	return at;
}

/* The bytes before every record's text in the @got bytes from @at, when
 * the log's writer vouched for its times' width (its count file) and they
 * lie within what it counted; SIZE_MAX when it did not. */
static size_t vouched_width(const air__local_log *r, uint64_t at, size_t got)
{
	return r->counted.text_at > 0 && at + got <= r->counted_size ? r->counted.text_at : SIZE_MAX;
}

/* Read the block at @at into the buffer: its length in *got. */
static int read_block(air__local_log *r, uint64_t at, size_t *got)
{
	ssize_t n;
	int rc;

	*got = 0;
	if ((rc = make_buffer(r)) != AIR_OK)
		return rc;
	if (r->fd < 0)
		return AIR_OK;
	while ((n = pread(r->fd, r->buf, r->cap, (off_t)at)) < 0)
		if (errno != EINTR)
			return AIR_EUNSUPPORTED;
	*got = (size_t)n;
	return AIR_OK;
}

/* The records of one block from @at: up to @max, before time @to_ns (0: no
 * bound). *next: where the next page starts, or UINT64_MAX when the chain
 * ends here (the bound, or the end of the complete records). */
static int read_page(air__local_log *r, uint64_t at, size_t max, int64_t to_ns, size_t *count,
                     uint64_t *next)
{
	size_t got, n = 0, used = 0, nl, text_at;
	bool bounded = false;
	nl_scan scan;
	int rc;

	*next = UINT64_MAX;
	*count = 0;
	if ((rc = read_block(r, at, &got)) != AIR_OK)
		return rc;
	text_at = vouched_width(r, at, got);
	nl_start(&scan, r->buf, got);
	while (n < max) {
		char *p = r->buf + used;
		const char *text;
		int64_t t;

		if ((nl = nl_next(&scan)) >= got) {
			if (n > 0 || got < r->cap)
				break; /* the end of the block, or a record still being written */
			/* A record longer than the block: a larger block. */
			if ((rc = grow_buffer(r)) != AIR_OK || (rc = read_block(r, at, &got)) != AIR_OK)
				return rc;
			text_at = SIZE_MAX;
			nl_start(&scan, r->buf, got);
			continue;
		}
		text = nl - used >= text_at ? vouched_time(p, r->buf + nl, &t)
		                            : split_time(p, r->buf + nl, &t);
		if (to_ns > 0 && t >= to_ns) {
			bounded = true;
			break;
		}
		if (n == r->rcap && !fit_records(r, r->rcap ? 2 * r->rcap : 4096))
			return AIR_ENOMEM;
		r->buf[nl] = '\0';
		r->recs[n++] = (air__log_rec){text, (size_t)(r->buf + nl - text), t};
		used = nl + 1;
	}
	/* More may follow a full block or a full page (the endpoint's rule: a
	 * token when the page was cut, none at the end of what is there). */
	if (!bounded && (got == r->cap || (n == max && used < got)))
		*next = at + used;
	*count = n;
	return AIR_OK;
}

/* ---- a page as text ------------------------------------------------------------------ */

/* The time of the last complete record of @got bytes at @buf (INT64_MAX
 * when there is none). */
static int64_t last_time(const char *buf, size_t got)
{
	const char *end = got ? memrchr(buf, '\n', got) : NULL, *start;
	int64_t t;

	if (!end)
		return INT64_MAX;
	start = end > buf ? memrchr(buf, '\n', (size_t)(end - buf)) : NULL;
	split_time(start ? start + 1 : buf, end, &t);
	return t;
}

/* The time of the first record of @got bytes at @buf (0 when there is none). */
static int64_t first_time(const char *buf, size_t got)
{
	const char *end = got ? memchr(buf, '\n', got) : NULL;
	int64_t t = 0;

	if (end)
		split_time(buf, end, &t);
	return t;
}

/* read_page() for a query that asks for text: the lines of up to @max
 * records of one block from @at, each followed by "\n", moved to the start
 * of the buffer over the times they followed (*len bytes). */
static int read_text_page(air__local_log *r, uint64_t at, size_t max, int64_t to_ns,
                          size_t *count, size_t *len, uint64_t *next)
{
	size_t got, n = 0, used = 0, w = 0, nl;
	bool bounded = false, full;
	const char *src;
	nl_scan scan;
	int rc;

	*next = UINT64_MAX;
	*count = *len = 0;
	if ((rc = make_buffer(r)) != AIR_OK)
		return rc;
	for (;;) {
		if (r->view.map && at < r->view.size) {
			/* From the mapping: up to a block, complete records only. */
			src = r->view.base + at;
			got = r->view.size - at < r->cap ? r->view.size - (size_t)at : r->cap;
			full = at + got < r->view.size;
		} else {
			if ((rc = read_block(r, at, &got)) != AIR_OK)
				return rc;
			src = r->buf;
			full = got == r->cap;
		}
		if (!full || memchr(src, '\n', got))
			break;
		/* A record longer than the block: a larger block. */
		if ((rc = grow_buffer(r)) != AIR_OK)
			return rc;
	}
	/* Times only grow along a log (the writer's rule, which the endpoint's
	 * search by time relies on too): when the block's last record is before
	 * the bound, so are all of them. (A log not written so, with records
	 * without a time, is checked record by record.) */
	if (to_ns > 0) {
		int64_t first = first_time(src, got), last = last_time(src, got);
		if (first > 0 && first <= last && last < to_ns)
			to_ns = 0;
	}
	/* Records of a vouched-for width have their text found without
	 * reading the time. */
	const size_t text_at = vouched_width(r, at, got);
	char *const out = r->buf;

	nl_start(&scan, src, got);
	while (n < max && (nl = nl_next(&scan)) < got) {
		const char *p = src + used, *text;
		int64_t t;

		if (to_ns > 0) {
			text = split_time(p, src + nl, &t);
			if (t >= to_ns) {
				bounded = true;
				break;
			}
		} else if (nl - used >= text_at) {
			text = p + text_at;
		} else {
			text = skip_time(p, src + nl);
		}
		/* The line and its newline (read in place, the text only moves down). */
		size_t n_text = (size_t)(src + nl + 1 - text);
		if (n_text <= 16 && text + 16 <= src + got && (src != out || w + 16 <= nl + 1)) {
			/* A short line: sixteen bytes loaded, then stored (into the
			 * slack at worst; in place, only over bytes already read). */
			char chunk[16];
			memcpy(chunk, text, 16);
			memcpy(out + w, chunk, 16);
		} else {
			memmove(out + w, text, n_text);
		}
		w += n_text;
		used = nl + 1;
		n++;
	}
	if (!bounded && (full || (n == max && used < got)))
		*next = at + used;
	*count = n;
	*len = w;
	return AIR_OK;
}

int air__local_log_read(air__local *ws, const air__ctx *ctx, air__local_log **reader,
                        const air__log_query *q, air__log_span *out, air_error **err)
{
	air__local_log *r = *reader;
	uint64_t at, next;
	size_t n, max;
	int rc;

	*out = (air__log_span){.recs = NULL};
	if ((rc = air__ctx_check(ctx, "reading a node log", err)) != AIR_OK)
		return rc;
	if (!q->ascending || q->node < 0 || q->from < 0 || q->to < 0 || q->page_size < 0 ||
	    q->from > INT64_MAX / 1000000000 || q->to > INT64_MAX / 1000000000)
		return AIR_EUNSUPPORTED;
	if (!r) {
		if (!(r = air__calloc(1, sizeof(*r))))
			return air__oom(err);
		r->fd = -1;
		r->counted = (air__llog_counted){-1, 0};
		*reader = r;
	}
	if ((rc = open_log(ws, r, q)) != AIR_OK)
		return rc == AIR_ENOMEM ? air__oom(err) : rc;
	if (!first_offset(r, q, &at))
		return AIR_EUNSUPPORTED;
	max = q->page_size > 0 ? (size_t)q->page_size : SIZE_MAX;
	if (q->text)
		rc = read_text_page(r, at, max, q->to * 1000000000, &n, &out->text_len, &next);
	else
		rc = read_page(r, at, max, q->to * 1000000000, &n, &next);
	if (rc != AIR_OK)
		return rc == AIR_ENOMEM ? air__oom(err) : rc;
	if (q->text)
		out->text = r->buf;
	else
		out->recs = r->recs;
	out->n = n;
	if (next != UINT64_MAX) {
		snprintf(r->token, sizeof(r->token), "%llu", (unsigned long long)next);
		out->next_token = r->token;
	}
	return AIR_OK;
}

void air__local_log_free(air__local_log *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	air__llog_close(&r->view);
	air__free(r->path);
	air__free(r->buf);
	air__free(r->recs);
	air__free(r);
}
