"""Config: a workload YAML document — parse, override, validate, read."""

import ctypes as C
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, TypeVar

from . import constants as K
from ._call import blocking
from ._config_values import ConfigValues
from ._lib import lib
from ._opts import Options
from ._override_check import check_override
from ._util import Seconds, StrPath, bytes_at, dec, enc, millis, take_str
from .errors import ConfigError, check
from .results import Bundle

if TYPE_CHECKING:
    from .interrupt import Interrupt

_T = TypeVar("_T", bound="Config")


@dataclass(frozen=True)
class Change:
    """One applied override."""

    path: str
    """Field path ("compute.num_accelerators")."""
    old: Optional[str]
    """Previous value as one-line YAML, or None when the field was unset."""
    new: str
    """New value as YAML ("null" when the override unset the field)."""


class Config(ConfigValues):
    """A workload YAML document (the file that describes a run).

    Create one with Config.load() / Config.loads() (parse and validate) or
    Config.parse() / Config.parses() (parse only), then override() or set()
    and validate() as needed.

    Values (``experiment_name``, ``num_accelerators``, ...) are those of
    the last successful validation. After a successful override() or set()
    the config must be validated again: until then ``is_valid`` is False and
    reading a value raises NotValidatedError (to_dict(), to_yaml() and
    ``changes`` show the overridden document at once). A failed override()
    or set() changes nothing. A failed validate() leaves the config not
    valid. A Config is used by one thread at a time; close() (or a ``with``
    block, or garbage collection) releases it.
    """

    def __init__(self, _handle: int) -> None:
        self._h: Optional[int] = _handle

    # ---- construction ------------------------------------------------------

    @classmethod
    def _new(cls, fn: Callable[..., int], *args: Any, path: Optional[StrPath] = None) -> "Config":
        out = C.c_void_p()
        err = C.c_void_p()
        rc = int(fn(*args, C.byref(out), C.byref(err)))
        if rc != K.OK and out.value:
            lib.air_config_free(out)
        check(rc, err, path)
        return cls(int(out.value or 0))

    @classmethod
    def parse(cls, path: StrPath) -> "Config":
        """Parse a YAML file without validating it.

        A missing file raises FileNotFoundError (air.AirFileNotFoundError).
        """
        return cls._new(lib.air_config_parse_file, enc(path), path=path)

    @classmethod
    def parses(cls, text: "str | bytes", name: Optional[str] = None,
               base_dir: Optional[StrPath] = None) -> "Config":
        """Parse YAML text without validating it.

        Args:
            text: the YAML document.
            name: the name messages give the document.
            base_dir: what relative code_source.root_path values resolve against.
        """
        raw = enc(text) or b""
        return cls._new(lib.air_config_parse_buffer, raw, len(raw), enc(name), enc(base_dir))

    @classmethod
    def load(cls, path: StrPath, overrides: Iterable[str] = ()) -> "Config":
        """Parse a YAML file, apply ``overrides`` ("FIELD=VALUE") and validate."""
        return cls.parse(path)._finish(overrides)

    @classmethod
    def loads(cls, text: "str | bytes", name: Optional[str] = None,
              base_dir: Optional[StrPath] = None, overrides: Iterable[str] = ()) -> "Config":
        """Parse YAML text (see :meth:`parses`), apply ``overrides`` and validate."""
        return cls.parses(text, name, base_dir)._finish(overrides)

    def _finish(self: _T, overrides: Iterable[str]) -> _T:
        try:
            for assignment in overrides:
                self.override(assignment)
            self.validate()
        except BaseException:
            self.close()
            raise
        return self

    def copy(self) -> "Config":
        """An independent Config of the effective document (overrides
        applied), with the same name and base directory, validated when this
        one is valid. The copy has no ``changes`` of its own."""
        new = Config.parses(self.to_yaml(), self.source_name, self.base_dir)
        if self.is_valid:
            new._finish(())
        return new

    # ---- life cycle ------------------------------------------------------

    @property
    def _handle(self) -> int:
        if not self._h:
            raise ValueError("operation on a closed Config")
        return self._h

    def close(self) -> None:
        """Release the document (idempotent)."""
        h, self._h = self._h, None
        if h:
            lib.air_config_free(h)

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None):
            self.close()

    def __repr__(self) -> str:
        if not self._h:
            return "<air.Config closed>"
        return "<air.Config %s valid=%s>" % (self.source_name, self.is_valid)

    # ---- overrides and validation ------------------------------------------

    def override(self: _T, assignment: str) -> _T:
        """Apply one "FIELD_PATH=VALUE" override (the --override syntax; VALUE
        is YAML: 8 is an integer, '8' a string, [a, b] a list, null unsets).
        A value that cannot fit the field ("compute.num_accelerators=abc") is
        refused at once with ConfigError naming the field; nothing changes on
        failure."""
        path, sep, value = assignment.partition("=")
        if sep:
            check_override(path, value, assignment, self.source_name or "<memory>")
        err = C.c_void_p()
        check(int(lib.air_config_override(self._handle, enc(assignment), C.byref(err))), err)
        return self

    def set(self: _T, path: str, value: Any) -> _T:
        """Set the field at ``path`` to a Python value.

        The value is a str, int, float, bool, list or dict (None unsets the
        field), checked like :meth:`override`.
        """
        try:
            text = None if value is None else json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ConfigError("%s: cannot set %s: %s" % (self.source_name, path, exc),
                              field=path) from None
        check_override(path, text, "%s=%s" % (path, text), self.source_name or "<memory>")
        err = C.c_void_p()
        check(int(lib.air_config_set(self._handle, enc(path), enc(text), C.byref(err))), err)
        return self

    def validate(self: _T) -> _T:
        """Decode every field strictly and apply the semantic rules; raises
        ConfigError (with ``field``, ``file``, ``line``, ``column``)."""
        err = C.c_void_p()
        check(int(lib.air_config_validate(self._handle, C.byref(err))), err)
        return self

    @property
    def is_valid(self) -> bool:
        """True when the last validation succeeded and no override came after it."""
        return bool(lib.air_config_is_valid(self._handle))

    @property
    def changes(self) -> List[Change]:
        """The overrides applied so far, in order."""
        h = self._handle
        return [Change(dec(lib.air_config_change_path(h, i)) or "",
                       dec(lib.air_config_change_old(h, i)),
                       dec(lib.air_config_change_new(h, i)) or "null")
                for i in range(int(lib.air_config_change_count(h)))]

    # ---- the document ------------------------------------------------------

    def _owned(self, fn: Callable[..., int]) -> str:
        out = C.c_void_p()
        err = C.c_void_p()
        check(int(fn(self._handle, C.byref(out), C.byref(err))), err)
        return take_str(out) or ""

    def to_yaml(self) -> str:
        """The effective (overridden) document as block YAML."""
        return self._owned(lib.air_config_to_yaml)

    def to_json(self) -> str:
        """The effective (overridden) document as compact JSON."""
        return self._owned(lib.air_config_to_json)

    def to_dict(self) -> Dict[str, Any]:
        """The effective (overridden) document as Python objects."""
        doc: Dict[str, Any] = json.loads(self.to_json())
        return doc

    @property
    def source_name(self) -> Optional[str]:
        """The path the config was read from, or the name given to parses()."""
        return dec(lib.air_config_source_name(self._handle))

    @property
    def base_dir(self) -> Optional[str]:
        """The directory relative root_path values resolve against."""
        return dec(lib.air_config_base_dir(self._handle))

    @property
    def source_bytes(self) -> bytes:
        """The original bytes as read, before overrides."""
        n = C.c_size_t()
        p = lib.air_config_source_bytes(self._handle, C.byref(n))
        return bytes_at(p, n.value)

    def is_set(self, path: str) -> bool:
        """True when the dotted field path is written (non-null) in the
        effective document: tells an explicit value from a default."""
        return bool(lib.air_config_is_set(self._handle, enc(path)))

    # ---- submission --------------------------------------------------------------

    def check_submission(self, *, idempotency_key: Optional[str] = None,
                         base_dir: Optional[StrPath] = None,
                         interrupt: Optional["Interrupt"] = None,
                         timeout: Optional[Seconds] = None) -> None:
        """Make the checks a submission makes without the workspace.

        The same checks as ``air run --dry-run``; nothing is contacted. In
        order: the idempotency key (at most 64 bytes), then, with a
        code_source, the snapshot plan (root, git state, include paths) and,
        for a plain-tar snapshot, its packaging into a temporary file that
        is then deleted. A workload that passes fails no local check of its
        submission. Since libair 1.2.

        Args:
            idempotency_key: the key to check; default: the YAML
                idempotency_token, as it would be sent.
            base_dir: directory for a relative root_path, as in
                :meth:`air.Client.submit`.
            interrupt: stops the packaging when raised.
            timeout: seconds for the whole check.

        Raises:
            InvalidArgumentError: the key is too long (its length in bytes).
            SnapshotError: the snapshot plan or packaging refused something.
        """
        h = self._handle
        with Options("submit") as opts:
            opts.set_str(K.SUBMIT_IDEMPOTENCY_KEY, idempotency_key, "idempotency_key")
            opts.set_str(K.SUBMIT_BASE_DIR, None if base_dir is None else os.fspath(base_dir),
                         "base_dir")
            blocking(opts, (interrupt,), lambda err: int(lib.air_config_check_submission(
                h, opts.handle, C.byref(err))), millis(timeout, "timeout"))

    # ---- bundle ----------------------------------------------------------------

    def write_bundle(self, output_dir: Optional[StrPath] = None, *,
                     base_dir: Optional[StrPath] = None, default_runtime: Optional[str] = None,
                     force: bool = False, use_environment: bool = True,
                     interrupt: Optional["Interrupt"] = None,
                     timeout: Optional[Seconds] = None) -> Bundle:
        """Write this validated workload as a Declarative Automation Bundle.

        The bundle runs the workload as a persistent job (``air
        convert-to-dabs``): databricks.yml and generated_artifacts/
        (training_config.yaml, command.sh and the sidecars a submission
        uploads). Local only; since libair 1.1. Every check is made before
        the first file is written.

        Args:
            output_dir: where to write it (created when missing; default:
                the config's base directory). The code source's root must
                lie inside it.
            base_dir: what relative code_source.root_path values resolve
                against (default: the config's).
            default_runtime: the environment channel when the YAML names no
                environment.version (default $DATABRICKS_DL_RUNTIME_IMAGE
                unless ``use_environment`` is False, else "6").
            force: overwrite existing files and remove the sidecars the
                workload no longer has.

        Returns:
            An :class:`air.Bundle`.

        Raises:
            ConflictError: without ``force``, a file exists (it is named).
            UnsupportedError: a field a bundle cannot express (``field``).
        """
        h = self._handle
        out = C.c_void_p()
        try:
            with Options("bundle") as opts:
                opts.set_str(K.BUNDLE_BASE_DIR, None if base_dir is None else os.fspath(base_dir),
                             "base_dir")
                opts.set_str(K.BUNDLE_DEFAULT_RUNTIME, default_runtime, "default_runtime")
                opts.set_int(K.BUNDLE_FORCE, 1 if force else 0)
                opts.set_int(K.BUNDLE_USE_ENVIRONMENT, 1 if use_environment else 0)
                # A forced write may start again after a signal whose handler
                # returned; another would find its own first files in the way.
                blocking(opts, (interrupt,), lambda err: int(lib.air_config_write_bundle(
                    h, enc(output_dir), opts.handle, C.byref(out), C.byref(err))),
                    millis(timeout, "timeout"), resumable=force)
            b = out.value
            return Bundle(
                dec(lib.air_bundle_dir(b)) or "", dec(lib.air_bundle_job_key(b)) or "",
                [dec(lib.air_bundle_file(b, i)) or ""
                 for i in range(int(lib.air_bundle_file_count(b)))],
                [dec(lib.air_bundle_removed(b, i)) or ""
                 for i in range(int(lib.air_bundle_removed_count(b)))])
        finally:
            lib.air_bundle_free(out)

    def _values_handle(self) -> int:
        return self._handle
