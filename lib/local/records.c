/*
 * records.c: node logs, one record per line ("<time_unix_nano> <text>\n").
 * The supervisor writes them (air__lwriter: output scrubbed of secrets as a
 * stream (redact.c), then split into lines, made valid UTF-8, times strictly
 * increasing; a write that fails leaves no part of a record); the workspace
 * reads them through a read-only mapping (air__llog), searching by time.
 */
#include "local/local_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *air__lnode_log(const char *run_dir, int32_t attempt, int64_t node)
{
	return air__sprintf("%s/logs/attempt_%d/node_%lld.log", run_dir, (int)attempt,
	                    (long long)node);
}

char *air__lnode_work(const char *run_dir, int64_t node)
{
	return air__sprintf("%s/work/node_%lld", run_dir, (long long)node);
}

/* ---- writing ---------------------------------------------------------------------- */

void air__lwriter_init(air__lwriter *w, int fd, const air__lredact *redact)
{
	struct stat st;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->redact = redact;
	if (fd >= 0 && fstat(fd, &st) == 0)
		w->size = st.st_size;
	w->started_empty = fd >= 0 && w->size == 0;
}

void air__lwriter_dispose(air__lwriter *w)
{
	if (w->raw.ptr)
		explicit_bzero(w->raw.ptr, w->raw.len); /* may hold the start of a secret */
	air__buf_dispose(&w->raw);
	air__buf_dispose(&w->line);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put_replacement(air__buf *b) { air__buf_put(b, "\xEF\xBF\xBD", 3); }

/* Length of the valid UTF-8 sequence at @s (n bytes left), 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0; /* overlong */
	else if (c == 0xED)
		hi = 0x9F; /* surrogates */
	else if (c == 0xF0)
		lo = 0x90; /* overlong */
	else if (c == 0xF4)
		hi = 0x8F; /* beyond U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* How many of the @n bytes at @s come before the first NUL or non-ASCII
 * byte: eight at a time (a byte is NUL or >= 0x80 where the word minus
 * 0x01 per byte, or the word itself, has its top bit set). */
static size_t plain_ascii(const unsigned char *s, size_t n)
{
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (((w - 0x0101010101010101ULL) | w) & 0x8080808080808080ULL)
			break;
	}
	while (i < n && s[i] != 0 && s[i] < 0x80)
		i++;
	return i;
}

/* @n bytes as valid UTF-8 without NUL: bad bytes become U+FFFD. */
static void put_clean(air__buf *b, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; i < n;) {
		size_t len = plain_ascii(s + i, n - i);

		if (len > 0) { /* the usual line: copied whole */
			air__buf_put(b, s + i, len);
			i += len;
		} else if (s[i] == 0) {
			put_replacement(b);
			i++;
		} else if (s[i] < 0x80) {
			air__buf_putc(b, (char)s[i]);
			i++;
		} else if ((len = utf8_seq(s + i, n - i)) > 0) {
			air__buf_put(b, s + i, len);
			i += len;
		} else {
			put_replacement(b);
			i++;
		}
	}
}

/* Append the decimal text of @t (> 0). The lines of a batch have times one
 * apart: the last one's text is counted up instead of written anew. */
static void put_time(air__lwriter *w, air__buf *out, int64_t t)
{
	char *d = w->time_text, digits[sizeof(w->time_text)];
	size_t i = w->time_len;

	if (t == w->last_t + 1 && i > 0) {
		while (i > 0 && d[i - 1] == '9')
			d[--i] = '0';
		if (i > 0) {
			d[i - 1]++;
			air__buf_put(out, d, w->time_len);
			return;
		}
	}
	/* Not the next time, or one with a digit more: written anew. */
	i = sizeof(digits);
	for (uint64_t u = (uint64_t)t; u > 0 && i > 0; u /= 10)
		digits[--i] = (char)('0' + u % 10);
	w->time_len = sizeof(digits) - i;
	memcpy(d, digits + i, w->time_len);
	air__buf_put(out, d, w->time_len);
}

/* Append the record of @text (@n bytes, no newline; already scrubbed) to @out. */
static void add_record(air__lwriter *w, air__buf *out, const char *text, size_t n)
{
	/* The lines of one batch arrived together: the batch's time. */
	int64_t t = w->batch_t;

	if (n > 0 && text[n - 1] == '\r')
		n--; /* CRLF output */
	if (t <= w->last_t)
		t = w->last_t + 1;
	if (t < 1000000000000000000LL)
		w->short_time = true;
	put_time(w, out, t);
	w->last_t = t;
	air__buf_putc(out, ' ');
	put_clean(out, text, n);
	air__buf_putc(out, '\n');
}

/* Start a batch of records: after lost output, a note saying so comes first
 * (*noting gets the number of lines it reports). */
static void begin_batch(air__lwriter *w, air__buf *out, uint64_t *noting)
{
	char note[160];
	int n;

	w->batch_t = now_ns();
	*noting = w->noted;
	if (w->lost == w->noted || w->fd < 0)
		return;
	n = snprintf(note, sizeof(note), "[air local] %llu line(s) of output were lost here: %s",
	             (unsigned long long)(w->lost - w->noted), strerror(w->error));
	add_record(w, out, note, n > 0 && (size_t)n < sizeof(note) ? (size_t)n : 0);
	*noting = w->lost;
}

static uint64_t count_records(const air__buf *out)
{
	uint64_t n = 0;
	const char *end = out->ptr + out->len;

	for (const char *p = out->ptr; p && p < end && (p = memchr(p, '\n', (size_t)(end - p)));
	     p++)
		n++;
	return n;
}

/* Write a batch of whole records. A write that fails (a full disk) leaves
 * no part of a record behind: the log is cut back to its last complete
 * record and the lines are counted as lost. */
static void write_batch(air__lwriter *w, const air__buf *out, uint64_t noting)
{
	const char *p = out->ptr;
	size_t left = out->len;
	int e = 0;

	if (left == 0)
		return;
	while (w->fd >= 0 && left > 0) {
		ssize_t r = write(w->fd, p, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			break;
		}
		p += r;
		left -= (size_t)r;
	}
	if (w->fd >= 0 && left == 0) {
		w->size += (off_t)out->len;
		w->records += count_records(out);
		w->noted = noting;
		return;
	}
	if (!w->error)
		w->error = e ? e : EBADF;
	w->lost += count_records(out) - (noting != w->noted ? 1 : 0);
	if (w->fd >= 0 && ftruncate(w->fd, w->size) != 0)
		w->fd = -1; /* a torn record cannot be removed: write nothing more after it */
}

/* Where to cut an over-long line (@left > @max bytes at @s): at @max, moved
 * back so that it splits neither a UTF-8 sequence nor a "[REDACTED]". */
static size_t cut_at(const char *s, size_t left, size_t max)
{
	static const char mark[] = "[REDACTED]";
	size_t n = air__utf8_cut(s, left, max), m = sizeof(mark) - 1;

	if (n == 0)
		n = max;
	for (size_t k = 1; k < m && k < n; k++)
		if (n - k + m <= left && !memcmp(s + n - k, mark, m))
			return n - k;
	return n;
}

/* The complete lines of w->line (all of it when @all) become records in @out. */
static void cut_lines(air__lwriter *w, air__buf *out, bool all)
{
	size_t start = 0;

	for (;;) {
		const char *base = w->line.ptr + start;
		size_t left = w->line.len - start;
		const char *nl = left ? memchr(base, '\n', left) : NULL;

		if (nl && (size_t)(nl - base) <= AIR__LOCAL_MAX_RECORD) {
			add_record(w, out, base, (size_t)(nl - base));
			start += (size_t)(nl - base) + 1;
		} else if (left > AIR__LOCAL_MAX_RECORD) {
			size_t n = cut_at(base, left, AIR__LOCAL_MAX_RECORD);
			add_record(w, out, base, n);
			start += n;
		} else {
			if (all && left > 0) {
				add_record(w, out, base, left);
				start += left;
			}
			break;
		}
	}
	if (start > 0) {
		memmove(w->line.ptr, w->line.ptr + start, w->line.len - start);
		w->line.len -= start;
		w->line.ptr[w->line.len] = '\0';
	}
}

/* Scrub what arrived (everything when @final), cut lines, write them. */
static void drain(air__lwriter *w, bool final)
{
	air__buf out = AIR__BUF_INIT;
	uint64_t noting;

	air__lredact_step(w->redact, &w->raw, &w->raw_redacted, &w->line, final);
	begin_batch(w, &out, &noting);
	cut_lines(w, &out, final);
	write_batch(w, &out, noting);
	air__buf_dispose(&out);
}

void air__lwriter_feed(air__lwriter *w, const char *data, size_t len)
{
	air__buf_put(&w->raw, data, len);
	drain(w, false);
}

void air__lwriter_flush(air__lwriter *w)
{
	drain(w, true);
}

void air__lwriter_note(air__lwriter *w, const char *fmt, ...)
{
	air__buf out = AIR__BUF_INIT, text = AIR__BUF_INIT;
	uint64_t noting;
	va_list ap;

	air__buf_puts(&text, "[air local] ");
	va_start(ap, fmt);
	air__buf_vprintf(&text, fmt, ap);
	va_end(ap);
	/* One record, whatever the text holds (a workload's dependency, say):
	 * its line breaks become spaces. */
	for (size_t i = 0; i < text.len; i++)
		if (text.ptr[i] == '\n' || text.ptr[i] == '\r')
			text.ptr[i] = ' ';
	begin_batch(w, &out, &noting);
	add_record(w, &out, air__buf_cstr(&text), text.len);
	write_batch(w, &out, noting);
	air__buf_dispose(&out);
	air__buf_dispose(&text);
}

void air__lwriter_finish(air__lwriter *w, const char *log_path)
{
	char *path, text[64];
	int n;

	/* The writer's count is the file's only when it wrote all of it. */
	if (w->fd < 0 || w->error || !w->started_empty || w->size < AIR__LOCAL_COUNTED_BYTES)
		return;
	n = w->short_time ? snprintf(text, sizeof(text), "%lld %llu\n", (long long)w->size,
	                             (unsigned long long)w->records)
	                  : snprintf(text, sizeof(text), "%lld %llu %d\n", (long long)w->size,
	                             (unsigned long long)w->records, AIR__LOCAL_TEXT_AT);
	if ((path = air__sprintf("%s.count", log_path)) != NULL && n > 0)
		air__lwrite_atomic(path, text, (size_t)n, 0600, false);
	air__free(path);
}

air__llog_counted air__llog_count(const char *log_path, size_t size)
{
	char *path = air__sprintf("%s.count", log_path);
	air__buf b = AIR__BUF_INIT;
	long long have_size;
	unsigned long long records;
	int text_at = 0;
	air__llog_counted c = {-1, 0};

	/* A count file without its third field (an earlier writer's, or one
	 * whose clock was before September 2001) counts records only. */
	if (path && air__lread_file(path, 64, &b) == 0 &&
	    sscanf(air__buf_cstr(&b), "%lld %llu %d", &have_size, &records, &text_at) >= 2 &&
	    have_size >= 0 && (size_t)have_size == size && records <= (unsigned long long)INT64_MAX) {
		c.records = (int64_t)records;
		c.text_at = text_at == AIR__LOCAL_TEXT_AT ? AIR__LOCAL_TEXT_AT : 0;
	}
	air__buf_dispose(&b);
	air__free(path);
	return c;
}

/* ---- reading ------------------------------------------------------------------------ */

int air__llog_open(const char *path, air__llog *l)
{
	struct stat st;
	int fd;
	const char *last;

	memset(l, 0, sizeof(*l));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) != 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		l->map = m;
		l->map_len = (size_t)st.st_size;
		l->base = m;
		/* Only complete records: up to the last newline. */
		last = memrchr(l->base, '\n', l->map_len);
		l->size = last ? (size_t)(last - l->base) + 1 : 0;
	}
	close(fd);
	return 0;
}

void air__llog_close(air__llog *l)
{
	if (l->map)
		munmap(l->map, l->map_len);
	memset(l, 0, sizeof(*l));
}

/* Parse the record at @off (a record start < l->size). */
static size_t parse_at(const air__llog *l, size_t off, int64_t *t, const char **text,
                       size_t *len)
{
	const char *p = l->base + off, *end = memchr(p, '\n', l->size - off);
	int64_t v = 0;

	while (p < end && *p >= '0' && *p <= '9') {
		if (v <= (INT64_MAX - 9) / 10)
			v = v * 10 + (*p - '0');
		p++;
	}
	if (p < end && *p == ' ')
		p++;
	*t = v;
	*text = p;
	*len = (size_t)(end - p);
	return (size_t)(end - l->base) + 1;
}

bool air__llog_next(const air__llog *l, size_t *off, int64_t *t, const char **text, size_t *len)
{
	if (*off >= l->size)
		return false;
	*off = parse_at(l, *off, t, text, len);
	return true;
}

/* Start of the record that ends (its newline) at @end - 1. */
static size_t record_start(const air__llog *l, size_t end)
{
	const char *nl = end >= 2 ? memrchr(l->base, '\n', end - 1) : NULL;

	return nl ? (size_t)(nl - l->base) + 1 : 0;
}

bool air__llog_prev(const air__llog *l, size_t *end, int64_t *t, const char **text, size_t *len)
{
	size_t start;

	if (*end == 0 || *end > l->size)
		return false;
	start = record_start(l, *end);
	parse_at(l, start, t, text, len);
	*end = start;
	return true;
}

bool air__llog_is_boundary(const air__llog *l, size_t off)
{
	return off == 0 || off == l->size || (off < l->size && l->base[off - 1] == '\n');
}

static int64_t time_at(const air__llog *l, size_t off)
{
	int64_t t;
	const char *text;
	size_t len;

	parse_at(l, off, &t, &text, &len);
	return t;
}

/* First record start at or after @off (l->size when none). */
static size_t start_at_or_after(const air__llog *l, size_t off)
{
	const char *nl;

	if (off == 0)
		return 0;
	nl = memchr(l->base + off - 1, '\n', l->size - (off - 1));
	return nl ? (size_t)(nl - l->base) + 1 : l->size;
}

size_t air__llog_lower_bound(const air__llog *l, int64_t t)
{
	size_t lo = 0, hi = l->size;

	/* lo is a record start and hi a record start or the end; the answer
	 * lies in [lo, hi]. */
	while (lo < hi) {
		size_t m = start_at_or_after(l, lo + (hi - lo) / 2);
		int64_t tm;
		const char *text;
		size_t len;

		if (m >= hi) {
			/* No record starts in the upper half: walk the few below it. */
			while (lo < hi && time_at(l, lo) < t)
				lo = parse_at(l, lo, &tm, &text, &len);
			return lo;
		}
		if (time_at(l, m) < t)
			lo = parse_at(l, m, &tm, &text, &len);
		else
			hi = m;
	}
	return lo;
}
