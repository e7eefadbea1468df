"""Workload YAML: parse, override, validate, read values, serialise."""

import collections
import ctypes as C
import json as _json

from . import constants as K
from ._lib import lib
from ._util import Owned, dec, enc, take_str, bytes_at
from .errors import check

Change = collections.namedtuple("Change", "path old new")
Change.__doc__ = "One applied override: field path, previous and new value as YAML text (old None when unset)."
Secret = collections.namedtuple("Secret", "name ref scope key")
Permission = collections.namedtuple("Permission", "principal_type principal level")


class Config(Owned):
    """A parsed workload YAML document (air_config).

    Create one with Config.load() / Config.loads() (parse and validate) or
    Config.parse() / Config.parses() (parse only), then override() and
    validate() as needed. Value properties reflect the last successful
    validation (None / 0 before it, and after a later override).
    A Config is used by one thread at a time. Release it with close() or a
    ``with`` block; garbage collection releases it otherwise.
    """

    def __init__(self, _handle):
        self._h = _handle

    # ---- construction ------------------------------------------------------

    @classmethod
    def _new(cls, fn, *args):
        out = C.c_void_p()
        err = C.c_void_p()
        rc = fn(*args, C.byref(out), C.byref(err))
        if rc != K.OK and out.value:
            lib.air_config_free(out)
        check(rc, err)
        return cls(out.value)

    @classmethod
    def parse(cls, path):
        """Parse the YAML file at @path without validating it."""
        return cls._new(lib.air_config_parse_file, enc(path))

    @classmethod
    def parses(cls, data, name=None, base_dir=None):
        """Parse YAML text (str or bytes) without validating it. @name is shown in
        messages; relative root_path values resolve against @base_dir."""
        raw = enc(data)
        return cls._new(lib.air_config_parse_buffer, raw, len(raw), enc(name), enc(base_dir))

    @classmethod
    def load(cls, path, overrides=()):
        """Parse the file at @path, apply @overrides ("FIELD=VALUE" strings) and validate."""
        if not overrides:
            return cls._new(lib.air_config_load_file, enc(path))
        cfg = cls.parse(path)
        return cfg._finish(overrides)

    @classmethod
    def loads(cls, data, name=None, base_dir=None, overrides=()):
        """Parse YAML text, apply @overrides and validate."""
        if not overrides:
            raw = enc(data)
            return cls._new(lib.air_config_load_buffer, raw, len(raw), enc(name), enc(base_dir))
        return cls.parses(data, name, base_dir)._finish(overrides)

    def _finish(self, overrides):
        try:
            for o in overrides:
                self.override(o)
            self.validate()
        except BaseException:
            self.close()
            raise
        return self

    # ---- life cycle ------------------------------------------------------

    @property
    def _handle(self):
        if not self._h:
            raise ValueError("operation on a closed Config")
        return self._h

    def close(self):
        """Release the underlying air_config (idempotent)."""
        h, self._h = self._h, None
        if h:
            lib.air_config_free(h)


    def __repr__(self):
        if not self._h:
            return "<air.Config closed>"
        return "<air.Config %s valid=%s>" % (self.source_name, self.is_valid)

    # ---- overrides and validation ------------------------------------------

    def override(self, assignment):
        """Apply one "FIELD_PATH=VALUE" override (the --override syntax)."""
        err = C.c_void_p()
        check(lib.air_config_override(self._handle, enc(assignment), C.byref(err)), err)
        return self

    def set(self, path, yaml_value):
        """Set @path to @yaml_value (YAML scalar or flow collection text; "null" unsets)."""
        err = C.c_void_p()
        check(lib.air_config_set(self._handle, enc(path), enc(yaml_value), C.byref(err)), err)
        return self

    def validate(self):
        """Decode strictly and apply the semantic rules; raises ConfigError."""
        err = C.c_void_p()
        check(lib.air_config_validate(self._handle, C.byref(err)), err)
        return self

    @property
    def is_valid(self):
        return bool(lib.air_config_is_valid(self._handle))

    @property
    def changes(self):
        """The overrides applied so far, in order, as Change tuples."""
        h = self._handle
        return [Change(dec(lib.air_config_change_path(h, i)), dec(lib.air_config_change_old(h, i)),
                       dec(lib.air_config_change_new(h, i)))
                for i in range(lib.air_config_change_count(h))]

    # ---- serialisation ---------------------------------------------------

    def _owned(self, fn):
        out = C.c_void_p()
        err = C.c_void_p()
        check(fn(self._handle, C.byref(out), C.byref(err)), err)
        return take_str(out)

    def to_yaml(self):
        """The effective (overridden) document as YAML text."""
        return self._owned(lib.air_config_to_yaml)

    def to_json(self):
        """The effective (overridden) document as JSON text."""
        return self._owned(lib.air_config_to_json)

    def to_dict(self):
        """The effective document as Python objects (json.loads of to_json())."""
        return _json.loads(self.to_json())

    @property
    def source_name(self):
        return dec(lib.air_config_source_name(self._handle))

    @property
    def base_dir(self):
        return dec(lib.air_config_base_dir(self._handle))

    @property
    def source_bytes(self):
        """The original bytes as read, before overrides."""
        n = C.c_size_t()
        p = lib.air_config_source_bytes(self._handle, C.byref(n))
        return bytes_at(p, n.value)

    def is_set(self, path):
        """Whether the dotted field path is written (non-null) in the effective document."""
        return lib.air_config_is_set(self._handle, enc(path)) != 0

    # ---- values ----------------------------------------------------------

    def _list(self, count, item):
        h = self._handle
        return [dec(item(h, i)) for i in range(count(h))]

    @property
    def dependencies(self):
        """environment.dependencies (empty when unset; see has_dependencies)."""
        return self._list(lib.air_config_dependency_count, lib.air_config_dependency)

    @property
    def env_variables(self):
        """env_variables as a dict (sorted by name)."""
        h = self._handle
        return {dec(lib.air_config_env_name(h, i)): dec(lib.air_config_env_value(h, i))
                for i in range(lib.air_config_env_count(h))}

    @property
    def secrets(self):
        """secrets as a dict NAME -> "scope/key"."""
        return {s.name: s.ref for s in self.secret_details}

    @property
    def secret_details(self):
        h = self._handle
        return [Secret(dec(lib.air_config_secret_name(h, i)), dec(lib.air_config_secret_ref(h, i)),
                       dec(lib.air_config_secret_scope(h, i)), dec(lib.air_config_secret_key(h, i)))
                for i in range(lib.air_config_secret_count(h))]

    @property
    def include_paths(self):
        return self._list(lib.air_config_include_path_count, lib.air_config_include_path)

    @property
    def permissions(self):
        h = self._handle
        return [Permission(lib.air_config_permission_principal_type(h, i),
                           dec(lib.air_config_permission_principal(h, i)),
                           dec(lib.air_config_permission_level(h, i)))
                for i in range(lib.air_config_permission_count(h))]

    def parameters_yaml(self):
        """parameters as a YAML document (the hyperparameters.yaml contents)."""
        return self._owned(lib.air_config_parameters_yaml)

    def parameters_json(self):
        return self._owned(lib.air_config_parameters_json)

    @property
    def parameters(self):
        """parameters as Python objects."""
        text = self.parameters_json()
        return _json.loads(text) if text else {}


def _getter(fn, conv):
    def get(self):
        return conv(fn(self._handle))
    get.__doc__ = "air_%s()" % fn.__name__[4:] if hasattr(fn, "__name__") else None
    return property(get)


_STRING_FIELDS = (
    "experiment_name", "command", "accelerator_type", "pool_id", "priority_class",
    "environment_version", "unity_catalog_image", "docker_image_url", "docker_image_tag_policy",
    "docker_image_credentials_scope", "docker_image_credentials_key", "root_path",
    "remote_volume", "git_commit", "git_branch", "idempotency_token", "mlflow_run_name",
    "mlflow_experiment_directory", "mlflow_artifact_location", "usage_policy_name",
    "usage_policy_id")
_INT_FIELDS = ("num_accelerators", "num_nodes", "max_retries", "timeout_minutes",
               "code_source_form")
_BOOL_FIELDS = ("has_dependencies", "has_parameters")

for _name in _STRING_FIELDS:
    setattr(Config, _name, _getter(getattr(lib, "air_config_" + _name), dec))
for _name in _INT_FIELDS:
    setattr(Config, _name, _getter(getattr(lib, "air_config_" + _name), int))
for _name in _BOOL_FIELDS:
    setattr(Config, _name, _getter(getattr(lib, "air_config_" + _name), bool))
del _name


def schema_help(path="config", as_json=False):
    """Documentation of a schema path ("config.compute", "compute.pool_id"):
    the text of `air run -h config.<path>`, or with @as_json the parsed JSON
    form. Unknown paths raise ConfigError with suggestions."""
    out = C.c_void_p()
    err = C.c_void_p()
    flags = K.HELP_JSON if as_json else K.HELP_TEXT
    check(lib.air_schema_help(enc(path), flags, C.byref(out), C.byref(err)), err)
    text = take_str(out)
    return _json.loads(text) if as_json else text


def accelerator_gpus_per_node(accelerator_type):
    """GPUs per node of an accelerator type; 0 when unknown."""
    return lib.air_accelerator_gpus_per_node(enc(accelerator_type))


def accelerator_display_name(accelerator_type):
    """Display name ("H100"); the input itself when unknown."""
    return dec(lib.air_accelerator_display_name(enc(accelerator_type)))
