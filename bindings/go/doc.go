// Package air is the Go binding of libair, a client for Databricks AI
// Runtime: the serverless GPU platform where a training or inference
// workload is described in a YAML file and submitted as a Jobs run. It
// validates workload files offline, submits them, reads, lists, waits for
// and cancels runs, streams and downloads their logs, lists GPU pools,
// pushes and registers container images and writes workloads as bundles,
// through the C library's stable ABI.
//
// # Building
//
// The package finds libair with pkg-config ("#cgo pkg-config: libair"), so
// no CGO_CFLAGS or CGO_LDFLAGS are needed. With libair installed nothing is
// to be set (or PKG_CONFIG_PATH, for a prefix pkg-config does not search).
// With a build tree that is not installed, point pkg-config at it; its .pc
// gives the program the tree's libair directory as its run path, so that it
// runs without LD_LIBRARY_PATH:
//
//	export PKG_CONFIG_PATH=<build>/meson-uninstalled
//	go build
//
// The module path is libair/air. It is not served by a module proxy: a
// program's go.mod requires it and points it at the bindings/go directory
// of the libair source tree that matches the installed library:
//
//	require libair/air v0.0.0 // a placeholder: the replace line decides
//	replace libair/air => /path/to/libair/bindings/go
//
// The package uses the standard library only. See docs/go.md in the libair
// source tree for the details.
//
// # A first program
//
// A Client reads its configuration like the Databricks CLI: explicit
// ClientOptions, then the DATABRICKS_HOST, DATABRICKS_TOKEN, ... variables,
// then ~/.databrickscfg.
//
//	client, err := air.NewClient(nil)
//	if err != nil { ... }
//	defer client.Close()
//	cfg, err := air.LoadConfig("train.yaml", "compute.num_accelerators=16")
//	if err != nil { ... } // an *air.Error naming file:line:column and the field
//	defer cfg.Close()
//	sub, err := client.Submit(ctx, cfg, nil)
//	if err != nil { ... }
//	run, err := client.Wait(ctx, sub.RunID, nil)
//	if err != nil { ... }
//	fmt.Println(run.State) // SUCCESS
//
// # Contexts
//
// Every method that may touch the network (or run a helper program) takes a
// context.Context first. When the context is cancelled or its deadline
// passes, the call returns promptly, also in the middle of a transfer, a
// retry back-off or the poll interval of a log stream or a wait: the
// package gives libair an interrupt that a goroutine raises when the
// context ends, and the context's deadline as the call's own deadline. The
// error then wraps ctx.Err():
//
//	ctx, cancel := context.WithTimeout(ctx, time.Second)
//	defer cancel()
//	_, err := client.GetRun(ctx, runID, nil)
//	if errors.Is(err, context.DeadlineExceeded) { ... }
//
// A context that has already ended fails the call before anything is sent.
// For an iterator (Logs, ListRuns), the context of the call that opened it
// governs every later Next.
//
// # Clients, goroutines and Close
//
// A Client is safe for concurrent use; create one per workspace and share
// it (connections, the DNS cache and OAuth tokens are shared). Close may be
// called from any goroutine at any time: calls made afterwards fail at once,
// calls in progress are interrupted, open iterators are released, and Close
// returns when every call has left the C library. Errors caused by Close
// match ErrClosed:
//
//	if errors.Is(err, air.ErrClosed) { ... }
//
// A Config, a LogIter or a RunIter is used by one goroutine at a time.
// Handles also have finalizers, but Close releases them at a known time.
//
// # Options
//
// Every call with options takes a pointer to an options struct (nil means
// the defaults): ClientOptions, GetOptions, ListOptions, WaitOptions,
// LogsOptions, DownloadOptions, SubmitOptions, ImagePushOptions,
// RegisterImageOptions, BundleOptions. A field left at its zero value takes
// the library's default; a pointer field (set with Int) is used where zero
// is itself a meaningful value, as in LogsOptions.TailLines. Durations are
// time.Duration and instants time.Time.
//
// # Errors
//
// Failures are *Error values carrying libair's details: the status Code,
// the Kind (what to do about it), the Message (never a secret), the
// workload Field, File, Line and Column of a config error, the HTTP status
// and request id of a failing reply, and whether it is Retryable. Error()
// reads "air: KIND: message":
//
//	var e *air.Error
//	if errors.As(err, &e) && e.Retryable { ... }
//	if errors.Is(err, air.ENOTFOUND) { ... } // status codes are error values
//
// The Cause of an error is the context's error when a context ended the
// call, or the error a callback returned; errors.Is and errors.As see it.
//
// # Runs
//
// GetRun reads a run (GetOptions add MLflow ids, sweep iterations, the
// uploaded YAML); ListRuns iterates over a listing page by page; Wait polls
// a run until it ends and returns it; CancelRun, CancelRuns and CancelAll
// request cancellations. A Run's State is a typed enum (StateRunning,
// StateSuccess, ...) with String and IsTerminal.
//
// # Logs
//
// Logs returns an iterator that reads a run's log records on the calling
// goroutine, following an active run until it ends:
//
//	it := client.Logs(ctx, runID, nil)
//	defer it.Close()
//	for it.Next() {
//		fmt.Println(it.Record().Line)
//	}
//	if err := it.Err(); err != nil { ... }
//
// StreamLogs delivers the same records to a callback instead, and
// DownloadLogs writes a run's MLflow log artifacts to files.
//
// # Callbacks
//
// Callbacks (SubmitOptions.OnProgress, LogsOptions.OnStatus, OnWaiting and OnAttempt,
// WaitOptions.OnState, the record function of StreamLogs) run
// synchronously on the goroutine that made the call. A callback that
// returns an error stops the call, which fails with EABORTED and that error
// as its Cause (ErrStop is a ready-made one). A panic in a callback stops
// the call and is raised again on the caller's goroutine once the C library
// has returned; it never unwinds through C frames. ClientOptions.Debug may
// run on several goroutines at once. A callback must not Close the Client
// whose call runs it.
//
// # Workload files
//
// LoadConfig and LoadConfigBytes parse, override and validate a workload
// YAML file offline; Config exposes the validated values, and
// Config.WriteBundle writes them as a Declarative Automation Bundle
// (databricks.yml) that runs the workload as a persistent job. LookupField
// and SchemaRoot describe the schema for help texts.
//
// # Images
//
// PushImage pushes a local image to the workspace's artifact registry;
// RegisterImage registers a legacy image (environment.docker_image) with
// the workspace and waits until it is AVAILABLE, storing the credentials of
// a private registry found in the local Docker configuration in the
// caller's secret scope. Still not available after
// RegisterImageOptions.Timeout is ETIMEOUT (retryable); a failed import is
// EAPI.
//
// # The local workspace
//
// The host "local://" or "local:///some/dir" runs workloads on this
// machine, through the same calls and without credentials
// (FeatureLocal; docs/local.md in the libair source tree).
//
// # Memory
//
// Results (Run, Submission, LogRecord, reports, Pool) are Go copies: the C
// objects are released before the method returns. No Go pointer is kept by
// the C library: callbacks are identified by cgo.Handle values.
package air
