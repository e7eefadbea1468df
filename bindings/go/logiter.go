package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"runtime"
	"runtime/cgo"
)

// LogIter reads the logs of a run record by record, on the goroutine that
// calls Next (libair's pull iterator): the same records, in the same order,
// as StreamLogs.
//
//	it := client.Logs(ctx, runID, nil)
//	defer it.Close()
//	for it.Next() {
//		fmt.Println(it.Record().Line)
//	}
//	if err := it.Err(); err != nil { ... }
//
// While it follows an active run, Next blocks between polls. The context
// of Logs governs the whole iteration: when it ends, the Next in progress
// returns false at once and Err wraps ctx.Err(). A LogIter is used by one
// goroutine at a time.
type LogIter struct {
	core    *iterCore
	h       *C.air_log_iter
	state   *callState // the OnStatus/OnWaiting callbacks, or nil
	rec     LogRecord
	alerts  bool // records carry their alert (LogsOptions.NoAlerts unset)
	summary *LogsSummary
	err     error
}

// Logs opens the logs of run runID (the Jobs run id); opts may be nil. It
// makes the first requests (identity, runs/get) at once, so a bad run id
// shows in Err after the first Next; it always returns an iterator.
func (c *Client) Logs(ctx context.Context, runID int64, opts *LogsOptions) *LogIter {
	it := &LogIter{state: logCallbacks(opts, nil), alerts: wantAlerts(opts)}
	it.core, it.err = openIterWith(c, ctx, logsOpts, it.state,
		func(o *C.air_logs_options, h cgo.Handle) error { return setLogsCall(o, opts, it.state, h) },
		func(h *C.air_client, o *C.air_logs_options) error {
			var e *C.air_error
			return check(C.air_client_open_logs(h, C.int64_t(runID), o, &it.h, &e), e)
		},
		func() { C.air_log_iter_free(it.h) }) // may still end a waiting message through the handle
	if it.core != nil {
		runtime.SetFinalizer(it, (*LogIter).Close)
	}
	it.state.repanic()
	return it
}

// Next advances to the next record: false once the logs are complete (see
// Summary) or on a failure (see Err). The iterator is released when Next
// returns false.
func (it *LogIter) Next() bool {
	var rec *C.air_log_record
	return it.core.next(&it.err, it.state, func() (C.int, *C.air_error) {
		var e *C.air_error
		return C.air_log_iter_next(it.h, &rec, &e), e
	}, func() { it.rec = recordFromC(rec, it.alerts) },
		func() { it.summary = summaryFromC(C.air_log_iter_summary(it.h)) })
}

// Record is the current record (after Next returned true).
func (it *LogIter) Record() LogRecord { return it.rec }

// Err is the failure that ended the iteration, or nil.
func (it *LogIter) Err() error { return it.err }

// Summary is what the iteration observed, once Next has returned false
// at the normal end; nil before that and after a failure.
func (it *LogIter) Summary() *LogsSummary { return it.summary }

// Close releases the iterator; idempotent, and implied when Next returns false.
func (it *LogIter) Close() error {
	if it.core != nil {
		it.core.shut(nil)
	}
	runtime.SetFinalizer(it, nil)
	return nil
}
