package air

/*
#include <air/air.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
)

// Error implements error with the static text of the status.
func (s Status) Error() string { return C.GoString(C.air_strerror(C.int(s))) }

// Name is the symbolic name of the status ("AIR_ENOTFOUND").
func (s Status) Name() string { return C.GoString(C.air_status_name(C.int(s))) }

// String is the symbolic name of the status.
func (s Status) String() string { return s.Name() }

// String is the name of the kind as used in JSON output ("NOT_FOUND").
func (k Kind) String() string {
	p := C.air_kind_name(C.int32_t(k))
	if p == nil {
		return fmt.Sprintf("Kind(%d)", int32(k))
	}
	return C.GoString(p)
}

// Error is a failed libair call, with the details of its air_error.
//
// errors.Is(err, air.ENOTFOUND) tests the status; errors.Is / errors.As also
// see the cause: the error a callback returned, or the context's error when
// a context ended the call.
type Error struct {
	Code         Status // AIR_E* status
	Kind         Kind   // what to do about it
	Message      string // never contains a secret
	Field        string // workload field path ("compute.num_accelerators"), or ""
	File         string // source file of a config error, or ""
	Line         int    // 1-based; 0 when unknown
	Column       int    // 1-based; 0 when unknown
	Retryable    bool   // the same call may succeed later
	HTTPStatus   int    // 0 when no reply was involved
	ServerCode   string // the workspace's error_code, or ""
	RequestID    string // x-request-id of the failing reply, or ""
	RetryAfterMs int64  // Retry-After in ms; -1 when absent
	Cause        error  // callback error or context error that stopped the call, or nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("air: ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Cause != nil && !strings.Contains(e.Message, e.Cause.Error()) {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns the cause (callback or context error), if any.
func (e *Error) Unwrap() error { return e.Cause }

// Is matches a Status target against the code.
func (e *Error) Is(target error) bool {
	if s, ok := target.(Status); ok {
		return s == e.Code
	}
	return false
}

// Temporary reports whether the call may succeed if repeated later.
func (e *Error) Temporary() bool { return e.Retryable }

// ErrStop is a convenient error for a callback to return when it wants the
// call to stop; the call then returns an *Error with code EABORTED whose
// Cause is ErrStop.
var ErrStop = errors.New("air: stopped by callback")

// statusKind mirrors lib/errors.c for calls that report only a status.
var statusKind = map[Status]Kind{
	ENOMEM: KindInternal, EINVAL: KindInvalidArgument, ECONFIG: KindInvalidConfig,
	ENET: KindTransient, ETIMEOUT: KindTransient, EAUTH: KindPermanent,
	ENOTFOUND: KindNotFound, ECONFLICT: KindConflict, ERATELIMIT: KindTransient,
	ESERVER: KindTransient, EPROTO: KindPermanent, EABORTED: KindAborted,
	EINTERRUPTED: KindAborted, EUNSUPPORTED: KindInvalidArgument, EIO: KindIO,
	EAPI: KindPermanent, EREJECTED: KindInvalidConfig, ESNAPSHOT: KindInvalidConfig,
	EPERMISSION: KindPermanent, EDISABLED: KindPermanent, EINTERNAL: KindInternal,
}

// newError builds the error of status rc from err (which it releases).
func newError(rc C.int, err *C.air_error) *Error {
	code := Status(rc)
	if err == nil {
		return &Error{Code: code, Kind: statusKind[code], Message: code.Error(), RetryAfterMs: -1}
	}
	defer C.air_error_free(err)
	if c := Status(C.air_error_code(err)); c != OK {
		code = c
	}
	e := &Error{
		Code:         code,
		Kind:         Kind(C.air_error_kind(err)),
		Message:      gostr(C.air_error_message(err)),
		Field:        gostr(C.air_error_field(err)),
		File:         gostr(C.air_error_file(err)),
		Line:         int(C.air_error_line(err)),
		Column:       int(C.air_error_column(err)),
		Retryable:    C.air_error_retryable(err) != 0,
		HTTPStatus:   int(C.air_error_http_status(err)),
		ServerCode:   gostr(C.air_error_server_code(err)),
		RequestID:    gostr(C.air_error_request_id(err)),
		RetryAfterMs: int64(C.air_error_retry_after_ms(err)),
	}
	if e.Message == "" {
		e.Message = code.Error()
	}
	return e
}

// check turns a status (and its optional air_error) into a Go error.
func check(rc C.int, err *C.air_error) error {
	if rc == C.AIR_OK {
		if err != nil {
			C.air_error_free(err)
		}
		return nil
	}
	return newError(rc, err)
}
