"""Python binding of libair, the client library for Databricks AI Runtime.

    import air
    with air.Config.load("train.yaml", overrides=["compute.num_accelerators=16"]) as cfg, \\
         air.Client(host="https://example.cloud.databricks.com", token="dapi...") as client:
        sub = client.submit(cfg)
        client.stream_logs(sub.run_id, lambda rec: print(rec.line))

The library is loaded from AIR_LIBRARY_PATH, else found as "air" by
ctypes.util.find_library, else as libair.so.0. See docs/bindings.md.
"""

from . import constants
from .constants import *  # noqa: F401,F403 - OPT_HOST, ENOTFOUND, KIND_TRANSIENT, ...
from ._lib import lib as _L
from .errors import (AirError, OutOfMemoryError, InvalidArgumentError, ConfigError, NetworkError,
                     TimedOutError, AuthError, NotFoundError, ConflictError, RateLimitError,
                     ServerError, ProtocolError, AbortedError, CallInterruptedError,
                     UnsupportedError, LocalIOError, ApiError, RejectedError, SnapshotError,
                     PermissionDeniedError, FeatureDisabledError, InternalError, error_class,
                     strerror, status_name, kind_name)
from .config import (Config, Change, Secret, Permission, schema_help, accelerator_gpus_per_node,
                     accelerator_display_name)
from .interrupt import Interrupt
from .client import (Client, Run, RunListing, Submission, Progress, Iteration, CancelReport,
                     CancelOutcome, LogRecord, LogsSummary, DownloadReport, DownloadEntry, Pool,
                     alert_patterns, match_alert, OPTIONS)
from .images import push_image, ImagePush

__version__ = "0.1.0"


def version():
    """Version string of the loaded library ("M.m.p")."""
    return _L.air_version_string().decode()


def version_number():
    """Version of the loaded library as 0xMMmmpp."""
    return _L.air_version_number()


def features():
    """FEATURE_* bits of the loaded library."""
    return _L.air_features()


def library_path():
    """What the library was loaded from."""
    return _L.path


def global_init():
    """Take a reference on libair's process-wide state (libcurl global init).
    Clients do it implicitly; call it from the main thread before starting
    threads when libcurl is also used elsewhere in the process."""
    from .errors import check
    check(_L.air_global_init())


def global_cleanup():
    """Drop one global_init() reference."""
    _L.air_global_cleanup()
