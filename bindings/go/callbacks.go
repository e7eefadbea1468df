package air

// The //export trampolines that libair calls back through (shim.c casts
// them to the libair callback types). userdata is a cgo.Handle value, never
// a Go pointer, so libair keeps no Go pointer. A file with //export may only
// declare in its preamble.

/*
#include <stdint.h>
#include <air/air.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
	"unsafe"
)

// callState holds the Go callbacks of one call (or iterator) and what they
// did: the first error one returned, or a panic to raise again once libair
// has returned, so that a panic never unwinds through C frames.
type callState struct {
	onRecord   func(LogRecord) error
	onText     func([]byte) error // lines as text (CopyLogs); the bytes are libair's
	onStatus   func(current, previous string) error
	onWaiting  func(message string) error
	onAttempt  func(attempt int) error
	onProgress func(Progress) error
	onState    func(*Run) error
	client     *Client // the client of the runs given to onState
	onPoll     func(state string) error
	onCheck    func(Check) error
	onVariant  func(Variant) error
	alerts     bool // records carry their alert (LogsOptions.NoAlerts unset)

	err      error       // first error a callback returned
	panicked bool        // a callback panicked ...
	panicVal interface{} // ... with this value
}

// callbacks is s as the state of a call, or nil when it has no callback.
func callbacks(s callState) *callState {
	if s.onRecord == nil && s.onText == nil && s.onStatus == nil && s.onWaiting == nil && s.onAttempt == nil &&
		s.onProgress == nil &&
		s.onState == nil && s.onPoll == nil && s.onCheck == nil && s.onVariant == nil {
		return nil
	}
	return &s
}

// handle is the cgo.Handle of s for the userdata of C callbacks, with the
// function that deletes it; 0 and a no-op for a nil s.
func (s *callState) handle() (cgo.Handle, func()) {
	if s == nil {
		return 0, func() {}
	}
	h := cgo.NewHandle(s)
	return h, h.Delete
}

// invoke runs one callback; an error or a panic makes libair stop the call.
func (s *callState) invoke(f func() error) (ret C.int) {
	if s.err != nil || s.panicked {
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			s.panicked, s.panicVal, ret = true, r, 1
		}
	}()
	if err := f(); err != nil {
		s.err = err
		return 1
	}
	return 0
}

// repanic raises a callback's panic again on the calling goroutine.
func (s *callState) repanic() {
	if s != nil && s.panicked {
		panic(s.panicVal)
	}
}

// cause makes a callback's error the cause of the call's failure.
func (s *callState) cause(err error) error {
	if e, ok := err.(*Error); ok && s != nil && s.err != nil && e.Cause == nil {
		e.Cause = s.err
	}
	return err
}

func stateOf(h C.uintptr_t) *callState { return cgo.Handle(h).Value().(*callState) }

//export airgoLogRecord
func airgoLogRecord(rec *C.air_log_record, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onRecord(recordFromC(rec, s.alerts)) })
}

//export airgoLogText
func airgoLogText(text *C.char, n C.size_t, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onText(unsafe.Slice((*byte)(unsafe.Pointer(text)), int(n))) })
}

//export airgoLogStatus
func airgoLogStatus(current, previous *C.char, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onStatus(gostr(current), gostr(previous)) })
}

//export airgoLogWaiting
func airgoLogWaiting(message *C.char, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onWaiting(gostr(message)) })
}

//export airgoLogAttempt
func airgoLogAttempt(attempt C.int32_t, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onAttempt(int(attempt)) })
}

//export airgoProgress
func airgoProgress(ev *C.air_progress, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error {
		return s.onProgress(Progress{
			Phase:      Phase(C.air_progress_phase(ev)),
			BytesDone:  int64(C.air_progress_bytes_done(ev)),
			BytesTotal: int64(C.air_progress_bytes_total(ev)),
			Detail:     gostr(C.air_progress_detail(ev)),
		})
	})
}

//export airgoWaitState
func airgoWaitState(run *C.air_run, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error {
		r, err := runFromC(run)
		if err != nil {
			return err
		}
		r.client = s.client
		return s.onState(r)
	})
}

//export airgoMetricsPoll
func airgoMetricsPoll(state *C.char, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onPoll(gostr(state)) })
}

//export airgoCheck
func airgoCheck(c *C.air_check, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onCheck(checkFromC(c)) })
}

//export airgoSweepProgress
func airgoSweepProgress(sweep *C.air_sweep, index C.size_t, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onVariant(variantFromC(sweep, int(index))) })
}

//export airgoDebug
func airgoDebug(typ C.int32_t, text *C.char, n C.size_t, h C.uintptr_t) C.int {
	// libair ignores the result, and the callback may run on several
	// goroutines at once: a panic cannot be handed to any one caller.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "air: the debug callback panicked: %v\n", r)
		}
	}()
	fn := cgo.Handle(h).Value().(func(DebugType, string))
	var s string
	if text != nil {
		s = string(C.GoBytes(unsafe.Pointer(text), C.int(n)))
	}
	fn(DebugType(typ), s)
	return 0
}
