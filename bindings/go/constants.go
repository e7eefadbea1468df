package air

/*
#include <air/air.h>
*/
import "C"

// Status is a libair status code (AIR_OK or a negative AIR_E* value).
type Status int32

// Status codes. Values come from the headers (cgo), so they always match.
const (
	OK           Status = C.AIR_OK
	ENOMEM       Status = C.AIR_ENOMEM
	EINVAL       Status = C.AIR_EINVAL
	ECONFIG      Status = C.AIR_ECONFIG
	ENET         Status = C.AIR_ENET
	ETIMEOUT     Status = C.AIR_ETIMEOUT
	EAUTH        Status = C.AIR_EAUTH
	ENOTFOUND    Status = C.AIR_ENOTFOUND
	ECONFLICT    Status = C.AIR_ECONFLICT
	ERATELIMIT   Status = C.AIR_ERATELIMIT
	ESERVER      Status = C.AIR_ESERVER
	EPROTO       Status = C.AIR_EPROTO
	EABORTED     Status = C.AIR_EABORTED
	EINTERRUPTED Status = C.AIR_EINTERRUPTED
	EUNSUPPORTED Status = C.AIR_EUNSUPPORTED
	EIO          Status = C.AIR_EIO
	EAPI         Status = C.AIR_EAPI
	EREJECTED    Status = C.AIR_EREJECTED
	ESNAPSHOT    Status = C.AIR_ESNAPSHOT
	EPERMISSION  Status = C.AIR_EPERMISSION
	EDISABLED    Status = C.AIR_EDISABLED
	EINTERNAL    Status = C.AIR_EINTERNAL
)

// Kind tells what a caller should do about a failure.
type Kind int32

// Error kinds.
const (
	KindNone            Kind = C.AIR_KIND_NONE
	KindInvalidConfig   Kind = C.AIR_KIND_INVALID_CONFIG
	KindInvalidArgument Kind = C.AIR_KIND_INVALID_ARGUMENT
	KindPermanent       Kind = C.AIR_KIND_PERMANENT
	KindNotFound        Kind = C.AIR_KIND_NOT_FOUND
	KindConflict        Kind = C.AIR_KIND_CONFLICT
	KindTransient       Kind = C.AIR_KIND_TRANSIENT
	KindIO              Kind = C.AIR_KIND_IO
	KindInternal        Kind = C.AIR_KIND_INTERNAL
	KindAborted         Kind = C.AIR_KIND_ABORTED
)

// Option identifies a client option: 1..99 strings, 100..199 integers.
type Option int32

// Client options (air_option).
const (
	OptHost                Option = C.AIR_OPT_HOST
	OptToken               Option = C.AIR_OPT_TOKEN
	OptProfile             Option = C.AIR_OPT_PROFILE
	OptConfigFile          Option = C.AIR_OPT_CONFIG_FILE
	OptClientID            Option = C.AIR_OPT_CLIENT_ID
	OptClientSecret        Option = C.AIR_OPT_CLIENT_SECRET
	OptAuthType            Option = C.AIR_OPT_AUTH_TYPE
	OptUsername            Option = C.AIR_OPT_USERNAME
	OptPassword            Option = C.AIR_OPT_PASSWORD
	OptWorkspaceID         Option = C.AIR_OPT_WORKSPACE_ID
	OptUserAgentSuffix     Option = C.AIR_OPT_USER_AGENT_SUFFIX
	OptCAFile              Option = C.AIR_OPT_CA_FILE
	OptHomeDir             Option = C.AIR_OPT_HOME_DIR
	OptAuthStorage         Option = C.AIR_OPT_AUTH_STORAGE
	OptUserWorkspaceDir    Option = C.AIR_OPT_USER_WORKSPACE_DIR
	OptDefaultRuntime      Option = C.AIR_OPT_DEFAULT_RUNTIME
	OptDiscoveryURL        Option = C.AIR_OPT_DISCOVERY_URL
	OptConnectTimeoutMs    Option = C.AIR_OPT_CONNECT_TIMEOUT_MS
	OptRequestTimeoutMs    Option = C.AIR_OPT_REQUEST_TIMEOUT_MS
	OptInactivityTimeoutMs Option = C.AIR_OPT_INACTIVITY_TIMEOUT_MS
	OptRetryDeadlineMs     Option = C.AIR_OPT_RETRY_DEADLINE_MS
	OptRetryBackoffMs      Option = C.AIR_OPT_RETRY_BACKOFF_MS
	OptUseEnvironment      Option = C.AIR_OPT_USE_ENVIRONMENT
	OptSkipTLSVerify       Option = C.AIR_OPT_SKIP_TLS_VERIFY
	OptRateLimit           Option = C.AIR_OPT_RATE_LIMIT
	OptMaxParallel         Option = C.AIR_OPT_MAX_PARALLEL
)

// DebugType classifies debug callback messages.
type DebugType int32

// Debug message types.
const (
	DebugInfo     DebugType = C.AIR_DEBUG_INFO
	DebugRequest  DebugType = C.AIR_DEBUG_REQUEST
	DebugResponse DebugType = C.AIR_DEBUG_RESPONSE
	DebugBodyOut  DebugType = C.AIR_DEBUG_BODY_OUT
	DebugBodyIn   DebugType = C.AIR_DEBUG_BODY_IN
)

// Config constants.
const (
	ConfigMaxBytes = int64(C.AIR_CONFIG_MAX_BYTES)

	CodeSourceNone   = int32(C.AIR_CODE_SOURCE_NONE)
	CodeSourceFlat   = int32(C.AIR_CODE_SOURCE_FLAT)
	CodeSourceNested = int32(C.AIR_CODE_SOURCE_NESTED)

	PrincipalUser             = int32(C.AIR_PRINCIPAL_USER)
	PrincipalGroup            = int32(C.AIR_PRINCIPAL_GROUP)
	PrincipalServicePrincipal = int32(C.AIR_PRINCIPAL_SERVICE_PRINCIPAL)

	HelpText = uint32(C.AIR_HELP_TEXT)
	HelpJSON = uint32(C.AIR_HELP_JSON)
)

// Submit options and phases.
const (
	SubmitIdempotencyKey = int32(C.AIR_SUBMIT_IDEMPOTENCY_KEY)
	SubmitBaseDir        = int32(C.AIR_SUBMIT_BASE_DIR)
	SubmitSkipPreflight  = int32(C.AIR_SUBMIT_SKIP_PREFLIGHT)
)

// Phase of a submission (progress callback).
type Phase int32

// Submission phases.
const (
	PhaseIdentity  Phase = C.AIR_PHASE_IDENTITY
	PhasePreflight Phase = C.AIR_PHASE_PREFLIGHT
	PhasePolicy    Phase = C.AIR_PHASE_POLICY
	PhaseDirectory Phase = C.AIR_PHASE_DIRECTORY
	PhaseImage     Phase = C.AIR_PHASE_IMAGE
	PhaseArtifacts Phase = C.AIR_PHASE_ARTIFACTS
	PhasePackaging Phase = C.AIR_PHASE_PACKAGING
	PhaseSnapshot  Phase = C.AIR_PHASE_SNAPSHOT
	PhaseSubmit    Phase = C.AIR_PHASE_SUBMIT
	PhaseDone      Phase = C.AIR_PHASE_DONE
)

// Run flags, sweep statistics and listing options.
const (
	GetMLflow      = uint32(C.AIR_GET_MLFLOW)
	GetSweep       = uint32(C.AIR_GET_SWEEP)
	GetWorkspaceID = uint32(C.AIR_GET_WORKSPACE_ID)
	GetMLflowName  = uint32(C.AIR_GET_MLFLOW_NAME)
	GetConfig      = uint32(C.AIR_GET_CONFIG)

	SweepTotal     = int32(C.AIR_SWEEP_TOTAL)
	SweepCompleted = int32(C.AIR_SWEEP_COMPLETED)
	SweepSucceeded = int32(C.AIR_SWEEP_SUCCEEDED)
	SweepFailed    = int32(C.AIR_SWEEP_FAILED)
	SweepActive    = int32(C.AIR_SWEEP_ACTIVE)

	ListLimit        = int32(C.AIR_LIST_LIMIT)
	ListAllStatus    = int32(C.AIR_LIST_ALL_STATUS)
	ListAllUsers     = int32(C.AIR_LIST_ALL_USERS)
	ListMaxInspected = int32(C.AIR_LIST_MAX_INSPECTED)
	ListWorkspaceID  = int32(C.AIR_LIST_WORKSPACE_ID)
	ListMLflow       = int32(C.AIR_LIST_MLFLOW)
)

// Log options and sources.
const (
	LogsFollow          = int32(C.AIR_LOGS_FOLLOW)
	LogsTailLines       = int32(C.AIR_LOGS_TAIL_LINES)
	LogsMinutes         = int32(C.AIR_LOGS_MINUTES)
	LogsNode            = int32(C.AIR_LOGS_NODE)
	LogsAttempt         = int32(C.AIR_LOGS_ATTEMPT)
	LogsPollIntervalMs  = int32(C.AIR_LOGS_POLL_INTERVAL_MS)
	LogsMaxPageFailures = int32(C.AIR_LOGS_MAX_PAGE_FAILURES)

	LogSourceEndpoint = int32(C.AIR_LOG_SOURCE_ENDPOINT)
	LogSourceMLflow   = int32(C.AIR_LOG_SOURCE_MLFLOW)
)

// Image push options.
const (
	ImageSource        = int32(C.AIR_IMAGE_SOURCE)
	ImageCatalog       = int32(C.AIR_IMAGE_CATALOG)
	ImageSchema        = int32(C.AIR_IMAGE_SCHEMA)
	ImageArtifact      = int32(C.AIR_IMAGE_ARTIFACT)
	ImageProfile       = int32(C.AIR_IMAGE_PROFILE)
	ImageRegistryHost  = int32(C.AIR_IMAGE_REGISTRY_HOST)
	ImageDocker        = int32(C.AIR_IMAGE_DOCKER)
	ImageDatabricksCLI = int32(C.AIR_IMAGE_DATABRICKS_CLI)
	ImagePull          = int32(C.AIR_IMAGE_PULL)
)

// Constants maps the C name of every enum value and numeric macro of the
// headers that this package mirrors to its value (used to check that no
// header constant lacks a Go counterpart).
func Constants() map[string]int64 {
	m := map[string]int64{}
	for _, s := range []Status{OK, ENOMEM, EINVAL, ECONFIG, ENET, ETIMEOUT, EAUTH, ENOTFOUND,
		ECONFLICT, ERATELIMIT, ESERVER, EPROTO, EABORTED, EINTERRUPTED, EUNSUPPORTED, EIO,
		EAPI, EREJECTED, ESNAPSHOT, EPERMISSION, EDISABLED, EINTERNAL} {
		m[s.Name()] = int64(s)
	}
	kinds := map[string]Kind{"NONE": KindNone, "INVALID_CONFIG": KindInvalidConfig,
		"INVALID_ARGUMENT": KindInvalidArgument, "PERMANENT": KindPermanent,
		"NOT_FOUND": KindNotFound, "CONFLICT": KindConflict, "TRANSIENT": KindTransient,
		"IO": KindIO, "INTERNAL": KindInternal, "ABORTED": KindAborted}
	for n, k := range kinds {
		m["AIR_KIND_"+n] = int64(k)
	}
	opts := map[string]Option{"HOST": OptHost, "TOKEN": OptToken, "PROFILE": OptProfile,
		"CONFIG_FILE": OptConfigFile, "CLIENT_ID": OptClientID, "CLIENT_SECRET": OptClientSecret,
		"AUTH_TYPE": OptAuthType, "USERNAME": OptUsername, "PASSWORD": OptPassword,
		"WORKSPACE_ID": OptWorkspaceID, "USER_AGENT_SUFFIX": OptUserAgentSuffix,
		"CA_FILE": OptCAFile, "HOME_DIR": OptHomeDir, "AUTH_STORAGE": OptAuthStorage,
		"USER_WORKSPACE_DIR": OptUserWorkspaceDir, "DEFAULT_RUNTIME": OptDefaultRuntime,
		"DISCOVERY_URL": OptDiscoveryURL, "CONNECT_TIMEOUT_MS": OptConnectTimeoutMs,
		"REQUEST_TIMEOUT_MS": OptRequestTimeoutMs, "INACTIVITY_TIMEOUT_MS": OptInactivityTimeoutMs,
		"RETRY_DEADLINE_MS": OptRetryDeadlineMs, "RETRY_BACKOFF_MS": OptRetryBackoffMs,
		"USE_ENVIRONMENT": OptUseEnvironment, "SKIP_TLS_VERIFY": OptSkipTLSVerify,
		"RATE_LIMIT": OptRateLimit, "MAX_PARALLEL": OptMaxParallel}
	for n, o := range opts {
		m["AIR_OPT_"+n] = int64(o)
	}
	for n, d := range map[string]DebugType{"INFO": DebugInfo, "REQUEST": DebugRequest,
		"RESPONSE": DebugResponse, "BODY_OUT": DebugBodyOut, "BODY_IN": DebugBodyIn} {
		m["AIR_DEBUG_"+n] = int64(d)
	}
	for n, p := range map[string]Phase{"IDENTITY": PhaseIdentity, "PREFLIGHT": PhasePreflight,
		"POLICY": PhasePolicy, "DIRECTORY": PhaseDirectory, "IMAGE": PhaseImage,
		"ARTIFACTS": PhaseArtifacts, "PACKAGING": PhasePackaging, "SNAPSHOT": PhaseSnapshot,
		"SUBMIT": PhaseSubmit, "DONE": PhaseDone} {
		m["AIR_PHASE_"+n] = int64(p)
	}
	plain := map[string]int64{
		"AIR_FEATURE_HTTPS": int64(FeatureHTTPS), "AIR_FEATURE_OAUTH": int64(FeatureOAuth),
		"AIR_FEATURE_SNAPSHOT": int64(FeatureSnapshot), "AIR_FEATURE_THREADSAFE": int64(FeatureThreadsafe),
		"AIR_CONFIG_MAX_BYTES": ConfigMaxBytes, "AIR_CODE_SOURCE_NONE": int64(CodeSourceNone),
		"AIR_CODE_SOURCE_FLAT": int64(CodeSourceFlat), "AIR_CODE_SOURCE_NESTED": int64(CodeSourceNested),
		"AIR_PRINCIPAL_USER": int64(PrincipalUser), "AIR_PRINCIPAL_GROUP": int64(PrincipalGroup),
		"AIR_PRINCIPAL_SERVICE_PRINCIPAL": int64(PrincipalServicePrincipal),
		"AIR_HELP_TEXT":                   int64(HelpText), "AIR_HELP_JSON": int64(HelpJSON),
		"AIR_SUBMIT_IDEMPOTENCY_KEY": int64(SubmitIdempotencyKey), "AIR_SUBMIT_BASE_DIR": int64(SubmitBaseDir),
		"AIR_SUBMIT_SKIP_PREFLIGHT": int64(SubmitSkipPreflight),
		"AIR_GET_MLFLOW":            int64(GetMLflow), "AIR_GET_SWEEP": int64(GetSweep),
		"AIR_GET_WORKSPACE_ID": int64(GetWorkspaceID), "AIR_GET_MLFLOW_NAME": int64(GetMLflowName),
		"AIR_GET_CONFIG": int64(GetConfig), "AIR_LIST_WORKSPACE_ID": int64(ListWorkspaceID),
		"AIR_LIST_MLFLOW": int64(ListMLflow),
		"AIR_SWEEP_TOTAL": int64(SweepTotal), "AIR_SWEEP_COMPLETED": int64(SweepCompleted),
		"AIR_SWEEP_SUCCEEDED": int64(SweepSucceeded), "AIR_SWEEP_FAILED": int64(SweepFailed),
		"AIR_SWEEP_ACTIVE": int64(SweepActive),
		"AIR_LIST_LIMIT":   int64(ListLimit), "AIR_LIST_ALL_STATUS": int64(ListAllStatus),
		"AIR_LIST_ALL_USERS": int64(ListAllUsers), "AIR_LIST_MAX_INSPECTED": int64(ListMaxInspected),
		"AIR_LOGS_FOLLOW": int64(LogsFollow), "AIR_LOGS_TAIL_LINES": int64(LogsTailLines),
		"AIR_LOGS_MINUTES": int64(LogsMinutes), "AIR_LOGS_NODE": int64(LogsNode),
		"AIR_LOGS_ATTEMPT": int64(LogsAttempt), "AIR_LOGS_POLL_INTERVAL_MS": int64(LogsPollIntervalMs),
		"AIR_LOGS_MAX_PAGE_FAILURES": int64(LogsMaxPageFailures),
		"AIR_LOG_SOURCE_ENDPOINT":    int64(LogSourceEndpoint), "AIR_LOG_SOURCE_MLFLOW": int64(LogSourceMLflow),
		"AIR_IMAGE_SOURCE": int64(ImageSource), "AIR_IMAGE_CATALOG": int64(ImageCatalog),
		"AIR_IMAGE_SCHEMA": int64(ImageSchema), "AIR_IMAGE_ARTIFACT": int64(ImageArtifact),
		"AIR_IMAGE_PROFILE": int64(ImageProfile), "AIR_IMAGE_REGISTRY_HOST": int64(ImageRegistryHost),
		"AIR_IMAGE_DOCKER": int64(ImageDocker), "AIR_IMAGE_DATABRICKS_CLI": int64(ImageDatabricksCLI),
		"AIR_IMAGE_PULL": int64(ImagePull),
	}
	for n, v := range plain {
		m[n] = v
	}
	return m
}
