package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"encoding/json"
	"runtime"
	"unsafe"
)

// Config is a parsed workload YAML document (air_config). Value accessors
// reflect the last successful validation ("" / 0 before it and after a
// later override). A Config is used by one goroutine at a time.
type Config struct {
	h *C.air_config
}

// Change is one applied override; Old is nil when the field was unset.
type Change struct {
	Path string
	Old  *string
	New  string
}

// Secret is one entry of secrets.
type Secret struct{ Name, Ref, Scope, Key string }

// Permission is one entry of permissions.
type Permission struct {
	PrincipalType Principal
	Principal     string
	Level         string
}

func newConfig(h *C.air_config) *Config {
	c := &Config{h: h}
	runtime.SetFinalizer(c, (*Config).Close)
	return c
}

// ParseConfig parses the YAML file at path without validating it.
func ParseConfig(path string) (*Config, error) {
	p := cstr(path)
	defer free(p)
	var h *C.air_config
	var e *C.air_error
	if err := check(C.air_config_parse_file(p, &h, &e), e); err != nil {
		C.air_config_free(h)
		return nil, err
	}
	return newConfig(h), nil
}

// ParseConfigBytes parses YAML from memory; name is shown in messages and
// relative root_path values resolve against baseDir ("" for the defaults).
func ParseConfigBytes(data []byte, name, baseDir string) (*Config, error) {
	n, b := cstrOpt(name), cstrOpt(baseDir)
	defer free(n)
	defer free(b)
	var buf *C.char
	if len(data) > 0 {
		buf = (*C.char)(C.CBytes(data))
		defer C.free(unsafe.Pointer(buf))
	}
	var h *C.air_config
	var e *C.air_error
	if err := check(C.air_config_parse_buffer(buf, C.size_t(len(data)), n, b, &h, &e), e); err != nil {
		C.air_config_free(h)
		return nil, err
	}
	return newConfig(h), nil
}

// LoadConfig parses the file at path, applies overrides ("FIELD=VALUE") and validates.
func LoadConfig(path string, overrides ...string) (*Config, error) {
	c, err := ParseConfig(path)
	if err != nil {
		return nil, err
	}
	return c.finish(overrides)
}

// LoadConfigBytes parses YAML from memory, applies overrides and validates.
func LoadConfigBytes(data []byte, name, baseDir string, overrides ...string) (*Config, error) {
	c, err := ParseConfigBytes(data, name, baseDir)
	if err != nil {
		return nil, err
	}
	return c.finish(overrides)
}

func (c *Config) finish(overrides []string) (*Config, error) {
	for _, o := range overrides {
		if err := c.Override(o); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close releases the config (idempotent).
func (c *Config) Close() {
	if c.h != nil {
		C.air_config_free(c.h)
		c.h = nil
	}
	runtime.SetFinalizer(c, nil)
}

// Override applies one "FIELD_PATH=VALUE" override (the --override syntax).
func (c *Config) Override(assignment string) error {
	if c.h == nil {
		return closedError("Config")
	}
	a := cstr(assignment)
	defer free(a)
	var e *C.air_error
	err := check(C.air_config_override(c.h, a, &e), e)
	runtime.KeepAlive(c)
	return err
}

// Set sets path to yamlValue (a YAML scalar or flow collection; "null" unsets).
func (c *Config) Set(path, yamlValue string) error {
	if c.h == nil {
		return closedError("Config")
	}
	p, v := cstr(path), cstr(yamlValue)
	defer free(p)
	defer free(v)
	var e *C.air_error
	err := check(C.air_config_set(c.h, p, v, &e), e)
	runtime.KeepAlive(c)
	return err
}

// Validate decodes strictly and applies the semantic rules.
func (c *Config) Validate() error {
	if c.h == nil {
		return closedError("Config")
	}
	var e *C.air_error
	err := check(C.air_config_validate(c.h, &e), e)
	runtime.KeepAlive(c)
	return err
}

// IsValid reports whether the last validation succeeded with no override after it.
func (c *Config) IsValid() bool {
	return c.i32(func(h *C.air_config) C.int32_t { return C.air_config_is_valid(h) }) != 0
}

// Changes lists the applied overrides in order.
func (c *Config) Changes() []Change {
	if c.h == nil {
		return nil
	}
	defer runtime.KeepAlive(c)
	n := C.air_config_change_count(c.h)
	out := make([]Change, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		ch := Change{Path: gostr(C.air_config_change_path(c.h, i)), New: gostr(C.air_config_change_new(c.h, i))}
		if old := C.air_config_change_old(c.h, i); old != nil {
			s := C.GoString(old)
			ch.Old = &s
		}
		out = append(out, ch)
	}
	return out
}

func (c *Config) owned(f func(h *C.air_config, out **C.char, e **C.air_error) C.int) (string, error) {
	if c.h == nil {
		return "", closedError("Config")
	}
	var out *C.char
	var e *C.air_error
	rc := f(c.h, &out, &e)
	runtime.KeepAlive(c)
	s := takeStr(out)
	if err := check(rc, e); err != nil {
		return "", err
	}
	return s, nil
}

// YAML is the effective (overridden) document as YAML.
func (c *Config) YAML() (string, error) {
	return c.owned(func(h *C.air_config, o **C.char, e **C.air_error) C.int { return C.air_config_to_yaml(h, o, e) })
}

// JSON is the effective (overridden) document as JSON.
func (c *Config) JSON() (string, error) {
	return c.owned(func(h *C.air_config, o **C.char, e **C.air_error) C.int { return C.air_config_to_json(h, o, e) })
}

// ParametersYAML is parameters as a YAML document (hyperparameters.yaml).
func (c *Config) ParametersYAML() (string, error) {
	return c.owned(func(h *C.air_config, o **C.char, e **C.air_error) C.int { return C.air_config_parameters_yaml(h, o, e) })
}

// Parameters is parameters decoded from JSON.
func (c *Config) Parameters() (map[string]interface{}, error) {
	s, err := c.owned(func(h *C.air_config, o **C.char, e **C.air_error) C.int { return C.air_config_parameters_json(h, o, e) })
	if err != nil || s == "" {
		return map[string]interface{}{}, err
	}
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// SourceBytes are the original bytes as read (before overrides).
func (c *Config) SourceBytes() []byte {
	if c.h == nil {
		return nil
	}
	var n C.size_t
	p := C.air_config_source_bytes(c.h, &n)
	var b []byte
	if p != nil {
		b = C.GoBytes(unsafe.Pointer(p), C.int(n))
	}
	runtime.KeepAlive(c)
	return b
}

// IsSet reports whether the dotted field path ("max_retries",
// "compute.pool_id") is written with a non-null value in the effective
// document, telling an explicit value from a default.
func (c *Config) IsSet(path string) bool {
	if c.h == nil {
		return false
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	set := C.air_config_is_set(c.h, cpath) != 0
	runtime.KeepAlive(c)
	return set
}

func (c *Config) str(f func(h *C.air_config) *C.char) string {
	if c.h == nil {
		return ""
	}
	s := gostr(f(c.h))
	runtime.KeepAlive(c)
	return s
}

func (c *Config) i64(f func(h *C.air_config) C.int64_t) int64 {
	if c.h == nil {
		return 0
	}
	v := int64(f(c.h))
	runtime.KeepAlive(c)
	return v
}

func (c *Config) i32(f func(h *C.air_config) C.int32_t) int32 {
	if c.h == nil {
		return 0
	}
	v := int32(f(c.h))
	runtime.KeepAlive(c)
	return v
}

func (c *Config) list(count func(h *C.air_config) C.size_t, item func(h *C.air_config, i C.size_t) *C.char) []string {
	if c.h == nil {
		return nil
	}
	defer runtime.KeepAlive(c)
	n := count(c.h)
	out := make([]string, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		out = append(out, gostr(item(c.h, i)))
	}
	return out
}

// SourceName is the path the config was read from (or the buffer's name).
func (c *Config) SourceName() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_source_name(h) })
}

// BaseDir is the directory relative root_path values resolve against.
func (c *Config) BaseDir() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_base_dir(h) })
}

// ExperimentName is experiment_name.
func (c *Config) ExperimentName() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_experiment_name(h) })
}

// Command is command, verbatim.
func (c *Config) Command() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_command(h) })
}

// AcceleratorType is compute.accelerator_type.
func (c *Config) AcceleratorType() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_accelerator_type(h) })
}

// NumAccelerators is compute.num_accelerators (total GPUs).
func (c *Config) NumAccelerators() int64 {
	return c.i64(func(h *C.air_config) C.int64_t { return C.air_config_num_accelerators(h) })
}

// NumNodes is the number of nodes the run occupies.
func (c *Config) NumNodes() int64 {
	return c.i64(func(h *C.air_config) C.int64_t { return C.air_config_num_nodes(h) })
}

// PoolID is compute.pool_id, trimmed.
func (c *Config) PoolID() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_pool_id(h) })
}

// PriorityClass is compute.priority_class, upper-cased.
func (c *Config) PriorityClass() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_priority_class(h) })
}

// EnvironmentVersion is environment.version, normalised.
func (c *Config) EnvironmentVersion() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_environment_version(h) })
}

// HasDependencies reports whether environment.dependencies is set.
func (c *Config) HasDependencies() bool {
	return c.i32(func(h *C.air_config) C.int32_t { return C.air_config_has_dependencies(h) }) != 0
}

// Dependencies is environment.dependencies.
func (c *Config) Dependencies() []string {
	return c.list(func(h *C.air_config) C.size_t { return C.air_config_dependency_count(h) },
		func(h *C.air_config, i C.size_t) *C.char { return C.air_config_dependency(h, i) })
}

// UnityCatalogImage is environment.unity_catalog_image.
func (c *Config) UnityCatalogImage() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_unity_catalog_image(h) })
}

// DockerImageURL is environment.docker_image.url.
func (c *Config) DockerImageURL() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_docker_image_url(h) })
}

// DockerImageTagPolicy is environment.docker_image.tag_policy.
func (c *Config) DockerImageTagPolicy() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_docker_image_tag_policy(h) })
}

// DockerImageCredentialsScope is environment.docker_image.credentials_scope.
func (c *Config) DockerImageCredentialsScope() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_docker_image_credentials_scope(h) })
}

// DockerImageCredentialsKey is environment.docker_image.credentials_key.
func (c *Config) DockerImageCredentialsKey() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_docker_image_credentials_key(h) })
}

// EnvVariables is env_variables.
func (c *Config) EnvVariables() map[string]string {
	names := c.list(func(h *C.air_config) C.size_t { return C.air_config_env_count(h) },
		func(h *C.air_config, i C.size_t) *C.char { return C.air_config_env_name(h, i) })
	values := c.list(func(h *C.air_config) C.size_t { return C.air_config_env_count(h) },
		func(h *C.air_config, i C.size_t) *C.char { return C.air_config_env_value(h, i) })
	m := make(map[string]string, len(names))
	for i, n := range names {
		if i < len(values) {
			m[n] = values[i]
		}
	}
	return m
}

// Secrets lists secrets, sorted by name.
func (c *Config) Secrets() []Secret {
	if c.h == nil {
		return nil
	}
	defer runtime.KeepAlive(c)
	n := C.air_config_secret_count(c.h)
	out := make([]Secret, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		out = append(out, Secret{gostr(C.air_config_secret_name(c.h, i)), gostr(C.air_config_secret_ref(c.h, i)),
			gostr(C.air_config_secret_scope(c.h, i)), gostr(C.air_config_secret_key(c.h, i))})
	}
	return out
}

// HasParameters reports whether parameters is a non-empty mapping.
func (c *Config) HasParameters() bool {
	return c.i32(func(h *C.air_config) C.int32_t { return C.air_config_has_parameters(h) }) != 0
}

// CodeSourceForm is the form of code_source (CodeSourceNone without one).
func (c *Config) CodeSourceForm() CodeSourceForm {
	return CodeSourceForm(c.i32(func(h *C.air_config) C.int32_t { return C.air_config_code_source_form(h) }))
}

// RootPath is the snapshot root_path as written.
func (c *Config) RootPath() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_root_path(h) })
}

// RemoteVolume is the snapshot remote_volume.
func (c *Config) RemoteVolume() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_remote_volume(h) })
}

// IncludePaths are the snapshot include_paths.
func (c *Config) IncludePaths() []string {
	return c.list(func(h *C.air_config) C.size_t { return C.air_config_include_path_count(h) },
		func(h *C.air_config, i C.size_t) *C.char { return C.air_config_include_path(h, i) })
}

// GitCommit is the snapshot git.commit.
func (c *Config) GitCommit() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_git_commit(h) })
}

// GitBranch is the snapshot git.branch.
func (c *Config) GitBranch() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_git_branch(h) })
}

// MaxRetries is max_retries (default 3).
func (c *Config) MaxRetries() int64 {
	return c.i64(func(h *C.air_config) C.int64_t { return C.air_config_max_retries(h) })
}

// TimeoutMinutes is timeout_minutes (0 when unset).
func (c *Config) TimeoutMinutes() int64 {
	return c.i64(func(h *C.air_config) C.int64_t { return C.air_config_timeout_minutes(h) })
}

// IdempotencyToken is idempotency_token.
func (c *Config) IdempotencyToken() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_idempotency_token(h) })
}

// MLflowRunName is mlflow_run_name.
func (c *Config) MLflowRunName() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_mlflow_run_name(h) })
}

// MLflowExperimentDirectory is mlflow_experiment_directory.
func (c *Config) MLflowExperimentDirectory() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_mlflow_experiment_directory(h) })
}

// MLflowArtifactLocation is mlflow_artifact_location, normalised to dbfs:/.
func (c *Config) MLflowArtifactLocation() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_mlflow_artifact_location(h) })
}

// UsagePolicyName is usage_policy_name.
func (c *Config) UsagePolicyName() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_usage_policy_name(h) })
}

// UsagePolicyID is usage_policy_id.
func (c *Config) UsagePolicyID() string {
	return c.str(func(h *C.air_config) *C.char { return C.air_config_usage_policy_id(h) })
}

// Permissions lists permissions.
func (c *Config) Permissions() []Permission {
	if c.h == nil {
		return nil
	}
	defer runtime.KeepAlive(c)
	n := C.air_config_permission_count(c.h)
	out := make([]Permission, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		out = append(out, Permission{Principal(C.air_config_permission_principal_type(c.h, i)),
			gostr(C.air_config_permission_principal(c.h, i)), gostr(C.air_config_permission_level(c.h, i))})
	}
	return out
}

// AcceleratorGPUsPerNode is the GPUs per node of a type; 0 when unknown.
func AcceleratorGPUsPerNode(acceleratorType string) int {
	p := cstr(acceleratorType)
	defer free(p)
	return int(C.air_accelerator_gpus_per_node(p))
}

// AcceleratorDisplayName is the display name ("H100") of a type.
func AcceleratorDisplayName(acceleratorType string) string {
	p := cstr(acceleratorType)
	defer free(p)
	return gostr(C.air_accelerator_display_name(p))
}
