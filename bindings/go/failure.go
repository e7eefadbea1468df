package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"errors"
	"strings"
)

// Failure says why a run ended without succeeding (FAILED, TIMEDOUT,
// CANCELED, ...): what the platform says, and an excerpt of the failing
// node's log — its last Python traceback, else its first line that matches
// an alert pattern with its neighbours, else its last 20 lines. No root
// cause is guessed.
type Failure struct {
	RunID     int64
	State     State  // how the run ended
	StateName string // State as the workspace wrote it
	// Message is why the run ended in the platform's words: the state
	// message, else the termination message; "" when it gave neither.
	Message         string
	Node            int        // the node whose log the excerpt comes from; -1 when the run never started
	NodeSource      NodeSource // how Node was chosen (named by the platform, found by its traceback, ...)
	Attempt         int        // the attempt the report is about, 0-based (the latest)
	AttemptsAllowed int        // max_retries + 1; -1 when retries are unlimited

	Excerpt        []string    // the log's own lines, oldest first
	ExcerptKind    ExcerptKind // ExcerptTraceback, ExcerptAlert, ExcerptTail, or ExcerptNone
	ExcerptOmitted int64       // lines of a long traceback left out after its first line
	ExcerptProblem string      // why there is no excerpt (the log could not be read, has no line), or ""
	AlertPattern   int         // the alert pattern that labels the excerpt (see AlertPatterns), or 0
	AlertLabel     string      // its label ("CUDA out of memory"), or ""

	StateMessage       string // state.state_message of runs/get
	TerminationCode    string // status.termination_details.code ("RUN_EXECUTION_ERROR")
	TerminationType    string // status.termination_details.type ("CLIENT_ERROR")
	TerminationMessage string // status.termination_details.message

	// Summary is the report's first line, as air prints it: "Run 7 FAILED
	// (attempt 2 of 2, node 0): <Message>" (a last "(attempt N)" of the
	// message, which the place says already, left out). The library makes
	// it when it reads the report: a copy with another Message keeps it.
	Summary string
}

// String is the report as air prints it: Summary, then the excerpt,
// indented.
func (f *Failure) String() string {
	var b strings.Builder
	b.WriteString(f.Summary)
	for _, line := range f.Excerpt {
		b.WriteString("\n  " + line)
	}
	return b.String()
}

// FailureOptions choose what Failure reads; zero values (and nil) are the
// library's defaults.
type FailureOptions struct {
	// Node is the node whose log to read; default: the one the platform
	// names, else the first whose log has a traceback, else 0.
	Node         *int
	Attempt      *int // the attempt, 0-based; default the latest
	ExcerptLines int  // most lines in the excerpt; default 40
	ScanLines    int  // log records read, the newest; default 5000
	ScanNodes    int  // nodes searched for a traceback when none is named; default 8
}

func setFailureOptions(o *C.air_failure_options, opts *FailureOptions) error {
	if opts == nil {
		return nil
	}
	for _, f := range []struct {
		opt   C.int32_t
		value *int
		field string
	}{{failureNode, opts.Node, "FailureOptions.Node"},
		{failureAttempt, opts.Attempt, "FailureOptions.Attempt"},
		{failureExcerptLines, nonZero(opts.ExcerptLines), "FailureOptions.ExcerptLines"},
		{failureScanLines, nonZero(opts.ScanLines), "FailureOptions.ScanLines"},
		{failureScanNodes, nonZero(opts.ScanNodes), "FailureOptions.ScanNodes"}} {
		if f.value == nil {
			continue
		}
		if err := check(C.air_failure_options_set_int(o, f.opt, C.int64_t(*f.value)), nil); err != nil {
			return badOption(err, f.field)
		}
	}
	return nil
}

// nonZero is &v, or nil for 0 (the default).
func nonZero(v int) *int {
	if v == 0 {
		return nil
	}
	return &v
}

// Failure reads why run runID failed: the platform's message and the
// excerpt of the failing node's log, read as a tail in bounded memory. It
// is nil (and the error nil) for a run that succeeded or is still going. A
// log that cannot be read is no error: the Failure then has no excerpt and
// ExcerptProblem says why. opts may be nil.
func (c *Client) Failure(ctx context.Context, runID int64, opts *FailureOptions) (*Failure, error) {
	return withCall(c, ctx, failureOpts, func(o *C.air_failure_options) error {
		return setFailureOptions(o, opts)
	}, func(k *call, o *C.air_failure_options) (*Failure, error) {
		var f *C.air_failure
		var e *C.air_error
		if err := k.result(C.air_client_get_failure(k.h, C.int64_t(runID), o, &f, &e), e); err != nil {
			return nil, err
		}
		if f == nil {
			return nil, nil
		}
		defer C.air_failure_free(f)
		return failureFromC(f), nil
	})
}

// errNoClient: a Run that was not read through a Client cannot read more.
var errNoClient = errors.New("air: the run was not read through a Client")

// Failure reads why the run failed through the client that read it (see
// Client.Failure): nil, without a request, for a run that succeeded or is
// still going.
func (r *Run) Failure(ctx context.Context) (*Failure, error) {
	if !r.IsTerminal || r.Succeeded {
		return nil, nil
	}
	if r.client == nil {
		return nil, errNoClient
	}
	return r.client.Failure(ctx, r.ID, nil)
}

func failureFromC(f *C.air_failure) *Failure {
	out := &Failure{
		RunID:              int64(C.air_failure_run_id(f)),
		State:              State(C.air_failure_state(f)),
		StateName:          gostr(C.air_failure_state_name(f)),
		Message:            gostr(C.air_failure_message(f)),
		Node:               int(C.air_failure_node(f)),
		NodeSource:         NodeSource(C.air_failure_node_source(f)),
		Attempt:            int(C.air_failure_attempt(f)),
		AttemptsAllowed:    int(C.air_failure_attempts_allowed(f)),
		ExcerptKind:        ExcerptKind(C.air_failure_excerpt_kind(f)),
		ExcerptOmitted:     int64(C.air_failure_excerpt_omitted(f)),
		ExcerptProblem:     gostr(C.air_failure_excerpt_problem(f)),
		AlertPattern:       int(C.air_failure_alert_pattern(f)),
		AlertLabel:         gostr(C.air_failure_alert_label(f)),
		StateMessage:       gostr(C.air_failure_state_message(f)),
		TerminationCode:    gostr(C.air_failure_termination_code(f)),
		TerminationType:    gostr(C.air_failure_termination_type(f)),
		TerminationMessage: gostr(C.air_failure_termination_message(f)),
		Summary:            gostr(C.air_failure_summary(f)),
	}
	n := C.air_failure_excerpt_count(f)
	for i := C.size_t(0); i < n; i++ {
		var size C.size_t
		p := C.air_failure_excerpt_line(f, i, &size)
		out.Excerpt = append(out.Excerpt, C.GoStringN(p, C.int(size)))
	}
	return out
}

// AlertLabel is a short label of fatal pattern n ("CUDA out of memory"), or "".
func AlertLabel(pattern int) string {
	return gostr(C.air_log_alert_label(C.int32_t(pattern)))
}
