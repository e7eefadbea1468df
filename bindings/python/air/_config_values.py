"""The values of a validated Config, one typed property each."""

import ctypes as C
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Dict, List, Optional

from ._lib import lib
from ._util import dec, take_str
from .enums import CodeSourceForm, Principal
from .errors import NotValidatedError, check


@dataclass(frozen=True)
class Secret:
    """One entry of ``secrets``: NAME -> "scope/key"."""

    name: str
    """Environment variable name the secret is exposed as."""
    ref: str
    """The "scope/key" reference as written."""
    scope: str
    """The secret scope."""
    key: str
    """The key within the scope."""


@dataclass(frozen=True)
class Permission:
    """One entry of ``permissions``."""

    principal_type: Principal
    """User, group or service principal."""
    principal: str
    """The principal's name."""
    level: str
    """Permission level ("CAN_VIEW", "CAN_MANAGE_RUN", ...)."""


class ConfigValues:
    """Typed read access to the values of the last successful validation;
    each raises NotValidatedError while the config is not valid."""

    def _values_handle(self) -> int:
        raise NotImplementedError

    def _valid(self) -> int:
        h = self._values_handle()
        if not lib.air_config_is_valid(h):
            raise NotValidatedError(
                "the config has no validated values: it was not validated, its validation "
                "failed, or it was overridden since; call validate()")
        return h

    def _str(self, fn: Callable[[int], Any]) -> Optional[str]:
        return dec(fn(self._valid()))

    def _list(self, count: Callable[[int], Any], item: Callable[[int, int], Any]) -> List[str]:
        h = self._valid()
        return [dec(item(h, i)) or "" for i in range(int(count(h)))]

    def _owned(self, fn: Callable[..., int]) -> str:
        h = self._valid()
        out = C.c_void_p()
        err = C.c_void_p()
        check(int(fn(h, C.byref(out), C.byref(err))), err)
        return take_str(out) or ""

    @property
    def experiment_name(self) -> Optional[str]:
        """experiment_name as written."""
        return self._str(lib.air_config_experiment_name)

    @property
    def command(self) -> Optional[str]:
        """command, after overrides, verbatim."""
        return self._str(lib.air_config_command)

    @property
    def accelerator_type(self) -> Optional[str]:
        """compute.accelerator_type ("GPU_8xH100")."""
        return self._str(lib.air_config_accelerator_type)

    @property
    def pool_id(self) -> Optional[str]:
        """compute.pool_id, trimmed; None when unset."""
        return self._str(lib.air_config_pool_id)

    @property
    def priority_class(self) -> Optional[str]:
        """compute.priority_class, upper-cased ("BEST_EFFORT"); None when unset."""
        return self._str(lib.air_config_priority_class)

    @property
    def environment_version(self) -> Optional[str]:
        """environment.version, normalised ("6"); None when unset (the default channel)."""
        return self._str(lib.air_config_environment_version)

    @property
    def unity_catalog_image(self) -> Optional[str]:
        """environment.unity_catalog_image, trimmed; None when unset."""
        return self._str(lib.air_config_unity_catalog_image)

    @property
    def docker_image_url(self) -> Optional[str]:
        """environment.docker_image.url, trimmed; None without a legacy image."""
        return self._str(lib.air_config_docker_image_url)

    @property
    def docker_image_tag_policy(self) -> Optional[str]:
        """environment.docker_image.tag_policy, lower-cased ("auto" when unset); None without image."""
        return self._str(lib.air_config_docker_image_tag_policy)

    @property
    def docker_image_credentials_scope(self) -> Optional[str]:
        """environment.docker_image.credentials_scope; None when unset."""
        return self._str(lib.air_config_docker_image_credentials_scope)

    @property
    def docker_image_credentials_key(self) -> Optional[str]:
        """environment.docker_image.credentials_key; None when unset."""
        return self._str(lib.air_config_docker_image_credentials_key)

    @property
    def root_path(self) -> Optional[str]:
        """The code snapshot's root_path (trimmed); None without code_source."""
        return self._str(lib.air_config_root_path)

    @property
    def remote_volume(self) -> Optional[str]:
        """The code snapshot's remote_volume; None when unset."""
        return self._str(lib.air_config_remote_volume)

    @property
    def git_commit(self) -> Optional[str]:
        """The code snapshot's git.commit; None when unset."""
        return self._str(lib.air_config_git_commit)

    @property
    def git_branch(self) -> Optional[str]:
        """The code snapshot's git.branch; None when unset."""
        return self._str(lib.air_config_git_branch)

    @property
    def idempotency_token(self) -> Optional[str]:
        """idempotency_token as written; None when unset."""
        return self._str(lib.air_config_idempotency_token)

    @property
    def mlflow_run_name(self) -> Optional[str]:
        """mlflow_run_name; None when unset."""
        return self._str(lib.air_config_mlflow_run_name)

    @property
    def mlflow_experiment_directory(self) -> Optional[str]:
        """mlflow_experiment_directory; None when unset."""
        return self._str(lib.air_config_mlflow_experiment_directory)

    @property
    def mlflow_artifact_location(self) -> Optional[str]:
        """mlflow_artifact_location (a /Volumes/ path gets "dbfs:"); None when unset."""
        return self._str(lib.air_config_mlflow_artifact_location)

    @property
    def usage_policy_name(self) -> Optional[str]:
        """usage_policy_name; None when unset."""
        return self._str(lib.air_config_usage_policy_name)

    @property
    def usage_policy_id(self) -> Optional[str]:
        """usage_policy_id; None when unset."""
        return self._str(lib.air_config_usage_policy_id)

    @property
    def num_accelerators(self) -> int:
        """compute.num_accelerators: total GPUs."""
        return int(lib.air_config_num_accelerators(self._valid()))

    @property
    def num_nodes(self) -> int:
        """Nodes the run occupies: num_accelerators / GPUs per node of the type."""
        return int(lib.air_config_num_nodes(self._valid()))

    @property
    def max_retries(self) -> int:
        """max_retries (3 when unset)."""
        return int(lib.air_config_max_retries(self._valid()))

    @property
    def has_dependencies(self) -> bool:
        """True when environment.dependencies is set (possibly to an empty list)."""
        return bool(lib.air_config_has_dependencies(self._valid()))

    @property
    def has_parameters(self) -> bool:
        """True when parameters is a non-empty mapping."""
        return bool(lib.air_config_has_parameters(self._valid()))

    @property
    def timeout(self) -> Optional[timedelta]:
        """timeout_minutes as a timedelta; None when unset."""
        minutes = int(lib.air_config_timeout_minutes(self._valid()))
        return timedelta(minutes=minutes) if minutes > 0 else None

    @property
    def code_source_form(self) -> CodeSourceForm:
        """Form of code_source (NONE when there is none)."""
        return CodeSourceForm(int(lib.air_config_code_source_form(self._valid())))

    @property
    def dependencies(self) -> List[str]:
        """environment.dependencies, verbatim (empty when unset; see has_dependencies)."""
        return self._list(lib.air_config_dependency_count, lib.air_config_dependency)

    @property
    def include_paths(self) -> List[str]:
        """The code snapshot's include_paths, trimmed, in YAML order."""
        return self._list(lib.air_config_include_path_count, lib.air_config_include_path)

    @property
    def env_variables(self) -> Dict[str, str]:
        """env_variables, sorted by name (values as written; null entries left out)."""
        h = self._valid()
        return {dec(lib.air_config_env_name(h, i)) or "": dec(lib.air_config_env_value(h, i)) or ""
                for i in range(int(lib.air_config_env_count(h)))}

    @property
    def secrets(self) -> Dict[str, Secret]:
        """secrets by name, sorted."""
        h = self._valid()
        out: Dict[str, Secret] = {}
        for i in range(int(lib.air_config_secret_count(h))):
            s = Secret(dec(lib.air_config_secret_name(h, i)) or "",
                       dec(lib.air_config_secret_ref(h, i)) or "",
                       dec(lib.air_config_secret_scope(h, i)) or "",
                       dec(lib.air_config_secret_key(h, i)) or "")
            out[s.name] = s
        return out

    @property
    def permissions(self) -> List[Permission]:
        """permissions, in YAML order."""
        h = self._valid()
        return [Permission(Principal(int(lib.air_config_permission_principal_type(h, i))),
                           dec(lib.air_config_permission_principal(h, i)) or "",
                           dec(lib.air_config_permission_level(h, i)) or "")
                for i in range(int(lib.air_config_permission_count(h)))]

    @property
    def parameters(self) -> Dict[str, Any]:
        """parameters (the hyper-parameters) as Python objects ({} without them)."""
        doc: Dict[str, Any] = json.loads(self._owned(lib.air_config_parameters_json) or "{}")
        return doc

    def parameters_yaml(self) -> str:
        """parameters as the hyperparameters.yaml document ("{}\\n" without them)."""
        return self._owned(lib.air_config_parameters_yaml)
