package air

/*
#include <stdlib.h>
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"io"
	"runtime/cgo"
	"time"
	"unsafe"
)

// LogRecord is one log line of a run (a copy: it may be kept).
type LogRecord struct {
	Line   string    // without its newline
	Time   time.Time // zero when unknown
	Node   int       // the requested node index
	Source LogSource // where the record came from
	// Alert is the first fatal pattern the line matches (see AlertPatterns),
	// or 0; always 0 with LogsOptions.NoAlerts (MatchAlert(Line) then gives
	// it for the records that need it).
	Alert int
}

// recordFromC copies rec in one call into C; its line is matched against
// the fatal patterns only when alerts is set.
func recordFromC(rec *C.air_log_record, alerts bool) LogRecord {
	var f C.airgo_log_fields
	C.airgo_log_record_fields(rec, flag(alerts), &f)
	var line string
	if f.line != nil {
		line = C.GoStringN(f.line, C.int(f.len))
	}
	return LogRecord{
		Line:   line,
		Time:   timeFromNs(int64(f.time_ns)),
		Node:   int(f.node),
		Source: LogSource(f.source),
		Alert:  int(f.alert),
	}
}

// LogsOptions select and pace what Logs and StreamLogs read. Zero values
// (and a nil *LogsOptions) are the library's defaults; the pointer fields
// are those where zero is itself meaningful (set them with Int).
type LogsOptions struct {
	NoFollow        bool          // one pass over what is there (default: follow an active run until it ends)
	TailLines       *int          // a finished run's last N lines; default 10000; Int(0) = none
	Last            time.Duration // only the records of the last d (whole minutes, rounded up); 0 = all
	Node            int           // node index; default 0
	Attempt         *int          // retry attempt, 0-based; default the latest
	PollInterval    time.Duration // pause between polls of a followed run; default 3 s (1 s local)
	MaxPageFailures int           // consecutive page failures before the MLflow fallback; default 5
	// NoAlerts leaves LogRecord.Alert 0: no line is matched against the
	// fatal patterns, which saves a regular-expression scan per record.
	NoAlerts bool

	// OnStatus receives the run's display state when it is first seen
	// (previous "") and at each change.
	OnStatus func(current, previous string) error
	// OnWaiting receives what a followed run without log lines is waiting
	// for ("Allocating nodes...", on polls 0, 5, 10, ...: each costs a
	// runs/get-output request, none when OnWaiting is nil), then "" once
	// the wait is over.
	OnWaiting func(message string) error
	// OnAttempt receives the attempt (0-based) a followed run has just
	// started, before that attempt's records: where a retry begins.
	OnAttempt func(attempt int) error
}

// The callbacks of LogsOptions and StreamLogs run on the calling goroutine
// (inside Next for Logs); an error returned by one stops the call, which
// then fails with EABORTED and that error as the cause.

// setLogsOptions applies opts; the callbacks are installed separately.
func setLogsOptions(o *C.air_logs_options, opts *LogsOptions) error {
	if opts == nil {
		return nil
	}
	ints := map[C.int32_t]int64{}
	if opts.NoFollow {
		ints[logsFollow] = 0
	}
	if opts.TailLines != nil {
		ints[logsTailLines] = int64(*opts.TailLines)
	}
	if opts.Last != 0 {
		ints[logsMinutes] = int64((opts.Last + time.Minute - 1) / time.Minute)
	}
	if opts.Node != 0 {
		ints[logsNode] = int64(opts.Node)
	}
	if opts.Attempt != nil {
		ints[logsAttempt] = int64(*opts.Attempt)
	}
	if opts.PollInterval != 0 {
		ints[logsPollIntervalMs] = millis(opts.PollInterval)
	}
	if opts.MaxPageFailures != 0 {
		ints[logsMaxPageFailures] = int64(opts.MaxPageFailures)
	}
	for opt, v := range ints {
		if err := check(C.air_logs_options_set_int(o, opt, C.int64_t(v)), nil); err != nil {
			return err
		}
	}
	return nil
}

// setLogsCall fills the options of a logs call: opts, and the callbacks of
// state (handle h) when it has any.
func setLogsCall(o *C.air_logs_options, opts *LogsOptions, state *callState, h cgo.Handle) error {
	if err := setLogsOptions(o, opts); err != nil || state == nil {
		return err
	}
	return check(C.airgo_logs_options_set_callbacks(o, flag(state.onRecord != nil),
		flag(state.onStatus != nil), flag(state.onWaiting != nil), flag(state.onAttempt != nil),
		C.uintptr_t(h)), nil)
}

// logCallbacks is the callState of opts' callbacks plus record, or nil.
func logCallbacks(opts *LogsOptions, record func(LogRecord) error) *callState {
	s := callState{onRecord: record, alerts: wantAlerts(opts)}
	if opts != nil {
		s.onStatus, s.onWaiting, s.onAttempt = opts.OnStatus, opts.OnWaiting, opts.OnAttempt
	}
	return callbacks(s)
}

// wantAlerts tells whether records of a read with opts carry their alert.
func wantAlerts(opts *LogsOptions) bool { return opts == nil || !opts.NoAlerts }

// flag is a C boolean.
func flag(set bool) C.int {
	if set {
		return 1
	}
	return 0
}

// LogsSummary is what a completed log read observed.
type LogsSummary struct {
	Records       int64     // records delivered
	State         State     // the run's last observed display state
	StateName     string    // State as written ("SUCCESS")
	Terminal      bool      // the run had ended
	Succeeded     bool      // the run ended SUCCESS
	Source        LogSource // what served the records (MLflow after a fallback)
	NoLogsMessage string    // when no record at all was found: why; else ""
}

func summaryFromC(s *C.air_logs_summary) *LogsSummary {
	return &LogsSummary{
		Records:       int64(C.air_logs_summary_records(s)),
		State:         State(C.air_logs_summary_state(s)),
		StateName:     gostr(C.air_logs_summary_state_name(s)),
		Terminal:      C.air_logs_summary_terminal(s) != 0,
		Succeeded:     C.air_logs_summary_succeeded(s) != 0,
		Source:        LogSource(C.air_logs_summary_source(s)),
		NoLogsMessage: gostr(C.air_logs_summary_no_logs_message(s)),
	}
}

// StreamLogs delivers the logs of run runID to record (which may be nil),
// in order and without duplicates, until the run has ended and its last
// lines are delivered (or after one pass with NoFollow). It returns what
// the stream observed, whatever the run's result. Logs reads the same
// records with an iterator instead.
func (c *Client) StreamLogs(ctx context.Context, runID int64, opts *LogsOptions, record func(LogRecord) error) (*LogsSummary, error) {
	return c.streamLogs(ctx, runID, opts, logCallbacks(opts, record))
}

// CopyLogs writes the lines of run runID's logs to w, each followed by a
// newline, many lines per Write: what StreamLogs reads, at the cost of a
// copy (a finished local run's lines come straight from its node log). w
// must not keep the slice it is given. It returns what the stream observed;
// an error from w stops the copy and is the cause of the error returned.
func (c *Client) CopyLogs(ctx context.Context, runID int64, opts *LogsOptions, w io.Writer) (*LogsSummary, error) {
	state := logCallbacks(opts, nil)
	if state == nil {
		state = &callState{}
	}
	state.onText = func(p []byte) error {
		_, err := w.Write(p)
		return err
	}
	return c.streamLogs(ctx, runID, opts, state)
}

// streamLogs runs air_client_stream_logs with the callbacks of state (nil:
// none), its text callback among them when it has one.
func (c *Client) streamLogs(ctx context.Context, runID int64, opts *LogsOptions, state *callState) (*LogsSummary, error) {
	h, release := state.handle()
	defer release()
	return withCall(c, ctx, logsOpts, func(o *C.air_logs_options) error {
		if err := setLogsCall(o, opts, state, h); err != nil || state == nil || state.onText == nil {
			return err
		}
		return check(C.airgo_logs_options_set_text(o, C.uintptr_t(h)), nil)
	}, func(k *call, o *C.air_logs_options) (*LogsSummary, error) {
		var s *C.air_logs_summary
		var e *C.air_error
		rc := C.air_client_stream_logs(k.h, C.int64_t(runID), o, &s, &e)
		defer C.air_logs_summary_free(s)
		state.repanic()
		if err := state.cause(check(rc, e)); err != nil {
			return nil, k.fail(err)
		}
		return summaryFromC(s), nil
	})
}

// AlertPatterns are the regular expressions of the fatal-line patterns;
// pattern n (LogRecord.Alert) is element n-1.
func AlertPatterns() []string {
	n := int(C.air_log_alert_pattern_count())
	out := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, gostr(C.air_log_alert_pattern(C.int32_t(i))))
	}
	return out
}

// MatchAlert is the number of the first fatal pattern that line matches, or 0.
func MatchAlert(line string) int {
	if line == "" {
		return int(C.air_log_match_alert(nil, 0))
	}
	p := C.CString(line)
	defer C.free(unsafe.Pointer(p))
	return int(C.air_log_match_alert(p, C.size_t(len(line))))
}
