"""The enums of libair as Python enums (values are the C values)."""

import enum

from . import constants as K


class State(enum.Enum):
    """Display state of a run: the result once there is one, else the life
    cycle state (air_state)."""

    UNKNOWN = K.STATE_UNKNOWN
    PENDING = K.STATE_PENDING
    QUEUED = K.STATE_QUEUED
    BLOCKED = K.STATE_BLOCKED
    WAITING_FOR_RETRY = K.STATE_WAITING_FOR_RETRY
    RUNNING = K.STATE_RUNNING
    TERMINATING = K.STATE_TERMINATING
    TERMINATED = K.STATE_TERMINATED
    SKIPPED = K.STATE_SKIPPED
    INTERNAL_ERROR = K.STATE_INTERNAL_ERROR
    SUCCESS = K.STATE_SUCCESS
    SUCCESS_WITH_FAILURES = K.STATE_SUCCESS_WITH_FAILURES
    FAILED = K.STATE_FAILED
    TIMEDOUT = K.STATE_TIMEDOUT
    CANCELED = K.STATE_CANCELED
    MAXIMUM_CONCURRENT_RUNS_REACHED = K.STATE_MAXIMUM_CONCURRENT_RUNS_REACHED
    EXCLUDED = K.STATE_EXCLUDED
    UPSTREAM_FAILED = K.STATE_UPSTREAM_FAILED
    UPSTREAM_CANCELED = K.STATE_UPSTREAM_CANCELED
    DISABLED = K.STATE_DISABLED
    OTHER = K.STATE_OTHER

    @property
    def is_terminal(self) -> bool:
        """True for final states (TERMINATED and after; OTHER excluded)."""
        return self.value >= K.STATE_TERMINATED and self is not State.OTHER

    @classmethod
    def _from_c(cls, value: int) -> "State":
        try:
            return cls(value)
        except ValueError:
            return cls.OTHER

    @classmethod
    def _from_name(cls, name: str) -> "State":
        member = cls.__members__.get(name)
        return member if member is not None else cls.OTHER


class Phase(enum.Enum):
    """Phases of a submission, in the order they happen (air_phase)."""

    IDENTITY = K.PHASE_IDENTITY
    PREFLIGHT = K.PHASE_PREFLIGHT
    POLICY = K.PHASE_POLICY
    DIRECTORY = K.PHASE_DIRECTORY
    IMAGE = K.PHASE_IMAGE
    ARTIFACTS = K.PHASE_ARTIFACTS
    PACKAGING = K.PHASE_PACKAGING
    SNAPSHOT = K.PHASE_SNAPSHOT
    SUBMIT = K.PHASE_SUBMIT
    DONE = K.PHASE_DONE


class ErrorKind(enum.Enum):
    """What a caller should do about a failure (air_kind)."""

    NONE = K.KIND_NONE
    INVALID_CONFIG = K.KIND_INVALID_CONFIG
    INVALID_ARGUMENT = K.KIND_INVALID_ARGUMENT
    PERMANENT = K.KIND_PERMANENT
    NOT_FOUND = K.KIND_NOT_FOUND
    CONFLICT = K.KIND_CONFLICT
    TRANSIENT = K.KIND_TRANSIENT
    IO = K.KIND_IO
    INTERNAL = K.KIND_INTERNAL
    ABORTED = K.KIND_ABORTED


class LogSource(enum.Enum):
    """Where a log record came from (air_log_source)."""

    ENDPOINT = K.LOG_SOURCE_ENDPOINT
    MLFLOW = K.LOG_SOURCE_MLFLOW


class DebugType(enum.Enum):
    """Kinds of debug trace messages (air_debug_type)."""

    INFO = K.DEBUG_INFO
    REQUEST = K.DEBUG_REQUEST
    RESPONSE = K.DEBUG_RESPONSE
    BODY_OUT = K.DEBUG_BODY_OUT
    BODY_IN = K.DEBUG_BODY_IN


class CodeSourceForm(enum.Enum):
    """Form of a workload's code_source (air_code_source_form)."""

    NONE = K.CODE_SOURCE_NONE
    FLAT = K.CODE_SOURCE_FLAT
    NESTED = K.CODE_SOURCE_NESTED


class Principal(enum.Enum):
    """Principal kinds of a permission grant (air_principal)."""

    USER = K.PRINCIPAL_USER
    GROUP = K.PRINCIPAL_GROUP
    SERVICE_PRINCIPAL = K.PRINCIPAL_SERVICE_PRINCIPAL


class FieldKind(enum.Enum):
    """Kinds of workload schema fields (air_schema_kind)."""

    OBJECT = K.FIELD_OBJECT
    STRING = K.FIELD_STRING
    INT = K.FIELD_INT
    SCALAR = K.FIELD_SCALAR
    BOOL_OR_STRING = K.FIELD_BOOL_OR_STRING
    STRING_LIST = K.FIELD_STRING_LIST
    OBJECT_LIST = K.FIELD_OBJECT_LIST
    STRING_MAP = K.FIELD_STRING_MAP
    ANY_MAP = K.FIELD_ANY_MAP


class Feature(enum.Flag):
    """Feature bits of the loaded library (air_feature)."""

    HTTPS = K.FEATURE_HTTPS
    OAUTH = K.FEATURE_OAUTH
    SNAPSHOT = K.FEATURE_SNAPSHOT
    THREADSAFE = K.FEATURE_THREADSAFE


# Enum class -> prefix of its members' C names, for the ABI checks.
C_PREFIXES = {State: "STATE_", Phase: "PHASE_", ErrorKind: "KIND_", LogSource: "LOG_SOURCE_",
              DebugType: "DEBUG_", CodeSourceForm: "CODE_SOURCE_", Principal: "PRINCIPAL_",
              FieldKind: "FIELD_", Feature: "FEATURE_"}
