/* page.c: log query bounds and the de-dup set. */
#include "logs/logs.h"

#include <string.h>

/* ---- bounds and queries ---------------------------------------------------- */

void air__logs_bounds(int64_t run_start_ms, int64_t run_end_ms, bool terminal, int64_t minutes,
                      int64_t now_ms, int64_t *from, int64_t *to)
{
	if (minutes > 0)
		*from = now_ms / 1000 - minutes * 60;
	else
		*from = run_start_ms > 0 ? run_start_ms / 1000 : 0;
	/* `to` is exclusive: round the end up to keep its last partial second. */
	*to = terminal && run_end_ms > 0 ? run_end_ms / 1000 + (run_end_ms % 1000 != 0) : 0;
}

void air__logs_query(air__buf *b, const air__log_query *q)
{
	air__buf_query(b, "ascending", q->ascending ? "true" : "false");
	if (q->from > 0)
		air__buf_query_int(b, "from", q->from);
	if (q->to > 0)
		air__buf_query_int(b, "to", q->to);
	if (q->token)
		air__buf_query(b, "page_token", q->token);
	if (q->page_size > 0)
		air__buf_query_int(b, "page_size", q->page_size);
	if (q->attempt >= 0)
		air__buf_query_int(b, "ref.attempt_number", q->attempt);
	air__buf_query_int(b, "filter.node_index", q->node);
}

/* ---- de-dup set ---------------------------------------------------------------- */

/* Eight bytes a step, multiply-xorshift mixed, finished with a murmur-style
 * mix; 0 is reserved for empty slots. */
static uint64_t hash_body(const char *s, size_t n)
{
	const uint64_t k = 0x9E3779B97F4A7C15ULL;
	uint64_t h = 1469598103934665603ULL ^ ((uint64_t)n * k), w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h ? h : 1;
}

void air__dedup_init(air__dedup *d, size_t max)
{
	memset(d, 0, sizeof(*d));
	d->max = max ? max : 1;
}

void air__dedup_dispose(air__dedup *d)
{
	air__free(d->fifo);
	air__free(d->slots);
	air__dedup_init(d, d->max);
}

static size_t slot_of(const air__dedup *d, uint64_t h) { return (size_t)h & (d->slot_cap - 1); }

static bool table_has(const air__dedup *d, uint64_t h)
{
	for (size_t i = slot_of(d, h); d->slots[i]; i = (i + 1) & (d->slot_cap - 1))
		if (d->slots[i] == h)
			return true;
	return false;
}

static void table_put(air__dedup *d, uint64_t h)
{
	size_t i = slot_of(d, h);

	while (d->slots[i])
		i = (i + 1) & (d->slot_cap - 1);
	d->slots[i] = h;
}

/* Linear probing removal with backward shift (no tombstones). */
static void table_del(air__dedup *d, uint64_t h)
{
	size_t mask = d->slot_cap - 1, i = slot_of(d, h), j;

	while (d->slots[i] != h)
		i = (i + 1) & mask;
	for (j = (i + 1) & mask; d->slots[j]; j = (j + 1) & mask) {
		size_t home = slot_of(d, d->slots[j]);
		/* Move j into the hole at i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			d->slots[i] = d->slots[j];
			i = j;
		}
	}
	d->slots[i] = 0;
}

/* Keep the table at most half full; the fifo grows up to max entries. */
static int reserve(air__dedup *d)
{
	if ((d->len + 1) * 2 > d->slot_cap) {
		size_t cap = d->slot_cap ? d->slot_cap * 2 : 16;
		uint64_t *slots = air__calloc(cap, sizeof(*slots)), *old = d->slots;
		size_t old_cap = d->slot_cap;

		if (!slots)
			return AIR_ENOMEM;
		d->slots = slots;
		d->slot_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				table_put(d, old[i]);
		air__free(old);
	}
	if (d->len == d->fifo_cap) {
		size_t cap = d->fifo_cap ? d->fifo_cap * 2 : 16;
		uint64_t *fifo;

		if (cap > d->max)
			cap = d->max;
		fifo = air__malloc(cap * sizeof(*fifo));
		if (!fifo)
			return AIR_ENOMEM;
		for (size_t i = 0; i < d->len; i++)
			fifo[i] = d->fifo[(d->head + i) % d->fifo_cap];
		air__free(d->fifo);
		d->fifo = fifo;
		d->fifo_cap = cap;
		d->head = 0;
	}
	return AIR_OK;
}

/* Add hash @h of a record at the current timestamp. */
static int add_hash(air__dedup *d, uint64_t h)
{
	if (d->len == d->max) {
		table_del(d, d->fifo[d->head]);
		d->head = (d->head + 1) % d->fifo_cap;
		d->len--;
	}
	if (reserve(d) != AIR_OK)
		return AIR_ENOMEM;
	table_put(d, h);
	d->fifo[(d->head + d->len) % d->fifo_cap] = h;
	d->len++;
	return AIR_OK;
}

int air__dedup_settle(air__dedup *d)
{
	const char *body = d->pending;

	d->pending = NULL;
	return body ? add_hash(d, hash_body(body, d->pending_len)) : AIR_OK;
}

int air__dedup_check(air__dedup *d, int64_t t, const char *body, size_t len)
{
	uint64_t h;

	if (t != d->t) {
		/* A newer timestamp: no older pair can match again. */
		if (d->slot_cap > 1024)
			air__dedup_dispose(d); /* after a burst, start small again */
		else if (d->len > 0)
			memset(d->slots, 0, d->slot_cap * sizeof(*d->slots));
		d->len = d->head = 0;
		d->t = t;
		d->pending = body;
		d->pending_len = len;
		return 0;
	}
	if (air__dedup_settle(d) != AIR_OK)
		return AIR_ENOMEM;
	h = hash_body(body, len);
	if (d->len > 0 && table_has(d, h))
		return 1;
	return add_hash(d, h) == AIR_OK ? 0 : AIR_ENOMEM;
}
