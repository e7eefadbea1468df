package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
)

// Interrupt is a cancellation flag (air_interrupt). The context-taking
// methods of this package create one per call and trigger it when the
// context ends; the type is exported for programs that mix Go and C code.
// Trigger and IsTriggered are safe from any goroutine.
type Interrupt struct {
	mu sync.RWMutex
	h  *C.air_interrupt
}

// NewInterrupt creates a lowered flag.
func NewInterrupt() (*Interrupt, error) {
	var h *C.air_interrupt
	if err := check(C.air_interrupt_new(&h), nil); err != nil {
		return nil, err
	}
	i := &Interrupt{h: h}
	runtime.SetFinalizer(i, (*Interrupt).Close)
	return i, nil
}

// Trigger raises the flag.
func (i *Interrupt) Trigger() {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.h != nil {
		C.air_interrupt_trigger(i.h)
	}
}

// Reset lowers the flag again.
func (i *Interrupt) Reset() {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.h != nil {
		C.air_interrupt_reset(i.h)
	}
}

// IsTriggered reports whether the flag is raised.
func (i *Interrupt) IsTriggered() bool {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.h != nil && C.air_interrupt_is_triggered(i.h) != 0
}

// Close releases the flag; no call may still use it.
func (i *Interrupt) Close() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.h != nil {
		C.air_interrupt_free(i.h)
		i.h = nil
	}
	runtime.SetFinalizer(i, nil)
}

// ctxInterrupt is an air_interrupt raised when ctx ends, for one call.
type ctxInterrupt struct {
	ctx  context.Context
	h    *C.air_interrupt
	done chan struct{}
	wg   sync.WaitGroup
}

// watch returns an interrupt that ctx triggers; call stop() after the C
// call, which waits for the watcher before releasing the flag.
func watch(ctx context.Context) (*ctxInterrupt, error) {
	w := &ctxInterrupt{ctx: ctx}
	if err := check(C.air_interrupt_new(&w.h), nil); err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		w.done = make(chan struct{})
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			select {
			case <-ctx.Done():
				C.air_interrupt_trigger(w.h)
			case <-w.done:
			}
		}()
	}
	return w, nil
}

func (w *ctxInterrupt) stop() {
	if w.done != nil {
		close(w.done)
		w.wg.Wait()
	}
	C.air_interrupt_free(w.h)
}

// annotate attaches the context's error to an EINTERRUPTED failure.
func (w *ctxInterrupt) annotate(err error) error {
	if e, ok := err.(*Error); ok && e.Code == EINTERRUPTED && e.Cause == nil {
		e.Cause = w.ctx.Err()
	}
	return err
}
