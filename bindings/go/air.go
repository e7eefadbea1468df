// Package air is the Go binding of libair, the C client library for
// Databricks AI Runtime: workload YAML (Config), a shared workspace Client,
// submission, runs, logs, pools and image pushes.
//
// Build: cgo needs the libair headers and library. With libair installed in
// the system paths nothing is needed; otherwise set
//
//	CGO_CFLAGS="-I<prefix>/include"  CGO_LDFLAGS="-L<prefix>/lib"
//	LD_LIBRARY_PATH=<prefix>/lib
//
// Every handle (Client, Config, Interrupt, RunIterator) has a Close method
// and a finalizer as a fallback. A Client may be used by many goroutines at
// once; the other types by one goroutine at a time. Failures are *Error
// values carrying libair's error details. Callbacks run on the goroutine
// that made the call; returning a non-nil error from one stops the call,
// and a panic in one is recovered inside the callback and raised again
// when the call has returned (a panic never crosses C frames).
package air

/*
#cgo LDFLAGS: -lair
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// VersionNumber is the version of the loaded library as 0xMMmmpp.
func VersionNumber() uint32 { return uint32(C.air_version_number()) }

// Version is the version of the loaded library as "M.m.p".
func Version() string { return C.GoString(C.air_version_string()) }

// Features is the set of Feature* bits of the loaded library.
func Features() uint32 { return uint32(C.air_features()) }

// HeaderVersionNumber is the version of the headers this package was built with.
const HeaderVersionNumber = uint32(C.AIR_VERSION_NUM)

// Feature bits (air_features()).
const (
	FeatureHTTPS      = uint32(C.AIR_FEATURE_HTTPS)
	FeatureOAuth      = uint32(C.AIR_FEATURE_OAUTH)
	FeatureSnapshot   = uint32(C.AIR_FEATURE_SNAPSHOT)
	FeatureThreadsafe = uint32(C.AIR_FEATURE_THREADSAFE)
)

// GlobalInit takes a reference on libair's process-wide state (libcurl's
// global init). Clients do it implicitly; call it early when libcurl is also
// used elsewhere in the process.
func GlobalInit() error { return check(C.air_global_init(), nil) }

// GlobalCleanup drops one GlobalInit reference.
func GlobalCleanup() { C.air_global_cleanup() }

// cstr returns a C copy of s; release it with C.free. libair copies every
// input, so the copy can be freed right after the call.
func cstr(s string) *C.char { return C.CString(s) }

// cstrOpt is cstr, except that "" becomes NULL.
func cstrOpt(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func free(p *C.char) {
	if p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// gostr converts a borrowed C string ("" for NULL).
func gostr(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// takeStr converts an owned string returned through a char ** and releases it.
func takeStr(p *C.char) string {
	if p == nil {
		return ""
	}
	s := C.GoString(p)
	C.air_free(unsafe.Pointer(p))
	return s
}

func cbool(v bool) C.int64_t {
	if v {
		return 1
	}
	return 0
}

func errClosed(what string) error {
	return &Error{Code: EINVAL, Kind: KindInvalidArgument, Message: fmt.Sprintf("air: %s is closed", what), RetryAfterMs: -1}
}
