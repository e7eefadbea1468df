package air

// Constants maps the C name of every enum value of the headers to the
// value this package uses for it, for the test that compares both.
func Constants() map[string]int64 {
	m := map[string]int64{}
	for _, s := range []Status{OK, ENOMEM, EINVAL, ECONFIG, ENET, ETIMEOUT, EAUTH, ENOTFOUND,
		ECONFLICT, ERATELIMIT, ESERVER, EPROTO, EABORTED, EINTERRUPTED, EUNSUPPORTED, EIO,
		EAPI, EREJECTED, ESNAPSHOT, EPERMISSION, EDISABLED, EINTERNAL, EDONE} {
		m[s.Name()] = int64(s)
	}
	for k := KindNone; k <= KindAborted; k++ {
		m["AIR_KIND_"+k.String()] = int64(k)
	}
	for _, o := range []Option{OptHost, OptToken, OptProfile, OptConfigFile, OptClientID,
		OptClientSecret, OptAuthType, OptUsername, OptPassword, OptWorkspaceID,
		OptUserAgentSuffix, OptCAFile, OptHomeDir, OptAuthStorage, OptUserWorkspaceDir,
		OptDefaultRuntime, OptDiscoveryURL, OptConnectTimeoutMs, OptRequestTimeoutMs,
		OptInactivityTimeoutMs, OptRetryDeadlineMs, OptRetryBackoffMs, OptUseEnvironment,
		OptSkipTLSVerify, OptRateLimit, OptMaxParallel} {
		m["AIR_OPT_"+o.String()] = int64(o)
	}
	for d := DebugInfo; d <= DebugBodyIn; d++ {
		m["AIR_DEBUG_"+d.String()] = int64(d)
	}
	for _, s := range []State{StateUnknown, StatePending, StateQueued, StateBlocked,
		StateWaitingForRetry, StateRunning, StateTerminating, StateTerminated, StateSkipped,
		StateInternalError, StateSuccess, StateSuccessWithFailures, StateFailed, StateTimedOut,
		StateCanceled, StateMaximumConcurrentRunsReached, StateExcluded, StateUpstreamFailed,
		StateUpstreamCanceled, StateDisabled, StateOther} {
		m["AIR_STATE_"+s.String()] = int64(s)
	}
	for _, p := range []Phase{PhaseIdentity, PhasePreflight, PhasePolicy, PhaseDirectory,
		PhaseImage, PhaseArtifacts, PhasePackaging, PhaseSnapshot, PhaseSubmit, PhaseDone} {
		m["AIR_PHASE_"+p.String()] = int64(p)
	}
	for _, s := range []LogSource{LogSourceEndpoint, LogSourceMLflow} {
		m["AIR_LOG_SOURCE_"+s.String()] = int64(s)
	}
	for _, f := range []Feature{FeatureHTTPS, FeatureOAuth, FeatureSnapshot, FeatureThreadsafe, FeatureLocal} {
		m["AIR_FEATURE_"+f.String()] = int64(f)
	}
	for _, f := range []CodeSourceForm{CodeSourceNone, CodeSourceFlat, CodeSourceNested} {
		m["AIR_CODE_SOURCE_"+f.String()] = int64(f)
	}
	for k := FieldObject; k <= FieldAnyMap; k++ {
		m["AIR_FIELD_"+k.String()] = int64(k)
	}
	for n, v := range map[string]int64{
		"AIR_PRINCIPAL_USER": int64(PrincipalUser), "AIR_PRINCIPAL_GROUP": int64(PrincipalGroup),
		"AIR_PRINCIPAL_SERVICE_PRINCIPAL": int64(PrincipalServicePrincipal),
		"AIR_CONFIG_MAX_BYTES":            ConfigMaxBytes,

		"AIR_GET_MLFLOW": getMLflow, "AIR_GET_SWEEP": getSweep,
		"AIR_GET_WORKSPACE_ID": getWorkspaceID, "AIR_GET_MLFLOW_NAME": getMLflowName,
		"AIR_GET_CONFIG": getConfig,

		"AIR_SWEEP_TOTAL": sweepTotal, "AIR_SWEEP_COMPLETED": sweepCompleted,
		"AIR_SWEEP_SUCCEEDED": sweepSucceeded, "AIR_SWEEP_FAILED": sweepFailed,
		"AIR_SWEEP_ACTIVE": sweepActive,

		"AIR_LIST_LIMIT": listLimit, "AIR_LIST_ALL_STATUS": listAllStatus,
		"AIR_LIST_ALL_USERS": listAllUsers, "AIR_LIST_MAX_INSPECTED": listMaxInspected,
		"AIR_LIST_WORKSPACE_ID": listWorkspaceID, "AIR_LIST_MLFLOW": listMLflow, "AIR_LIST_CACHE": listCache,

		"AIR_WAIT_POLL_INTERVAL_MS": waitPollIntervalMs,

		"AIR_LOGS_FOLLOW": logsFollow, "AIR_LOGS_TAIL_LINES": logsTailLines,
		"AIR_LOGS_MINUTES": logsMinutes, "AIR_LOGS_NODE": logsNode, "AIR_LOGS_ATTEMPT": logsAttempt,
		"AIR_LOGS_POLL_INTERVAL_MS": logsPollIntervalMs, "AIR_LOGS_MAX_PAGE_FAILURES": logsMaxPageFailures,

		"AIR_SUBMIT_IDEMPOTENCY_KEY": submitIdempotencyKey, "AIR_SUBMIT_BASE_DIR": submitBaseDir,
		"AIR_SUBMIT_SKIP_PREFLIGHT": submitSkipPreflight,

		"AIR_IMAGE_SOURCE": imageSource, "AIR_IMAGE_CATALOG": imageCatalog,
		"AIR_IMAGE_SCHEMA": imageSchema, "AIR_IMAGE_ARTIFACT": imageArtifact,
		"AIR_IMAGE_REGISTRY_HOST": imageRegistryHost, "AIR_IMAGE_DOCKER": imageDocker,
		"AIR_IMAGE_DATABRICKS_CLI": imageDatabricksCLI, "AIR_IMAGE_PULL": imagePull,

		"AIR_REGISTER_TAG_POLICY": registerTagPolicy, "AIR_REGISTER_DOCKER_CONFIG_DIR": registerDockerConfigDir,
		"AIR_REGISTER_CREDENTIALS_SCOPE": registerCredentialsScope,
		"AIR_REGISTER_CREDENTIALS_KEY":   registerCredentialsKey,
		"AIR_REGISTER_TIMEOUT_MS":        registerTimeoutMs, "AIR_REGISTER_POLL_INTERVAL_MS": registerPollIntervalMs,
		"AIR_REGISTER_HELPER_TIMEOUT_MS": registerHelperTimeoutMs, "AIR_REGISTER_DISCOVER": registerDiscover,

		"AIR_BUNDLE_BASE_DIR": bundleBaseDir, "AIR_BUNDLE_DEFAULT_RUNTIME": bundleDefaultRuntime,
		"AIR_BUNDLE_FORCE": bundleForce, "AIR_BUNDLE_USE_ENVIRONMENT": bundleUseEnvironment,
	} {
		m[n] = v
	}
	return m
}
