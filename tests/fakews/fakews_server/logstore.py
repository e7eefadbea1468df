"""Log records of one run: explicit records plus synthetic blocks generated
lazily, and the paging over them (merged in time order, resumable by key)."""

import bisect
import copy
import heapq
import time

from .replies import ApiError, bad
from .values import as_int


class LogStore:
    """Log records of one run.

    Explicit records live in sorted lists per (node, attempt): (T, seq, body, raw T,
    monotonic time added).
    Synthetic blocks are arithmetic sequences generated on demand. Every record
    has a total-order key (T, block, tie): block 0 = explicit records (tie =
    insertion seq), block k = synthetic block k (tie = index in the block).
    Page tokens carry the key of the last record served.
    """

    def __init__(self):
        self.explicit = {}
        self.blocks = []
        self.seq = 0

    def add_records(self, records):
        for r in records:
            if not isinstance(r, dict):
                raise bad("log records must be objects")
            raw = r.get("time_unix_nano", 0)
            try:
                t = as_int(raw, "time_unix_nano")
            except ApiError:
                t = 0
            body = r.get("body", "")
            if not isinstance(body, str):
                raise bad("log record body must be a string")
            node = as_int(r.get("node_index", 0), "node_index", 0)
            attempt = as_int(r.get("attempt", 0), "attempt", 0)
            self.seq += 1
            bisect.insort(self.explicit.setdefault((node, attempt), []),
                          (t, self.seq, body, raw, time.monotonic()))

    def add_synthetic(self, s):
        if not isinstance(s, dict):
            raise bad("synthetic must be an object")
        blk = {
            "count": as_int(s.get("count", 0), "count", 0),
            "start_ns": as_int(s.get("start_ns", 0), "start_ns", 0),
            "step_ns": as_int(s.get("step_ns", 1000000), "step_ns", 0),
            "node_index": as_int(s.get("node_index", 0), "node_index", 0),
            "attempt": as_int(s.get("attempt", 0), "attempt", 0),
            "text": s.get("text", "step {i}"),
        }
        if not isinstance(blk["text"], str):
            raise bad("synthetic text must be a string")
        self.blocks.append(blk)

    def summary(self):
        return {
            "records": sum(len(v) for v in self.explicit.values()),
            "synthetic": copy.deepcopy(self.blocks),
        }

    def snapshot(self, node, attempt, lag_ms=0):
        """Sources for one (node, attempt), taken under the state lock. With
        @lag_ms, explicit records added less than that long ago are not
        shown yet (a log store that lags behind its writers)."""
        srcs = []
        lst = self.explicit.get((node, attempt))
        if lst and lag_ms > 0:
            shown_before = time.monotonic() - lag_ms / 1000.0
            lst = [e for e in lst if e[4] <= shown_before]
        if lst:
            srcs.append((0, list(lst), None))
        for k, blk in enumerate(self.blocks):
            if blk["node_index"] == node and blk["attempt"] == attempt and blk["count"] > 0:
                srcs.append((k + 1, None, blk))
        return srcs


def _source_fns(src, node, as_string):
    bid, lst, blk = src
    if lst is not None:
        def key(i):
            e = lst[i]
            return (e[0], 0, e[1])

        def rec(i):
            e = lst[i]
            return {"time_unix_nano": e[3], "body": e[2], "node_index": node}
        return len(lst), key, rec
    start, step, text = blk["start_ns"], blk["step_ns"], blk["text"]
    attempt = str(blk["attempt"])

    def key(i):
        return (start + i * step, bid, i)

    def rec(i):
        t = start + i * step
        body = text.replace("{i}", str(i)).replace("{node}", str(node)).replace("{attempt}", attempt)
        return {"time_unix_nano": str(t) if as_string else t, "body": body, "node_index": node}
    return blk["count"], key, rec


def _first_above(n, key, bound):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if key(mid) > bound:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last_below(n, key, bound):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if key(mid) < bound:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def log_page(srcs, node, lo_ns, hi_ns, ascending, cursor, limit, as_string):
    """Up to @limit records with lo_ns <= T < hi_ns after @cursor; returns (records, next cursor)."""
    its = []
    for src in srcs:
        n, key, rec = _source_fns(src, node, as_string)
        if ascending:
            bound = (lo_ns, -1, -1)
            if cursor is not None and cursor > bound:
                bound = cursor
            i = _first_above(n, key, bound)
            if i < n and key(i)[0] < hi_ns:
                its.append([i, n, key, rec])
        else:
            bound = (hi_ns, -1, -1)
            if cursor is not None and cursor < bound:
                bound = cursor
            i = _last_below(n, key, bound)
            if i >= 0 and key(i)[0] >= lo_ns:
                its.append([i, n, key, rec])
    out = []
    last_key = None
    want = limit + 1
    if len(its) == 1:
        i, n, key, rec = its[0]
        while len(out) < want and 0 <= i < n:
            k = key(i)
            if (ascending and k[0] >= hi_ns) or (not ascending and k[0] < lo_ns):
                break
            out.append((k, rec, i))
            i += 1 if ascending else -1
    else:
        heap = []
        for idx, it in enumerate(its):
            k = it[2](it[0])
            heap.append((k if ascending else tuple(-x for x in k), idx))
        heapq.heapify(heap)
        while heap and len(out) < want:
            hk, idx = heapq.heappop(heap)
            it = its[idx]
            i, n, key, rec = it
            k = key(i)
            out.append((k, rec, i))
            i += 1 if ascending else -1
            it[0] = i
            if 0 <= i < n:
                k2 = key(i)
                if (ascending and k2[0] < hi_ns) or (not ascending and k2[0] >= lo_ns):
                    heapq.heappush(heap, (k2 if ascending else tuple(-x for x in k2), idx))
    more = len(out) > limit
    out = out[:limit]
    if more and out:
        last_key = out[-1][0]
    return [rec(i) for (_k, rec, i) in out], last_key

