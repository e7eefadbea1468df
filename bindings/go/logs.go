package air

/*
#include <stdlib.h>
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"unsafe"
)

// LogRecord is one log record (a copy; it may be kept).
type LogRecord struct {
	Line   string // without the newline
	TimeNs int64  // nanoseconds since the epoch; 0 when unknown
	Node   int
	Source int32 // LogSource*
}

// LogsOptions select what a stream or download reads. Nil pointers (and a
// nil *LogsOptions) mean the library defaults.
type LogsOptions struct {
	Follow          *bool  // default true: follow an active run until terminal
	TailLines       *int64 // finished runs: default 10000; 0 = none
	Minutes         int64  // only the last N minutes; 0 = off
	Node            *int64 // default 0 (downloads: -1 = every node)
	Attempt         *int64 // default -1 = latest
	PollIntervalMs  int64  // default 3000
	MaxPageFailures int64  // default 5
}

// Int64 returns a pointer to v, for the optional fields of LogsOptions.
func Int64(v int64) *int64 { return &v }

// Bool returns a pointer to v.
func Bool(v bool) *bool { return &v }

// LogHandlers are the callbacks of a stream; any may be nil. They run on
// the calling goroutine; a non-nil error from one stops the stream (the
// call then returns an EABORTED *Error whose Cause is that error).
//
// Waiting receives what a followed run without log lines is waiting for
// ("Allocating nodes...", on polls 0, 5, 10, ...; each costs a
// runs/get-output request, none when Waiting is nil), then "" once the wait
// is over: before the first record, or before StreamLogs returns.
type LogHandlers struct {
	Record  func(LogRecord) error
	Status  func(current, previous string) error // previous "" on the first state
	Alert   func(rec LogRecord, pattern int) error
	Waiting func(message string) error
}

// LogsSummary is what a finished stream observed.
type LogsSummary struct {
	Records       int64
	State         string
	Terminal      bool
	Succeeded     bool
	Source        int32
	OK            bool
	NoLogsMessage string
}

func logsOptions(o *C.air_logs_options, opts *LogsOptions) error {
	if opts == nil {
		return nil
	}
	set := func(opt int32, v int64) error {
		return check(C.air_logs_options_set_int(o, C.int32_t(opt), C.int64_t(v)), nil)
	}
	type kv struct {
		opt int32
		v   *int64
	}
	var follow *int64
	if opts.Follow != nil {
		follow = Int64(int64(cbool(*opts.Follow)))
	}
	nz := func(v int64) *int64 {
		if v == 0 {
			return nil
		}
		return &v
	}
	for _, p := range []kv{{LogsFollow, follow}, {LogsTailLines, opts.TailLines},
		{LogsMinutes, nz(opts.Minutes)}, {LogsNode, opts.Node}, {LogsAttempt, opts.Attempt},
		{LogsPollIntervalMs, nz(opts.PollIntervalMs)}, {LogsMaxPageFailures, nz(opts.MaxPageFailures)}} {
		if p.v != nil {
			if err := set(p.opt, *p.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// logsCall builds the options of a logs call made under ctx: opts applied,
// and an interrupt that fires when ctx ends. release frees both.
func logsCall(ctx context.Context, opts *LogsOptions) (*C.air_logs_options, *ctxInterrupt, func(), error) {
	var o *C.air_logs_options
	if err := check(C.air_logs_options_new(&o), nil); err != nil {
		return nil, nil, nil, err
	}
	var w *ctxInterrupt
	err := logsOptions(o, opts)
	if err == nil {
		w, err = watch(ctx)
	}
	if err == nil {
		if err = check(C.air_logs_options_set_interrupt(o, w.h), nil); err != nil {
			w.stop()
		}
	}
	if err != nil {
		C.air_logs_options_free(o)
		return nil, nil, nil, err
	}
	return o, w, func() { w.stop(); C.air_logs_options_free(o) }, nil
}

// StreamLogs streams the logs of run runID to the handlers until the run is
// terminal and drained (or one pass, with Follow false). It returns an
// EINTERRUPTED *Error (Cause = ctx.Err()) when ctx ends.
func (c *Client) StreamLogs(ctx context.Context, runID int64, opts *LogsOptions, hs LogHandlers) (*LogsSummary, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	o, w, release, err := logsCall(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer release()
	state := &callState{onRecord: hs.Record, onStatus: hs.Status, onAlert: hs.Alert,
		onWaiting: hs.Waiting}
	handle := cgo.NewHandle(state)
	defer handle.Delete()
	if hs.Waiting != nil {
		if err := check(C.airgo_logs_options_set_waiting(o, C.uintptr_t(handle)), nil); err != nil {
			return nil, err
		}
	}
	flag := func(b bool) C.int {
		if b {
			return 1
		}
		return 0
	}
	var s *C.air_logs_summary
	var e *C.air_error
	rc := C.airgo_stream_logs(h, C.int64_t(runID), o, flag(hs.Record != nil), flag(hs.Status != nil),
		flag(hs.Alert != nil), C.uintptr_t(handle), &s, &e)
	defer C.air_logs_summary_free(s)
	if err := state.finish(rc, e); err != nil {
		return nil, w.annotate(err)
	}
	if s == nil {
		return nil, nil
	}
	return &LogsSummary{
		Records:       int64(C.air_logs_summary_records(s)),
		State:         gostr(C.air_logs_summary_state(s)),
		Terminal:      C.air_logs_summary_terminal(s) != 0,
		Succeeded:     C.air_logs_summary_succeeded(s) != 0,
		Source:        int32(C.air_logs_summary_source(s)),
		OK:            C.air_logs_summary_ok(s) != 0,
		NoLogsMessage: gostr(C.air_logs_summary_no_logs_message(s)),
	}, nil
}

// DownloadEntry is one node of a log download.
type DownloadEntry struct {
	Node     int
	Path     string
	Bytes    int64
	Complete bool
	Error    string
}

// DownloadReport lists the files a download wrote.
type DownloadReport struct {
	Entries       []DownloadEntry
	NoLogsMessage string
	OK            bool
}

// DownloadLogs writes the MLflow log artifacts of runID to <dir>/logs/node_<n>.log.
func (c *Client) DownloadLogs(ctx context.Context, runID int64, dir string, opts *LogsOptions) (*DownloadReport, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	o, w, release, err := logsCall(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer release()
	d := cstr(dir)
	defer free(d)
	var rep *C.air_download_report
	var e *C.air_error
	if err := check(C.air_client_download_logs(h, C.int64_t(runID), d, o, &rep, &e), e); err != nil {
		C.air_download_report_free(rep)
		return nil, w.annotate(err)
	}
	defer C.air_download_report_free(rep)
	out := &DownloadReport{
		NoLogsMessage: gostr(C.air_download_report_no_logs_message(rep)),
		OK:            C.air_download_report_ok(rep) != 0,
	}
	n := C.air_download_report_count(rep)
	for i := C.size_t(0); i < n; i++ {
		out.Entries = append(out.Entries, DownloadEntry{
			Node:     int(C.air_download_report_node(rep, i)),
			Path:     gostr(C.air_download_report_path(rep, i)),
			Bytes:    int64(C.air_download_report_bytes(rep, i)),
			Complete: C.air_download_report_complete(rep, i) != 0,
			Error:    gostr(C.air_download_report_error(rep, i)),
		})
	}
	return out, nil
}

// AlertPatterns are the fatal-line patterns; element i is pattern i+1.
func AlertPatterns() []string {
	n := int(C.air_log_alert_pattern_count())
	out := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, gostr(C.air_log_alert_pattern(C.int32_t(i))))
	}
	return out
}

// MatchAlert is the number of the first fatal pattern matching line, or 0.
func MatchAlert(line string) int {
	if line == "" {
		return int(C.air_log_match_alert(nil, 0))
	}
	p := C.CString(line)
	defer C.free(unsafe.Pointer(p))
	return int(C.air_log_match_alert(p, C.size_t(len(line))))
}
