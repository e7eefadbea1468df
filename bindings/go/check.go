package air

/*
#include <stdlib.h>
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"runtime/cgo"
)

// CheckOptions are the options of Check; zero values are the defaults: every
// group of checks, warnings do not fail the report.
type CheckOptions struct {
	Strict            bool   // a warning fails the report too
	NoResources       bool   // leave out the checks of resources, the only ones that contact the workspace
	NoReproducibility bool   // leave out the reproducibility checks
	NoSanity          bool   // leave out the resource sanity checks
	IdempotencyKey    string // the key the submission would use (at most 64 bytes)
	BaseDir           string // directory for a relative root_path (default: the config's)
	RegistryHost      string // the workspace's artifact registry, for unity_catalog_image
	DockerConfigDir   string // directory of Docker's config.json (default $DOCKER_CONFIG, else ~/.docker)
	// OnCheck receives each check as it completes, on the calling
	// goroutine; an error stops the call (EABORTED, with that error as the
	// cause).
	OnCheck func(Check) error
}

// Check is one check of a CheckReport.
type Check struct {
	Name    string      // stable identifier ("secret_key"); docs/cli.md lists them
	Status  CheckStatus // CheckPass, CheckWarn, CheckFail, CheckSkipped
	Field   string      // the workload field it is about ("secrets.HF_TOKEN"), or ""
	Message string      // what was found, or why the check was skipped
	Bytes   int64       // bytes measured (the code snapshot), or -1
	Files   int64       // files counted (the code snapshot), or -1
}

// CheckReport is the outcome of Check: its checks, in the order they were made.
type CheckReport struct {
	Checks []Check
	ok     bool
}

// OK reports whether no check failed (and, with Strict, none warned): the
// workload is fit to submit.
func (r *CheckReport) OK() bool { return r != nil && r.ok }

// String is the status as libair names it ("pass", "warn", "fail", "skipped").
func (s CheckStatus) String() string {
	if p := C.air_check_status_name(C.int32_t(s)); p != nil {
		return C.GoString(p)
	}
	return fmt.Sprintf("CheckStatus(%d)", int32(s))
}

func checkFromC(c *C.air_check) Check {
	return Check{
		Name:    gostr(C.air_check_name(c)),
		Status:  CheckStatus(C.air_check_status(c)),
		Field:   gostr(C.air_check_field(c)),
		Message: gostr(C.air_check_message(c)),
		Bytes:   int64(C.air_check_bytes(c)),
		Files:   int64(C.air_check_files(c)),
	}
}

// Check looks at everything a submission of the validated workload would
// depend on, before anything is uploaded, and returns one entry per check:
// the workspace's resources (secret scopes and keys, images, folders, the
// GPU pool and accelerator type, the permissions to grant on the MLflow
// experiment, the code snapshot) and its pre-flight validation; the
// reproducibility of the workload (pinned environment and dependencies,
// code at a commit); resource sanity. On a local workspace the checks have
// local meanings. Nothing is uploaded or submitted and no secret value is
// read. A failed check is no error: see CheckReport.OK. At most one
// CheckOptions is used. Since libair 1.2.
func (c *Client) Check(ctx context.Context, cfg *Config, opts ...CheckOptions) (*CheckReport, error) {
	if cfg == nil {
		return nil, invalid("Check: the Config is nil")
	}
	if cfg.h == nil {
		return nil, closedError("Config")
	}
	var o0 *CheckOptions
	if len(opts) > 0 {
		o0 = &opts[0]
	}
	var state *callState
	if o0 != nil {
		state = callbacks(callState{onCheck: o0.OnCheck})
	}
	h, release := state.handle()
	defer release()
	return withCall(c, ctx, checkOpts, func(o *C.air_check_options) error {
		return setCheckOptions(o, o0, h)
	}, func(k *call, o *C.air_check_options) (*CheckReport, error) {
		var r *C.air_check_report
		var e *C.air_error
		rc := C.air_client_check(k.h, cfg.h, o, &r, &e)
		runtime.KeepAlive(cfg)
		state.repanic()
		if err := state.cause(check(rc, e)); err != nil {
			return nil, k.fail(err)
		}
		defer C.air_check_report_free(r)
		n := C.air_check_report_count(r)
		out := &CheckReport{Checks: make([]Check, 0, int(n)), ok: C.air_check_report_ok(r) != 0}
		for i := C.size_t(0); i < n; i++ {
			out.Checks = append(out.Checks, checkFromC(C.air_check_report_get(r, i)))
		}
		return out, nil
	})
}

// setCheckOptions fills o from opts (which may be nil) and installs the
// check callback of the callState of handle h (when it is not 0).
func setCheckOptions(o *C.air_check_options, opts *CheckOptions, h cgo.Handle) error {
	if opts == nil {
		return nil
	}
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_check_options_set_str(o, opt, v)
	}, strOption{checksIdempotencyKey, opts.IdempotencyKey, "IdempotencyKey"},
		strOption{checksBaseDir, opts.BaseDir, ""},
		strOption{checksRegistryHost, opts.RegistryHost, ""},
		strOption{checksDockerConfigDir, opts.DockerConfigDir, ""})
	if err != nil {
		return err
	}
	for _, b := range []struct {
		opt C.int32_t
		on  bool
	}{{checksStrict, opts.Strict}, {checksResources, !opts.NoResources},
		{checksReproducibility, !opts.NoReproducibility}, {checksSanity, !opts.NoSanity}} {
		v := C.int64_t(0)
		if b.on {
			v = 1
		}
		if err := check(C.air_check_options_set_int(o, b.opt, v), nil); err != nil {
			return err
		}
	}
	if h != 0 {
		return check(C.airgo_check_options_set_cb(o, C.uintptr_t(h)), nil)
	}
	return nil
}
