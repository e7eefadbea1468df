"""The workload YAML schema: what each field means, its type and default."""

import ctypes as C
from dataclasses import dataclass
from typing import Optional, Tuple

from ._lib import lib
from ._util import dec, enc
from .enums import FieldKind
from .errors import check


@dataclass(frozen=True)
class Field:
    """One field of the workload schema (``air run -h config.<path>``)."""

    name: str
    """Field name ("accelerator_type"; "config" for the root)."""
    path: str
    """Dotted path from the root ("config.compute.accelerator_type")."""
    kind: FieldKind
    """What values the field takes."""
    type: str
    """Type as the documentation shows it ("string", "int", "list of string")."""
    required: bool
    """True when the field must always be set."""
    required_when: str
    """"yes", "no", or the condition under which the field is required."""
    default: Optional[str]
    """The value used when the field is not set, as YAML text, or None."""
    description: str
    """What the field means."""
    children: Tuple["Field", ...]
    """Fixed children (objects and lists of objects), in documentation order."""

    def child(self, name: str) -> "Field":
        """The child called ``name`` (KeyError when there is none)."""
        for c in self.children:
            if c.name == name:
                return c
        raise KeyError(name)


def _field(ptr: int, parent: Optional[str]) -> Field:
    name = dec(lib.air_field_name(ptr)) or ""
    path = name if parent is None else parent + "." + name
    children = tuple(_field(lib.air_field_child(ptr, i), path)
                     for i in range(int(lib.air_field_child_count(ptr))))
    return Field(name=name, path=path, kind=FieldKind(int(lib.air_field_kind(ptr))),
                 type=dec(lib.air_field_type(ptr)) or "",
                 required=bool(lib.air_field_required(ptr)),
                 required_when=dec(lib.air_field_required_when(ptr)) or "",
                 default=dec(lib.air_field_default(ptr)),
                 description=dec(lib.air_field_description(ptr)) or "", children=children)


def field(path: str) -> Field:
    """The schema field at ``path``.

    ``path`` is a field path such as "compute.accelerator_type" (a leading
    "config." is optional). An unknown path raises ConfigError with
    ``suggestion`` (the name probably meant) and the valid names in its
    message.
    """
    out = C.c_void_p()
    err = C.c_void_p()
    check(int(lib.air_schema_lookup(enc(path), C.byref(out), C.byref(err))), err)
    stripped = path.strip()
    parent = stripped.rsplit(".", 1)[0] if "." in stripped else None
    if parent is not None and not parent.startswith("config"):
        parent = "config." + parent
    if parent is None and stripped != "config":
        parent = "config"
    return _field(int(out.value or 0), parent)


def schema() -> Field:
    """The root field ("config"): the whole workload document."""
    return _field(int(lib.air_schema_root()), None)
