"""MLflow metrics of one MLflow run: each metric's history as segments
(explicit points, or synthetic blocks generated on demand, so a history of
a million points costs no memory per point), its paging, the latest value,
and the two ways non-finite values may be written."""

import math

from .paging import decode_token, encode_token
from .replies import ApiError, bad
from .values import as_int

# get-history's largest max_results (MLflow's limit).
MAX_RESULTS = 25000


def as_value(v, what):
    """A point value: a number, or one of the strings "NaN", "Infinity", "-Infinity"."""
    if isinstance(v, bool):
        raise bad("%s must be a number" % what)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            pass
    raise bad("%s must be a number or \"NaN\", \"Infinity\", \"-Infinity\"" % what)


class History:
    """One metric's points, in the order they were logged."""

    def __init__(self):
        self.segments = []   # [("points", [(ts, value, step), ...]) | ("synthetic", dict)]
        self.count = 0

    def add_points(self, points):
        out = []
        for p in points:
            if not isinstance(p, dict):
                raise bad("metric points must be objects")
            out.append((as_int(p.get("timestamp", 0), "timestamp", 0),
                        as_value(p.get("value", 0), "value"),
                        as_int(p.get("step", 0), "step")))
        if out:
            if self.segments and self.segments[-1][0] == "points":
                self.segments[-1][1].extend(out)
            else:
                self.segments.append(("points", out))
            self.count += len(out)

    def add_synthetic(self, s):
        """Point i: step start_step + i, timestamp start_ms + i * step_ms, value
        scale / (i + 1)."""
        if not isinstance(s, dict):
            raise bad("synthetic must be an object")
        blk = {"count": as_int(s.get("count", 0), "count", 0),
               "start_step": as_int(s.get("start_step", 0), "start_step"),
               "start_ms": as_int(s.get("start_ms", 1700000000000), "start_ms", 0),
               "step_ms": as_int(s.get("step_ms", 1), "step_ms", 0),
               "scale": as_value(s.get("scale", 1.0), "scale")}
        if blk["count"]:
            self.segments.append(("synthetic", blk))
            self.count += blk["count"]

    def points(self, start, n):
        """Points start .. start+n-1 as (ts, value, step)."""
        out, pos = [], 0
        for kind, seg in self.segments:
            size = len(seg) if kind == "points" else seg["count"]
            if start < pos + size and len(out) < n:
                lo = max(0, start - pos)
                hi = min(size, lo + n - len(out))
                if kind == "points":
                    out.extend(seg[lo:hi])
                else:
                    for i in range(lo, hi):
                        out.append((seg["start_ms"] + i * seg["step_ms"], seg["scale"] / (i + 1),
                                    seg["start_step"] + i))
            pos += size
            if len(out) >= n:
                break
        return out

    def latest(self):
        """MLflow's latest value: the point with the highest (step, timestamp);
        among equal ones the last logged."""
        best, pos = None, 0
        for kind, seg in self.segments:
            if kind == "points":
                cands = seg
            else:   # steps and timestamps grow within a block: its last point
                cands = self.points(pos + seg["count"] - 1, 1)
            for p in cands:
                if best is None or (p[2], p[0]) >= (best[2], best[0]):
                    best = p
            pos += len(seg) if kind == "points" else seg["count"]
        return best


def value_json(v, nonfinite):
    """A value as MLflow writes it: NaN and the infinities as bare tokens (what
    Python's json module writes, "token") or as strings ("string")."""
    if math.isfinite(v) or nonfinite == "token":
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def point_json(key, p, nonfinite):
    return {"key": key, "value": value_json(p[1], nonfinite), "timestamp": p[0], "step": p[2]}


class MetricStore:
    """The metrics of one MLflow run (a page token also names the store's
    token generation: tokens of an older one are refused)."""

    def __init__(self):
        self.histories = {}
        self.generation = 0

    def add(self, body):
        """{"metrics": {key: [points]}, "synthetic": {"key", ...} or [...],
        "token_generation": N}"""
        metrics = body.get("metrics", {})
        if not isinstance(metrics, dict):
            raise bad("metrics must be an object of point lists")
        for key, points in metrics.items():
            if not isinstance(points, list):
                raise bad("metrics.%s must be a list of points" % key)
            self.histories.setdefault(key, History()).add_points(points)
        syn = body.get("synthetic", [])
        for s in (syn if isinstance(syn, list) else [syn]):
            if not isinstance(s, dict) or not isinstance(s.get("key"), str) or not s["key"]:
                raise bad("a synthetic block needs a key")
            self.histories.setdefault(s["key"], History()).add_synthetic(s)
        if "token_generation" in body:
            self.generation = as_int(body["token_generation"], "token_generation", 0)

    def summary(self):
        return {"metrics": {k: h.count for k, h in sorted(self.histories.items())},
                "token_generation": self.generation}

    def latest(self, nonfinite):
        out = []
        for key in sorted(self.histories):
            p = self.histories[key].latest()
            if p is not None:
                out.append(point_json(key, p, nonfinite))
        return out

    def page(self, key, max_results, token, nonfinite):
        """One get-history page: {"metrics": [...], "next_page_token"} (both
        left out when empty, as the service does). Without max_results the
        whole history (MLflow's own behaviour)."""
        h = self.histories.get(key)
        off = 0
        if token:
            t = decode_token(token)
            if t.get("k") != "hist" or not isinstance(t.get("o"), int) or t["o"] < 0 \
                    or t.get("g") != self.generation or t.get("m") != key:
                raise bad("invalid page_token %r" % token)
            off = t["o"]
        if max_results is None:
            size = h.count if h else 0
        elif not 1 <= max_results <= MAX_RESULTS:
            raise ApiError(400, "INVALID_PARAMETER_VALUE",
                           "max_results must be between 1 and %d" % MAX_RESULTS)
        else:
            size = max_results
        out = {}
        if h is None:
            return out
        pts = h.points(off, size)
        if pts:
            out["metrics"] = [point_json(key, p, nonfinite) for p in pts]
        if off + len(pts) < h.count:
            out["next_page_token"] = encode_token({"k": "hist", "o": off + len(pts),
                                                   "g": self.generation, "m": key})
        return out
