package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"time"
)

// A context becomes libair's interrupt and deadline: every network call gets
// an air_interrupt that a watcher goroutine raises when the context ends
// (libair then returns within about 50 ms, also in the middle of a transfer,
// a retry back-off or a poll interval), and the context's deadline as the
// C deadline. The failure is then reported with ctx.Err() as its cause
// (setCtxCause).

// interrupts keeps lowered air_interrupts for reuse (each holds a pipe).
var interrupts struct {
	sync.Mutex
	free []*C.air_interrupt
}

const maxIdleInterrupts = 32

func getInterrupt() (*C.air_interrupt, error) {
	interrupts.Lock()
	if n := len(interrupts.free); n > 0 {
		h := interrupts.free[n-1]
		interrupts.free = interrupts.free[:n-1]
		interrupts.Unlock()
		return h, nil
	}
	interrupts.Unlock()
	var h *C.air_interrupt
	if err := check(C.air_interrupt_new(&h), nil); err != nil {
		return nil, err
	}
	return h, nil
}

// putInterrupt takes back an interrupt no call and no watcher uses any more.
func putInterrupt(h *C.air_interrupt) {
	C.air_interrupt_reset(h)
	interrupts.Lock()
	if len(interrupts.free) < maxIdleInterrupts {
		interrupts.free = append(interrupts.free, h)
		h = nil
	}
	interrupts.Unlock()
	if h != nil {
		C.air_interrupt_free(h)
	}
}

// ctxWatch ties a context to the interrupt and deadline of one call (or of
// an iterator, from its opening to its release).
type ctxWatch struct {
	ctx        context.Context
	intr       *C.air_interrupt // raised when ctx ends; nil when it cannot end
	deadlineMs int64            // the C deadline; 0 = none
	stop       chan struct{}
	exited     chan struct{}
}

// watch starts watching ctx. A context that has already ended fails here,
// before anything is sent.
func watch(ctx context.Context) (*ctxWatch, error) {
	if ctx.Err() != nil {
		return nil, notStarted(ctx)
	}
	w := &ctxWatch{ctx: ctx}
	if dl, ok := ctx.Deadline(); ok {
		if w.deadlineMs = millis(time.Until(dl)); w.deadlineMs <= 0 {
			<-ctx.Done()
			return nil, notStarted(ctx)
		}
	}
	if ctx.Done() == nil {
		return w, nil
	}
	intr, err := getInterrupt()
	if err != nil {
		return nil, err
	}
	w.intr, w.stop, w.exited = intr, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.exited)
		select {
		case <-ctx.Done():
			C.air_interrupt_trigger(intr)
		case <-w.stop:
		}
	}()
	return w, nil
}

// release stops the watcher and gives the interrupt back; no C call may
// still use it.
func (w *ctxWatch) release() {
	if w.intr == nil {
		return
	}
	close(w.stop)
	<-w.exited
	putInterrupt(w.intr)
	w.intr = nil
}

// optionsType is an options type of the C API (air_<x>_options): how to
// create and release one, and how to give it a call's interrupt and deadline.
type optionsType[O any] struct {
	create      func(**O) C.int
	release     func(*O)
	setIntr     func(*O, *C.air_interrupt) C.int
	setDeadline func(*O, C.int64_t) C.int
}

// newOptions creates options of type t carrying the watch's interrupt and
// deadline; the caller releases them with t.release.
func newOptions[O any](w *ctxWatch, t *optionsType[O]) (*O, error) {
	var o *O
	if err := check(t.create(&o), nil); err != nil {
		return nil, err
	}
	err := error(nil)
	if w.intr != nil {
		err = check(t.setIntr(o, w.intr), nil)
	}
	if err == nil && w.deadlineMs > 0 {
		err = check(t.setDeadline(o, C.int64_t(w.deadlineMs)), nil)
	}
	if err != nil {
		t.release(o)
		return nil, err
	}
	return o, nil
}

// annotate gives a failure that happened once the context had ended the
// context's error as its cause (unless a callback's error is the cause).
func (w *ctxWatch) annotate(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Cause != nil || !w.ended() {
		return err
	}
	setCtxCause(e, w.ctx.Err())
	return err
}

// ended reports whether the context has ended. libair's deadline is the
// context's, rounded up to a millisecond: when libair found it passed, the
// context is about to report it too, and ended waits for that.
func (w *ctxWatch) ended() bool {
	if w.ctx.Err() != nil {
		return true
	}
	dl, has := w.ctx.Deadline()
	if !has || time.Until(dl) > 2*time.Millisecond {
		return false
	}
	<-w.ctx.Done()
	return true
}

// setCtxCause makes cause, the error of an ended context, the cause of e,
// with the code of libair's own ending, whichever of the interrupt and the
// deadline stopped the call first: a passed deadline is ETIMEOUT (kind
// TRANSIENT, retryable), a cancellation EINTERRUPTED (kind ABORTED).
func setCtxCause(e *Error, cause error) {
	e.Cause = cause
	if errors.Is(cause, context.DeadlineExceeded) {
		e.Code, e.Kind, e.Retryable = ETIMEOUT, KindTransient, true
	} else {
		e.Code, e.Kind, e.Retryable = EINTERRUPTED, KindAborted, false
	}
}

// notStarted is the error of a call whose context ended before it began.
func notStarted(ctx context.Context) error {
	e := &Error{Message: "the call was not started", RetryAfter: -1}
	setCtxCause(e, ctx.Err())
	return e
}

// call is one network call: the client pinned (Close waits for it) and the
// context watched.
type call struct {
	c *Client
	h *C.air_client
	*ctxWatch
}

// begin starts a call on c under ctx; end it with end().
func (c *Client) begin(ctx context.Context) (*call, error) {
	w, err := watch(ctx)
	if err != nil {
		return nil, err
	}
	h, err := c.enter()
	if err != nil {
		w.release()
		return nil, err
	}
	return &call{c: c, h: h, ctxWatch: w}, nil
}

// end releases the context watch and unpins the client.
func (k *call) end() {
	k.release()
	k.c.leave()
}

// fail converts a failed C call: the context's error or the client's
// closing becomes part of the error.
func (k *call) fail(err error) error {
	return k.c.annotateClosed(k.annotate(err))
}

// endedError is the error of a call that libair let succeed although its
// context ended or the client was closed while it waited, else nil.
func (k *call) endedError() error {
	if C.air_interrupt_is_triggered(k.c.intr) == 0 && !k.ended() {
		return nil
	}
	return k.fail(&Error{Code: EINTERRUPTED, Kind: KindAborted, Message: "interrupted", RetryAfter: -1})
}

// result is check() followed by fail().
func (k *call) result(rc C.int, cerr *C.air_error) error {
	if err := check(rc, cerr); err != nil {
		return k.fail(err)
	}
	return nil
}

// none is the result of a call that has none but its error.
type none struct{}

// withCall makes one call on c under ctx with options of type t: the client
// pinned, the context watched, the options created with its interrupt and
// deadline and filled by set (which may be nil), then do makes the C call
// and converts its result (reporting a failed status through k.result or
// k.fail); everything is released when it returns.
func withCall[O, R any](c *Client, ctx context.Context, t *optionsType[O], set func(*O) error,
	do func(k *call, o *O) (R, error)) (R, error) {
	var zero R
	k, err := c.begin(ctx)
	if err != nil {
		return zero, err
	}
	defer k.end()
	o, err := newOptions(k.ctxWatch, t)
	if err != nil {
		return zero, err
	}
	defer t.release(o)
	if set != nil {
		if err := set(o); err != nil {
			return zero, err
		}
	}
	return do(k, o)
}

// strOption is a string option of an options object: its number, its value
// ("" leaves it unset) and the Go field that names it in an error (or "").
type strOption struct {
	opt   C.int32_t
	value string
	field string
}

// setStrOptions sets each option that has a value through set; a refused
// value fails the call, naming its field when it has one.
func setStrOptions(set func(opt C.int32_t, value *C.char) C.int, opts ...strOption) error {
	for _, s := range opts {
		if s.value == "" {
			continue
		}
		p := cstr(s.value)
		err := check(set(s.opt, p), nil)
		free(p)
		if err != nil && s.field != "" {
			return badOption(err, s.field)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
