package air

/*
#include <air/air.h>
*/
import "C"

// The values below come from the headers through cgo, so they cannot drift;
// the ABI test compares Constants() with the headers as well.

// Status codes.
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
	EDONE        Status = C.AIR_EDONE // an iterator's normal end; never returned as an error
)

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

// Option is a raw client option number (1..99 strings, 100..199 integers),
// for ClientOptions.Strings and ClientOptions.Ints.
type Option int32

// Client options; ClientOptions has a typed field for each.
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

// DebugType classifies the messages of ClientOptions.Debug.
type DebugType int32

// Debug message types.
const (
	DebugInfo     DebugType = C.AIR_DEBUG_INFO     // resolution, retries, decisions
	DebugRequest  DebugType = C.AIR_DEBUG_REQUEST  // request line and headers (credentials redacted)
	DebugResponse DebugType = C.AIR_DEBUG_RESPONSE // status line and headers
	DebugBodyOut  DebugType = C.AIR_DEBUG_BODY_OUT // request body excerpt (secrets redacted)
	DebugBodyIn   DebugType = C.AIR_DEBUG_BODY_IN  // response body excerpt (tokens redacted)
)

// State is the display state of a run: its result once it has one, else
// its life-cycle state. Values are grouped: active (100..), ended without a
// result (200..), results (300..); StateOther is a state newer than libair.
type State int32

// Run states.
const (
	StateUnknown                      State = C.AIR_STATE_UNKNOWN
	StatePending                      State = C.AIR_STATE_PENDING
	StateQueued                       State = C.AIR_STATE_QUEUED
	StateBlocked                      State = C.AIR_STATE_BLOCKED
	StateWaitingForRetry              State = C.AIR_STATE_WAITING_FOR_RETRY
	StateRunning                      State = C.AIR_STATE_RUNNING
	StateTerminating                  State = C.AIR_STATE_TERMINATING
	StateTerminated                   State = C.AIR_STATE_TERMINATED
	StateSkipped                      State = C.AIR_STATE_SKIPPED
	StateInternalError                State = C.AIR_STATE_INTERNAL_ERROR
	StateSuccess                      State = C.AIR_STATE_SUCCESS
	StateSuccessWithFailures          State = C.AIR_STATE_SUCCESS_WITH_FAILURES
	StateFailed                       State = C.AIR_STATE_FAILED
	StateTimedOut                     State = C.AIR_STATE_TIMEDOUT
	StateCanceled                     State = C.AIR_STATE_CANCELED
	StateMaximumConcurrentRunsReached State = C.AIR_STATE_MAXIMUM_CONCURRENT_RUNS_REACHED
	StateExcluded                     State = C.AIR_STATE_EXCLUDED
	StateUpstreamFailed               State = C.AIR_STATE_UPSTREAM_FAILED
	StateUpstreamCanceled             State = C.AIR_STATE_UPSTREAM_CANCELED
	StateDisabled                     State = C.AIR_STATE_DISABLED
	StateOther                        State = C.AIR_STATE_OTHER
)

// Phase is a step of a submission, in the order they happen (Progress).
type Phase int32

// Submission phases.
const (
	PhaseIdentity  Phase = C.AIR_PHASE_IDENTITY  // looking up the current user
	PhasePreflight Phase = C.AIR_PHASE_PREFLIGHT // server-side validation
	PhasePolicy    Phase = C.AIR_PHASE_POLICY    // usage policy name -> id
	PhaseDirectory Phase = C.AIR_PHASE_DIRECTORY // experiment and launch directories
	PhaseImage     Phase = C.AIR_PHASE_IMAGE     // legacy docker image registration check
	PhaseArtifacts Phase = C.AIR_PHASE_ARTIFACTS // launch artifacts upload (bytes)
	PhasePackaging Phase = C.AIR_PHASE_PACKAGING // building the code snapshot
	PhaseSnapshot  Phase = C.AIR_PHASE_SNAPSHOT  // uploading the code snapshot (bytes)
	PhaseSubmit    Phase = C.AIR_PHASE_SUBMIT    // runs/submit
	PhaseDone      Phase = C.AIR_PHASE_DONE      // submitted
)

// LogSource tells where a log record came from.
type LogSource int32

// Log sources.
const (
	LogSourceEndpoint LogSource = C.AIR_LOG_SOURCE_ENDPOINT // the AI Runtime log endpoint
	LogSourceMLflow   LogSource = C.AIR_LOG_SOURCE_MLFLOW   // MLflow log artifacts (fallback)
)

// Feature is a set of optional capabilities of the loaded library.
type Feature uint32

// Feature bits.
const (
	FeatureHTTPS      Feature = C.AIR_FEATURE_HTTPS      // libcurl was built with TLS
	FeatureOAuth      Feature = C.AIR_FEATURE_OAUTH      // OAuth M2M and the U2M token cache
	FeatureSnapshot   Feature = C.AIR_FEATURE_SNAPSHOT   // code snapshots
	FeatureThreadsafe Feature = C.AIR_FEATURE_THREADSAFE // a Client may be shared
	FeatureLocal      Feature = C.AIR_FEATURE_LOCAL      // the local:// workspace (since 1.1)
)

// CodeSourceForm is the form of a workload's code_source.
type CodeSourceForm int32

// Forms of code_source.
const (
	CodeSourceNone   CodeSourceForm = C.AIR_CODE_SOURCE_NONE   // no code_source
	CodeSourceFlat   CodeSourceForm = C.AIR_CODE_SOURCE_FLAT   // root_path etc. directly under code_source
	CodeSourceNested CodeSourceForm = C.AIR_CODE_SOURCE_NESTED // type: snapshot + snapshot: {...}
)

// Principal is the kind of principal of a permission grant.
type Principal int32

// Principal kinds.
const (
	PrincipalUser             Principal = C.AIR_PRINCIPAL_USER
	PrincipalGroup            Principal = C.AIR_PRINCIPAL_GROUP
	PrincipalServicePrincipal Principal = C.AIR_PRINCIPAL_SERVICE_PRINCIPAL
)

// FieldKind is the kind of a workload schema field.
type FieldKind int32

// Schema field kinds.
const (
	FieldObject       FieldKind = C.AIR_FIELD_OBJECT         // a mapping with fixed children
	FieldString       FieldKind = C.AIR_FIELD_STRING         // a string
	FieldInt          FieldKind = C.AIR_FIELD_INT            // an integer
	FieldScalar       FieldKind = C.AIR_FIELD_SCALAR         // a string or an integer
	FieldBoolOrString FieldKind = C.AIR_FIELD_BOOL_OR_STRING // a boolean or a string
	FieldStringList   FieldKind = C.AIR_FIELD_STRING_LIST    // a list of strings
	FieldObjectList   FieldKind = C.AIR_FIELD_OBJECT_LIST    // a list of objects with fixed children
	FieldStringMap    FieldKind = C.AIR_FIELD_STRING_MAP     // user-defined keys, string values
	FieldAnyMap       FieldKind = C.AIR_FIELD_ANY_MAP        // user-defined keys, any values
)

// ConfigMaxBytes is the size of the largest workload file libair reads.
const ConfigMaxBytes = int64(C.AIR_CONFIG_MAX_BYTES)

// Option numbers of the per-call options objects; the exported option
// structs set them.
const (
	getMLflow      = C.AIR_GET_MLFLOW
	getSweep       = C.AIR_GET_SWEEP
	getWorkspaceID = C.AIR_GET_WORKSPACE_ID
	getMLflowName  = C.AIR_GET_MLFLOW_NAME
	getConfig      = C.AIR_GET_CONFIG

	sweepTotal     = C.AIR_SWEEP_TOTAL
	sweepCompleted = C.AIR_SWEEP_COMPLETED
	sweepSucceeded = C.AIR_SWEEP_SUCCEEDED
	sweepFailed    = C.AIR_SWEEP_FAILED
	sweepActive    = C.AIR_SWEEP_ACTIVE

	listLimit        = C.AIR_LIST_LIMIT
	listAllStatus    = C.AIR_LIST_ALL_STATUS
	listAllUsers     = C.AIR_LIST_ALL_USERS
	listMaxInspected = C.AIR_LIST_MAX_INSPECTED
	listWorkspaceID  = C.AIR_LIST_WORKSPACE_ID
	listMLflow       = C.AIR_LIST_MLFLOW
	listCache        = C.AIR_LIST_CACHE

	waitPollIntervalMs = C.AIR_WAIT_POLL_INTERVAL_MS

	logsFollow          = C.AIR_LOGS_FOLLOW
	logsTailLines       = C.AIR_LOGS_TAIL_LINES
	logsMinutes         = C.AIR_LOGS_MINUTES
	logsNode            = C.AIR_LOGS_NODE
	logsAttempt         = C.AIR_LOGS_ATTEMPT
	logsPollIntervalMs  = C.AIR_LOGS_POLL_INTERVAL_MS
	logsMaxPageFailures = C.AIR_LOGS_MAX_PAGE_FAILURES

	submitIdempotencyKey = C.AIR_SUBMIT_IDEMPOTENCY_KEY
	submitBaseDir        = C.AIR_SUBMIT_BASE_DIR
	submitSkipPreflight  = C.AIR_SUBMIT_SKIP_PREFLIGHT

	imageSource        = C.AIR_IMAGE_SOURCE
	imageCatalog       = C.AIR_IMAGE_CATALOG
	imageSchema        = C.AIR_IMAGE_SCHEMA
	imageArtifact      = C.AIR_IMAGE_ARTIFACT
	imageRegistryHost  = C.AIR_IMAGE_REGISTRY_HOST
	imageDocker        = C.AIR_IMAGE_DOCKER
	imageDatabricksCLI = C.AIR_IMAGE_DATABRICKS_CLI
	imagePull          = C.AIR_IMAGE_PULL

	registerTagPolicy        = C.AIR_REGISTER_TAG_POLICY
	registerDockerConfigDir  = C.AIR_REGISTER_DOCKER_CONFIG_DIR
	registerCredentialsScope = C.AIR_REGISTER_CREDENTIALS_SCOPE
	registerCredentialsKey   = C.AIR_REGISTER_CREDENTIALS_KEY
	registerTimeoutMs        = C.AIR_REGISTER_TIMEOUT_MS
	registerPollIntervalMs   = C.AIR_REGISTER_POLL_INTERVAL_MS
	registerHelperTimeoutMs  = C.AIR_REGISTER_HELPER_TIMEOUT_MS
	registerDiscover         = C.AIR_REGISTER_DISCOVER

	bundleBaseDir        = C.AIR_BUNDLE_BASE_DIR
	bundleDefaultRuntime = C.AIR_BUNDLE_DEFAULT_RUNTIME
	bundleForce          = C.AIR_BUNDLE_FORCE
	bundleUseEnvironment = C.AIR_BUNDLE_USE_ENVIRONMENT
)
