package air

/*
#include <air/air.h>
*/
import "C"

import (
	"fmt"
	"strings"
)

// name returns the entry of names for v, or "Type(v)" for a value this
// package does not know (a newer library).
func name(typ string, v int64, names map[int64]string) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// String is the state as libair names it ("RUNNING", "SUCCESS", "OTHER").
func (s State) String() string {
	if p := C.air_state_name(C.int32_t(s)); p != nil {
		return C.GoString(p)
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// IsTerminal reports whether a run in this state has finished (TERMINATED
// and every result; StateOther excluded).
func (s State) IsTerminal() bool { return C.air_state_is_terminal(C.int32_t(s)) != 0 }

// String is the phase as libair names it ("PREFLIGHT").
func (p Phase) String() string {
	if n := C.air_phase_name(C.int32_t(p)); n != nil {
		return C.GoString(n)
	}
	return fmt.Sprintf("Phase(%d)", int32(p))
}

// String is the option's C name without its prefix ("HOST", "RATE_LIMIT").
func (o Option) String() string {
	return name("Option", int64(o), map[int64]string{
		int64(OptHost): "HOST", int64(OptToken): "TOKEN", int64(OptProfile): "PROFILE",
		int64(OptConfigFile): "CONFIG_FILE", int64(OptClientID): "CLIENT_ID",
		int64(OptClientSecret): "CLIENT_SECRET", int64(OptAuthType): "AUTH_TYPE",
		int64(OptUsername): "USERNAME", int64(OptPassword): "PASSWORD",
		int64(OptWorkspaceID): "WORKSPACE_ID", int64(OptUserAgentSuffix): "USER_AGENT_SUFFIX",
		int64(OptCAFile): "CA_FILE", int64(OptHomeDir): "HOME_DIR",
		int64(OptAuthStorage): "AUTH_STORAGE", int64(OptUserWorkspaceDir): "USER_WORKSPACE_DIR",
		int64(OptDefaultRuntime): "DEFAULT_RUNTIME", int64(OptDiscoveryURL): "DISCOVERY_URL",
		int64(OptConnectTimeoutMs): "CONNECT_TIMEOUT_MS", int64(OptRequestTimeoutMs): "REQUEST_TIMEOUT_MS",
		int64(OptInactivityTimeoutMs): "INACTIVITY_TIMEOUT_MS",
		int64(OptRetryDeadlineMs):     "RETRY_DEADLINE_MS", int64(OptRetryBackoffMs): "RETRY_BACKOFF_MS",
		int64(OptUseEnvironment): "USE_ENVIRONMENT", int64(OptSkipTLSVerify): "SKIP_TLS_VERIFY",
		int64(OptRateLimit): "RATE_LIMIT", int64(OptMaxParallel): "MAX_PARALLEL",
	})
}

// String is the type's C name without its prefix ("REQUEST").
func (d DebugType) String() string {
	return name("DebugType", int64(d), map[int64]string{
		int64(DebugInfo): "INFO", int64(DebugRequest): "REQUEST", int64(DebugResponse): "RESPONSE",
		int64(DebugBodyOut): "BODY_OUT", int64(DebugBodyIn): "BODY_IN",
	})
}

// String is "ENDPOINT" or "MLFLOW".
func (s LogSource) String() string {
	return name("LogSource", int64(s), map[int64]string{
		int64(LogSourceEndpoint): "ENDPOINT", int64(LogSourceMLflow): "MLFLOW",
	})
}

// String is "NONE", "FLAT" or "NESTED".
func (f CodeSourceForm) String() string {
	return name("CodeSourceForm", int64(f), map[int64]string{
		int64(CodeSourceNone): "NONE", int64(CodeSourceFlat): "FLAT", int64(CodeSourceNested): "NESTED",
	})
}

// String is the key of the grant in the workload YAML ("user_name").
func (p Principal) String() string {
	return name("Principal", int64(p), map[int64]string{
		int64(PrincipalUser): "user_name", int64(PrincipalGroup): "group_name",
		int64(PrincipalServicePrincipal): "service_principal_name",
	})
}

// String is the kind's C name without its prefix ("STRING_LIST").
func (k FieldKind) String() string {
	return name("FieldKind", int64(k), map[int64]string{
		int64(FieldObject): "OBJECT", int64(FieldString): "STRING", int64(FieldInt): "INT",
		int64(FieldScalar): "SCALAR", int64(FieldBoolOrString): "BOOL_OR_STRING",
		int64(FieldStringList): "STRING_LIST", int64(FieldObjectList): "OBJECT_LIST",
		int64(FieldStringMap): "STRING_MAP", int64(FieldAnyMap): "ANY_MAP",
	})
}

// String lists the set bits by name ("HTTPS|OAUTH"), "" for none.
func (f Feature) String() string {
	var parts []string
	for _, b := range []struct {
		bit  Feature
		name string
	}{{FeatureHTTPS, "HTTPS"}, {FeatureOAuth, "OAUTH"}, {FeatureSnapshot, "SNAPSHOT"},
		{FeatureThreadsafe, "THREADSAFE"}} {
		if f&b.bit != 0 {
			parts = append(parts, b.name)
			f &^= b.bit
		}
	}
	if f != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(f)))
	}
	return strings.Join(parts, "|")
}
