package air

/*
#cgo pkg-config: libair
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"time"
	"unsafe"
)

// VersionNumber is the version of the loaded library as 0xMMmmpp.
func VersionNumber() uint32 { return uint32(C.air_version_number()) }

// Version is the version of the loaded library as "M.m.p".
func Version() string { return C.GoString(C.air_version_string()) }

// HeaderVersionNumber is the version of the headers this package was built
// with; the loaded library may be newer (VersionNumber).
const HeaderVersionNumber = uint32(C.AIR_VERSION_NUM)

// Features is the set of capabilities of the loaded library.
func Features() Feature { return Feature(C.air_features()) }

// GlobalInit takes a reference on libair's process-wide state (libcurl's
// global initialisation). NewClient does it implicitly; call it first thing
// in main when the process also uses libcurl elsewhere.
func GlobalInit() error { return check(C.air_global_init(), nil) }

// GlobalCleanup drops one GlobalInit reference.
func GlobalCleanup() { C.air_global_cleanup() }

// Int returns a pointer to v, for the optional integer fields of the option
// structs (those where zero is itself a meaningful value).
func Int(v int) *int { return &v }

// cstr returns a C copy of s, to be released with free. libair copies every
// input, so the copy may be freed as soon as the call returns.
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

// gostr copies a borrowed C string ("" for NULL).
func gostr(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// takeStr copies a string libair handed over through a char ** and releases it.
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

// millis converts d to whole milliseconds, rounding up so that a positive
// duration never becomes 0.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// timeFromMs converts epoch milliseconds to a UTC time; 0 is the zero Time.
func timeFromMs(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// timeFromNs converts epoch nanoseconds to a UTC time; 0 is the zero Time.
func timeFromNs(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
