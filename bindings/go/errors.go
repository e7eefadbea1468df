package air

/*
#include <air/air.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error is the static English text of the status ("not found"), so that a
// Status may be used as an error target: errors.Is(err, air.ENOTFOUND).
func (s Status) Error() string { return C.GoString(C.air_strerror(C.int(s))) }

// Name is the symbolic name of the status ("AIR_ENOTFOUND").
func (s Status) Name() string { return C.GoString(C.air_status_name(C.int(s))) }

// String is the symbolic name of the status.
func (s Status) String() string { return s.Name() }

// String is the name of the kind as used in JSON output ("NOT_FOUND").
func (k Kind) String() string {
	if k >= KindNone && k <= KindAborted { // libair names other values "UNKNOWN"
		return C.GoString(C.air_kind_name(C.int32_t(k)))
	}
	return fmt.Sprintf("Kind(%d)", int32(k))
}

// Error is a failed call, with the details libair reported.
//
// errors.Is(err, air.ENOTFOUND) tests the status code; errors.Is and
// errors.As also reach the Cause: the context's error when a context ended
// the call (context.Canceled, context.DeadlineExceeded) or the error a
// callback returned. errors.Is(err, air.ErrClosed) is true when the call
// failed because its Client or handle was closed.
type Error struct {
	Code       Status        // the AIR_E* status
	Kind       Kind          // what to do about it
	Message    string        // libair's message; never contains a secret
	Field      string        // workload field path ("compute.num_accelerators"), the option at fault ("profile"), or ""
	File       string        // source file of a config error, or ""
	Line       int           // 1-based line in File; 0 when unknown
	Column     int           // 1-based column in File; 0 when unknown
	Suggestion string        // what the caller probably meant (unknown field names), or ""
	Retryable  bool          // the same call may succeed if repeated later
	HTTPStatus int           // status of the failing reply; 0 when none was involved
	ServerCode string        // the workspace's error_code, or ""
	RequestID  string        // x-request-id of the failing reply, or ""
	RetryAfter time.Duration // the reply's Retry-After; -1 when absent
	Cause      error         // the context or callback error that stopped the call, or nil
	closed     bool          // failed because a handle was closed
}

// Error prints the kind and the message once, then the cause when the
// message does not already say it: "air: NOT_FOUND: Run 7 does not exist.".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("air: ")
	b.WriteString(e.Kind.String())
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Cause != nil {
		if c := e.Cause.Error(); !strings.Contains(e.Message, c) {
			b.WriteString(": ")
			b.WriteString(c)
		}
	}
	return b.String()
}

// Unwrap returns the Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is matches a Status target against Code, and ErrClosed against a failure
// caused by a closed handle.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return t == e.Code
	}
	return target == ErrClosed && e.closed
}

// Temporary reports whether the call may succeed if repeated later.
func (e *Error) Temporary() bool { return e.Retryable }

// ErrStop is a ready-made error for a callback that wants its call to stop:
// the call then fails with EABORTED and errors.Is(err, air.ErrStop) holds.
var ErrStop = errors.New("stopped by the callback")

// ErrClosed matches (with errors.Is) the error of a call made on a closed
// Client, Config or iterator, and of a call that Client.Close interrupted.
var ErrClosed = errors.New("use of a closed handle")

// statusKind is the kind of a failure reported by a status alone.
var statusKind = map[Status]Kind{
	ENOMEM: KindInternal, EINVAL: KindInvalidArgument, ECONFIG: KindInvalidConfig,
	ENET: KindTransient, ETIMEOUT: KindTransient, EAUTH: KindPermanent,
	ENOTFOUND: KindNotFound, ECONFLICT: KindConflict, ERATELIMIT: KindTransient,
	ESERVER: KindTransient, EPROTO: KindPermanent, EABORTED: KindAborted,
	EINTERRUPTED: KindAborted, EUNSUPPORTED: KindInvalidArgument, EIO: KindIO,
	EAPI: KindPermanent, EREJECTED: KindInvalidConfig, ESNAPSHOT: KindInvalidConfig,
	EPERMISSION: KindPermanent, EDISABLED: KindPermanent, EINTERNAL: KindInternal,
}

// newError builds the error of status rc from err, which it releases.
func newError(rc C.int, err *C.air_error) *Error {
	if err != nil {
		defer C.air_error_free(err)
	}
	return errorOf(rc, err)
}

// errorOf is the Error of status rc and its air_error, which stays the
// caller's (a borrowed one, such as a sweep variant's).
func errorOf(rc C.int, err *C.air_error) *Error {
	code := Status(rc)
	if err == nil {
		return &Error{Code: code, Kind: statusKind[code], Message: code.Error(), RetryAfter: -1}
	}
	if c := Status(C.air_error_code(err)); c != OK {
		code = c
	}
	e := &Error{
		Code:       code,
		Kind:       Kind(C.air_error_kind(err)),
		Message:    gostr(C.air_error_message(err)),
		Field:      gostr(C.air_error_field(err)),
		File:       gostr(C.air_error_file(err)),
		Line:       int(C.air_error_line(err)),
		Column:     int(C.air_error_column(err)),
		Suggestion: gostr(C.air_error_suggestion(err)),
		Retryable:  C.air_error_retryable(err) != 0,
		HTTPStatus: int(C.air_error_http_status(err)),
		ServerCode: gostr(C.air_error_server_code(err)),
		RequestID:  gostr(C.air_error_request_id(err)),
		RetryAfter: -1,
	}
	if ms := int64(C.air_error_retry_after_ms(err)); ms >= 0 {
		e.RetryAfter = time.Duration(ms) * time.Millisecond
	}
	if e.Kind == KindNone {
		e.Kind = statusKind[code]
	}
	if e.Message == "" {
		e.Message = code.Error()
	}
	return e
}

// check turns a status and its optional air_error into an error.
func check(rc C.int, err *C.air_error) error {
	if rc == C.AIR_OK {
		if err != nil {
			C.air_error_free(err)
		}
		return nil
	}
	return newError(rc, err)
}

// closedError is the error of a call on a closed handle ("Client", "Config", ...).
func closedError(what string) error {
	return &Error{Code: EINVAL, Kind: KindInvalidArgument, Message: "the " + what + " is closed",
		RetryAfter: -1, closed: true}
}

// invalid is an EINVAL error found by the binding before any C call.
func invalid(format string, args ...interface{}) error {
	return &Error{Code: EINVAL, Kind: KindInvalidArgument, Message: fmt.Sprintf(format, args...),
		RetryAfter: -1}
}

// badOption names, in the error of an option setter, the field whose
// value libair refused ("RegisterImageOptions.TagPolicy: invalid argument").
func badOption(err error, field string) error {
	if e, ok := err.(*Error); ok {
		e.Message = field + ": " + e.Message
	}
	return err
}
