"""The type check of an override against the schema, made before the
override is applied: libair itself only checks types when validating, so
``override("compute.num_accelerators=abc")`` would otherwise be accepted
and fail later, far from the line that caused it."""

import ctypes as C
import json
from typing import Any, Optional

from . import constants as K
from ._lib import lib
from ._util import enc, take_str
from .enums import FieldKind
from .errors import ConfigError

_LISTS = (FieldKind.STRING_LIST, FieldKind.OBJECT_LIST)
_MAPS = (FieldKind.OBJECT, FieldKind.STRING_MAP, FieldKind.ANY_MAP)
_EXPECTED = {FieldKind.INT: "an integer", FieldKind.STRING_LIST: "a list",
             FieldKind.OBJECT_LIST: "a list", FieldKind.OBJECT: "a mapping",
             FieldKind.STRING_MAP: "a mapping", FieldKind.ANY_MAP: "a mapping",
             FieldKind.STRING: "a string", FieldKind.SCALAR: "a string or an integer",
             FieldKind.BOOL_OR_STRING: "a boolean or a string"}


class _Unknown:
    """The value could not be typed here: libair decides."""


def _typed(yaml_value: str) -> Any:
    """The value of a one-line YAML text as libair types it (its JSON form),
    or an _Unknown."""
    if "\n" in yaml_value or "\r" in yaml_value:
        return _Unknown()
    doc = b"v: " + (enc(yaml_value) or b"")
    cfg = C.c_void_p()
    if int(lib.air_config_parse_buffer(doc, len(doc), None, None, C.byref(cfg), None)) != K.OK:
        return _Unknown()
    try:
        out = C.c_void_p()
        if int(lib.air_config_to_json(cfg, C.byref(out), None)) != K.OK:
            return _Unknown()
        return json.loads(take_str(out) or "{}").get("v")
    finally:
        lib.air_config_free(cfg)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "the boolean %s" % ("true" if value else "false")
    if isinstance(value, int):
        return "the integer %d" % value
    if isinstance(value, float):
        return "the number %r" % value
    if isinstance(value, str):
        return "the string %s" % json.dumps(value)
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _fits(kind: FieldKind, value: Any) -> bool:
    if kind is FieldKind.INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in _LISTS:
        return isinstance(value, list)
    if kind in _MAPS:
        return isinstance(value, dict)
    return not isinstance(value, (list, dict))  # scalars: libair checks the rest


def check_override(path: str, yaml_value: Optional[str], assignment: str, source: str) -> None:
    """Raise ConfigError when ``yaml_value`` (None = unset) cannot fit the
    schema field at ``path``; unknown paths are left to libair."""
    if yaml_value is None or not yaml_value.strip():
        return
    out = C.c_void_p()
    if int(lib.air_schema_lookup(enc(path), C.byref(out), None)) != K.OK or not out.value:
        return
    kind = FieldKind(int(lib.air_field_kind(out.value)))
    value = _typed(yaml_value)
    if value is None or isinstance(value, _Unknown) or _fits(kind, value):
        return
    field = path.strip()
    if field.startswith("config."):
        field = field[len("config."):]
    raise ConfigError('%s: invalid override "%s": %s: expected %s, got %s'
                      % (source, assignment, field, _EXPECTED[kind], _describe(value)),
                      field=field, file=source)
