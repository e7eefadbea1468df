"""The options object of one C call (air_<kind>_options_*)."""

import ctypes as C
from typing import Any, Optional

from . import constants as K
from ._lib import lib
from ._util import enc
from .errors import check, error_class, strerror


class Options:
    """air_<kind>_options: created empty, filled with typed setters, freed
    on close(); ``handle`` goes to the C call."""

    def __init__(self, kind: str) -> None:
        self._kind = kind
        out = C.c_void_p()
        check(int(getattr(lib, "air_%s_options_new" % kind)(C.byref(out))))
        self.handle: Optional[int] = out.value

    def _fn(self, what: str) -> Any:
        return getattr(lib, "air_%s_options_%s" % (self._kind, what))

    def set_int(self, opt: int, value: Optional[int], what: Optional[str] = None) -> None:
        """Set integer option ``opt`` unless ``value`` is None; a refusal names
        the parameter ``what`` when given."""
        if value is not None:
            self._check(int(self._fn("set_int")(self.handle, opt, int(value))), what, value)

    def set_str(self, opt: int, value: "Optional[str]", what: Optional[str] = None) -> None:
        """Set string option ``opt`` unless ``value`` is None; a refusal names
        the parameter ``what`` when given."""
        if value is not None:
            self._check(int(self._fn("set_str")(self.handle, opt, enc(value))), what, value)

    @staticmethod
    def _check(rc: int, what: Optional[str], value: object) -> None:
        if rc != K.OK and what is not None:
            raise error_class(rc)("%s: %s: %r" % (what, strerror(rc), value), code=rc)
        check(rc)

    def set_interrupt(self, intr: Optional[int]) -> None:
        """The call's air_interrupt."""
        check(int(self._fn("set_interrupt")(self.handle, intr)))

    def set_deadline_ms(self, ms: Optional[int]) -> None:
        """The call's deadline (None or 0: none)."""
        if ms is not None:
            check(int(self._fn("set_deadline_ms")(self.handle, ms)))

    def close(self) -> None:
        """Release the options (idempotent)."""
        h, self.handle = self.handle, None
        if h:
            self._fn("free")(h)

    def __enter__(self) -> "Options":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
