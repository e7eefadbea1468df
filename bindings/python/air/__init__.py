"""Python binding of libair, the client library for Databricks AI Runtime.

    import air

    client = air.Client(host="https://example.cloud.databricks.com", token="dapi...")
    cfg = air.Config.load("train.yaml", overrides=["compute.num_accelerators=16"])
    run = client.submit(cfg)
    for rec in client.logs(run.run_id):
        print(rec.line)
    print(run.wait().state)

``air.Client("local://")`` runs workloads on this machine instead (the
local workspace). Ctrl-C stops any call within a second (KeyboardInterrupt).
The shared library is the wheel's bundled copy, else the build of the source
tree the package was installed from, else the system's libair.so.1, else the
one pkg-config knows; AIR_LIBRARY_PATH overrides. See docs/python.md.
"""

import inspect
import sys
from typing import Any, Dict, List, Optional, get_type_hints

from . import _source_tree  # noqa: F401  (generated modules of a source tree)
from . import constants
from ._lib import lib as _L
from .client import Client
from .config import Change, Config
from ._config_values import Permission, Secret
from .enums import (CheckStatus, CodeSourceForm, DebugType, ErrorKind, ExcerptKind, Feature,
                    FieldKind, LogSource, NodeSource, Phase, Principal, State, VariantStatus)
from .errors import (AbortedError, AirError, AirFileNotFoundError, AirFilePermissionError,
                     ApiError, AuthError, CallInterruptedError, ConfigError, ConflictError,
                     FeatureDisabledError, InternalError, InvalidArgumentError, LocalIOError,
                     NetworkError, NotFoundError, NotValidatedError, OutOfMemoryError,
                     PermissionDeniedError, ProtocolError, RateLimitError, RejectedError,
                     ServerError, SnapshotError, TimedOutError, UnsupportedError, error_class,
                     status_name, strerror)
from .failure import Failure
from .interrupt import Interrupt
from .listing import RunListing
from .metrics import LatestMetrics, MetricHistory, MetricPoint
from .logs import (DownloadEntry, DownloadReport, LogRecord, LogsSummary, LogStream,
                   alert_label, alert_patterns, match_alert)
from .results import (Bundle, Check, CheckReport, ImagePush, ImageRegistration, MlflowLinks,
                      Pool, Progress, Submission)
from .runs import CancelOutcome, CancelReport, Iteration, Run, SweepStats
from .schema import Field, field, schema
from .sweeps import Sweep, Variant

try:
    # Generated at install time (meson, or setup.py) from the project version.
    from ._version import __version__  # type: ignore[import]
except ImportError:  # the source tree: the version of the library it loaded
    __version__ = str(_L.air_version_string().decode())

__all__ = [
    "AbortedError", "AirError", "AirFileNotFoundError", "AirFilePermissionError", "ApiError",
    "AuthError", "Bundle", "CallInterruptedError", "CancelOutcome", "CancelReport", "Change",
    "Check", "CheckReport", "CheckStatus",
    "Client", "CodeSourceForm", "Config", "ConfigError", "ConflictError", "DebugType",
    "DownloadEntry", "DownloadReport", "ErrorKind", "Feature", "FeatureDisabledError", "Field",
    "FieldKind", "ImagePush", "ImageRegistration", "InternalError", "Interrupt",
    "InvalidArgumentError", "Iteration", "LatestMetrics", "LocalIOError", "LogRecord", "LogSource",
    "LogStream", "LogsSummary", "MetricHistory", "MetricPoint", "MlflowLinks", "NetworkError", "NotFoundError", "NotValidatedError",
    "OutOfMemoryError", "Permission", "PermissionDeniedError", "Phase", "Pool", "Principal",
    "Progress", "ProtocolError", "RateLimitError", "RejectedError", "Run", "RunListing", "Secret",
    "ServerError", "SnapshotError", "State", "Submission", "Sweep", "SweepStats", "TimedOutError",
    "UnsupportedError", "Variant", "VariantStatus", "accelerator_display_name", "accelerator_gpus_per_node", "alert_patterns",
    "constants", "error_class", "features", "field", "library_path", "match_alert", "schema",
    "status_name", "strerror", "version", "version_number",
    # why a run failed (1.2)
    "ExcerptKind", "Failure", "NodeSource", "alert_label",
]


def _resolve_annotations() -> None:
    """Evaluate the annotations written as strings (forward and circular
    references between the modules) of the public classes and functions, so
    that help() shows types rather than ForwardRef('...')."""
    names: Dict[str, Any] = {n: v for n, v in globals().items() if not n.startswith("__")}
    functions: List[Any] = []
    for obj in list(names.values()):
        if isinstance(obj, type) and obj.__module__.startswith(__name__ + "."):
            for member in vars(obj).values():
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    functions.append(member)
            own = vars(obj).get("__annotations__")
            if own:
                hints = _hints(obj, names)
                if hints is not None:
                    obj.__annotations__ = {k: hints.get(k, v) for k, v in own.items()}
        elif inspect.isfunction(obj):
            functions.append(obj)
    for fn in functions:
        hints = _hints(fn, names)
        if hints is not None:
            fn.__annotations__ = hints


def _hints(obj: Any, names: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """typing.get_type_hints() of @obj, or None when some cannot be evaluated
    on this interpreter ("str | bytes" before Python 3.10)."""
    module = sys.modules.get(obj.__module__)
    try:
        hints = get_type_hints(obj, vars(module) if module else None, names)
    except Exception:  # noqa: BLE001 - any failure leaves the strings as they are
        return None
    # "-> None" as written, not "-> NoneType"
    return {k: None if v is type(None) else v for k, v in hints.items()}


_resolve_annotations()


def version() -> str:
    """Version of the loaded library ("M.m.p")."""
    return str(_L.air_version_string().decode())


def version_number() -> int:
    """Version of the loaded library as 0xMMmmpp."""
    return int(_L.air_version_number())


def features() -> Feature:
    """What the loaded library supports."""
    return Feature(int(_L.air_features()))


def library_path() -> str:
    """The path (or name) the library was loaded from."""
    return _L.path


def accelerator_gpus_per_node(accelerator_type: str) -> int:
    """GPUs per node of an accelerator type ("GPU_8xH100" -> 8); 0 when unknown."""
    return int(_L.air_accelerator_gpus_per_node(accelerator_type.encode()))


def accelerator_display_name(accelerator_type: str) -> Optional[str]:
    """Display name of an accelerator type ("H100"); the input itself when unknown."""
    name = _L.air_accelerator_display_name(accelerator_type.encode())
    return None if name is None else str(name.decode())
