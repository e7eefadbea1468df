package air

// The //export trampolines libair calls back through (via shim.c, which
// casts them to the libair callback types). A file with //export may only
// declare in its preamble. userdata carries a cgo.Handle of a *callState (or
// of the client's debug function), never a Go pointer.

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

// callState holds the Go callbacks of one call and what they produced.
type callState struct {
	onRecord   func(LogRecord) error
	onStatus   func(current, previous string) error
	onAlert    func(LogRecord, int) error
	onWaiting  func(string) error
	onProgress func(Progress) error

	err      error       // first error a callback returned
	panicked bool        // a callback panicked ...
	panicVal interface{} // ... with this value
}

// invoke runs one callback: a returned error or a panic stops the call.
func (s *callState) invoke(f func() error) (ret C.int) {
	if s.err != nil || s.panicked {
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			s.panicked = true
			s.panicVal = r
			ret = 1
		}
	}()
	if err := f(); err != nil {
		s.err = err
		return 1
	}
	return 0
}

// finish converts the call's status, re-raising a callback panic on the
// caller's goroutine and attaching a callback error as the cause.
func (s *callState) finish(rc C.int, cerr *C.air_error) error {
	if s.panicked {
		if cerr != nil {
			C.air_error_free(cerr)
		}
		panic(s.panicVal)
	}
	err := check(rc, cerr)
	if err != nil && s.err != nil {
		err.(*Error).Cause = s.err
	}
	return err
}

func stateOf(h C.uintptr_t) *callState { return cgo.Handle(h).Value().(*callState) }

func recordFromC(rec *C.air_log_record) LogRecord {
	var n C.size_t
	p := C.air_log_record_line(rec, &n)
	var line []byte
	if p != nil {
		line = C.GoBytes(unsafe.Pointer(p), C.int(n))
	}
	return LogRecord{
		Line:   string(line),
		TimeNs: int64(C.air_log_record_time_ns(rec)),
		Node:   int(C.air_log_record_node(rec)),
		Source: int32(C.air_log_record_source(rec)),
	}
}

//export airgoLogRecord
func airgoLogRecord(rec *C.air_log_record, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onRecord(recordFromC(rec)) })
}

//export airgoLogStatus
func airgoLogStatus(current, previous *C.char, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onStatus(gostr(current), gostr(previous)) })
}

//export airgoLogAlert
func airgoLogAlert(rec *C.air_log_record, pattern C.int32_t, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onAlert(recordFromC(rec), int(pattern)) })
}

//export airgoLogWaiting
func airgoLogWaiting(message *C.char, h C.uintptr_t) C.int {
	s := stateOf(h)
	return s.invoke(func() error { return s.onWaiting(gostr(message)) })
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

//export airgoDebug
func airgoDebug(typ C.int32_t, text *C.char, n C.size_t, h C.uintptr_t) C.int {
	// The return value is ignored by libair and the callback may run on
	// several threads at once; a panic cannot be handed to any one caller.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "air: debug callback panicked: %v\n", r)
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
