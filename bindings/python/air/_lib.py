"""The loaded libair with the ctypes signature of every function it exports.

ctypes defaults every result to a C ``int`` and converts arguments by
guessing, which truncates pointers and 64-bit integers; so every exported
function gets the restype and argtypes of air._signatures, generated from the
headers' prototypes (bindings/gen_tables.py), and the package calls nothing
that is not declared there.
"""

import ctypes as C
from typing import Any, List, Optional

from . import _find
from ._signatures import SIGNATURES

# The oldest library this package works with (0xMMmmpp).
MIN_VERSION = 0x010000


class _Missing:
    """Stands in for a function the loaded library does not export (an
    older libair): calling it raises UnsupportedError."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: Any) -> Any:
        from .errors import UnsupportedError
        raise UnsupportedError("%s is not exported by the loaded libair (%s)" % (self.__name__, lib.path))


class Library:
    """The loaded CDLL with every signature applied, one attribute per
    declared function; ``missing`` lists the declared functions it lacks."""

    def __init__(self, dll: C.CDLL, path: str) -> None:
        self.path = path
        self.dll = dll
        self.missing: List[str] = []
        for name, (restype, argtypes) in SIGNATURES.items():
            try:
                fn = getattr(dll, name)
            except AttributeError:
                self.missing.append(name)
                setattr(self, name, _Missing(name))
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def __getattr__(self, name: str) -> Any:  # only reached for undeclared names
        raise AttributeError("air._lib: %s is not declared in SIGNATURES" % name)

    def has(self, name: str) -> bool:
        """True when the loaded library exports @name."""
        return name not in self.missing


lib = Library(*_find.load())

if lib.has("air_version_number") and lib.air_version_number() < MIN_VERSION:
    raise ImportError("air: libair at %s is version %s; this package needs %d.%d or newer" % (
        lib.path, lib.air_version_string().decode(), MIN_VERSION >> 16, (MIN_VERSION >> 8) & 0xff))


def pythonapi_check_signals() -> Optional[Any]:
    """PyErr_CheckSignals of this interpreter, or None where ctypes.pythonapi is absent."""
    try:
        fn = C.pythonapi.PyErr_CheckSignals
    except AttributeError:
        return None
    fn.restype = C.c_int
    fn.argtypes = []
    return fn
