"""Methods of the enums of air.enums, which is generated from the headers
(bindings/gen_tables.py): an enum that needs behaviour of its own names its
class here as a mixin."""

from typing import TYPE_CHECKING, cast

from . import constants as K

if TYPE_CHECKING:
    from .enums import CheckStatus, State


class CheckStatusMethods:
    """What air.CheckStatus adds to its values."""

    def __str__(self) -> str:
        """The status as libair and the JSON output name it ("pass", "skipped")."""
        return cast("CheckStatus", self).name.lower()


class StateMethods:
    """What air.State adds to its values."""

    @property
    def is_terminal(self) -> bool:
        """True for final states (TERMINATED and after; OTHER excluded)."""
        value = cast("State", self).value
        return bool(value >= K.STATE_TERMINATED and value != K.STATE_OTHER)

    @classmethod
    def _from_c(cls, value: int) -> "State":
        from .enums import State
        try:
            return State(value)
        except ValueError:
            return State.OTHER

    @classmethod
    def _from_name(cls, name: str) -> "State":
        from .enums import State
        member = State.__members__.get(name)
        return member if member is not None else State.OTHER
