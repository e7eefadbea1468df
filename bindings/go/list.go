package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"runtime"
)

// ListOptions filter a run listing; zero values are the library's defaults.
type ListOptions struct {
	Limit         int      // most runs to return; default 20
	AllStatus     bool     // include finished runs (default: active runs only)
	AllUsers      bool     // include other users' runs
	MaxInspected  int      // stop after inspecting this many runs; default 2000
	Filters       []string // "KEY=VALUE": user, experiment, accelerator_type, num_accelerators
	NoWorkspaceID bool     // do not probe the workspace id for the dashboard URLs
	MLflow        bool     // also resolve MLflow ids and run names (best-effort)
	NoCache       bool     // neither read nor write the on-disk cache of finished runs
}

// RunIter walks a run listing, newest first, fetching pages as it goes:
//
//	it := client.ListRuns(ctx, nil)
//	defer it.Close()
//	for it.Next() {
//		fmt.Println(it.Run().ID)
//	}
//	if err := it.Err(); err != nil { ... }
//
// The context of ListRuns governs every page. A RunIter is used by one
// goroutine at a time.
type RunIter struct {
	core      *iterCore
	h         *C.air_run_iter
	run       *Run
	err       error
	truncated bool
	client    *Client // the client of its runs
}

// ListRuns starts a listing of AI Runtime runs; opts may be nil (the
// caller's active runs, at most 20). It always returns an iterator: a
// failure to start shows in Err after the first Next.
func (c *Client) ListRuns(ctx context.Context, opts *ListOptions) *RunIter {
	it := &RunIter{client: c}
	it.core, it.err = c.openIter(ctx, func(h *C.air_client, w *ctxWatch) (func(), error) {
		o, err := newOptions(w, listOpts)
		if err != nil {
			return nil, err
		}
		defer C.air_list_options_free(o)
		if err := listOptions(o, opts); err != nil {
			return nil, err
		}
		var e *C.air_error
		if err := check(C.air_client_list_runs(h, o, &it.h, &e), e); err != nil {
			return nil, err
		}
		ch := it.h
		return func() { C.air_run_iter_free(ch) }, nil
	})
	if it.core != nil {
		runtime.SetFinalizer(it, (*RunIter).Close)
	}
	return it
}

func listOptions(o *C.air_list_options, opts *ListOptions) error {
	if opts == nil {
		return nil
	}
	ints := map[C.int32_t]int{}
	if opts.Limit != 0 {
		ints[listLimit] = opts.Limit
	}
	if opts.MaxInspected != 0 {
		ints[listMaxInspected] = opts.MaxInspected
	}
	if opts.AllStatus {
		ints[listAllStatus] = 1
	}
	if opts.AllUsers {
		ints[listAllUsers] = 1
	}
	if opts.NoWorkspaceID {
		ints[listWorkspaceID] = 0
	}
	if opts.MLflow {
		ints[listMLflow] = 1
	}
	if opts.NoCache {
		ints[listCache] = 0
	}
	for opt, v := range ints {
		if err := check(C.air_list_options_set_int(o, opt, C.int64_t(v)), nil); err != nil {
			return err
		}
	}
	for _, f := range opts.Filters {
		p := cstr(f)
		var e *C.air_error
		err := check(C.air_list_options_add_filter(o, p, &e), e)
		free(p)
		if err != nil {
			return err
		}
	}
	return nil
}

// Next advances to the next run: false at the end of the listing or on a
// failure (see Err). The iterator is released when Next returns false.
func (it *RunIter) Next() bool {
	it.run = nil
	if it.core == nil || it.err != nil {
		return false
	}
	core := it.core
	core.mu.Lock()
	defer core.mu.Unlock()
	if core.done {
		it.err = core.err
		return false
	}
	var r *C.air_run
	var e *C.air_error
	rc := C.air_run_iter_next(it.h, &r, &e)
	if rc == C.AIR_OK {
		if it.run, it.err = runFromC(r); it.err == nil {
			it.run.client = it.client
			return true
		}
	} else if rc != C.AIR_EDONE {
		it.err = core.fail(check(rc, e))
	}
	it.truncated = C.air_run_iter_truncated(it.h) != 0
	core.release(nil)
	return false
}

// Run is the current run (after Next returned true).
func (it *RunIter) Run() *Run { return it.run }

// Err is the failure that ended the listing, or nil.
func (it *RunIter) Err() error { return it.err }

// Truncated reports whether the listing stopped at ListOptions.MaxInspected
// and may be incomplete (known once Next has returned false).
func (it *RunIter) Truncated() bool { return it.truncated }

// Close releases the iterator; idempotent, and implied when Next returns false.
func (it *RunIter) Close() error {
	if it.core != nil {
		it.core.shut(nil)
	}
	runtime.SetFinalizer(it, nil)
	return nil
}
