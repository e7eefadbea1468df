"""Value helpers: clock and date formats, integer parameters, run ids, and the
recursive merge used by the configuration."""

import copy
import re
import time

from .replies import ApiError, bad


def now_ms():
    return int(time.time() * 1000)


def rfc3339(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def http_date(ms):
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(ms // 1000))


def as_int(value, name, minimum=None):
    """An integer from a JSON number, a decimal string or a query value."""
    if isinstance(value, bool):
        raise bad("%s must be an integer" % name)
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
        n = int(value.strip())
    else:
        raise bad("%s must be an integer, got %r" % (name, value))
    if minimum is not None and n < minimum:
        raise bad("%s must be >= %d" % (name, minimum))
    return n


def id_key(value):
    """Integer key of a run id given as a number or a string; None if invalid."""
    try:
        return as_int(value, "run_id")
    except ApiError:
        return None


def merge(dst, src):
    """Merge @src into @dst: nested dicts recursively, everything else copied."""
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)
