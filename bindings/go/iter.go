package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"sync"
)

// iterCore is what the iterators share: the lock that Next holds while it
// is inside libair, the context watch that lasts from the opening to the
// release, and the registration with the client, so that Client.Close can
// end an open iterator (after the Next in progress, which its interrupt has
// stopped, has returned).
type iterCore struct {
	mu   sync.Mutex
	c    *Client
	w    *ctxWatch
	free func() // releases the C iterator and what it borrows
	done bool   // released
	err  error  // why it was released early (Client.Close), or nil
}

// openIter opens an iterator on c under ctx: open receives the client and
// the context watch (whose interrupt and deadline it installs) and returns
// the function that frees what it created. Returns the failure of open, or
// of the context or client before it.
func (c *Client) openIter(ctx context.Context, open func(*C.air_client, *ctxWatch) (func(), error)) (*iterCore, error) {
	w, err := watch(ctx)
	if err != nil {
		return nil, err
	}
	h, err := c.enter()
	if err != nil {
		w.release()
		return nil, err
	}
	defer c.leave()
	free, err := open(h, w)
	if err != nil {
		err = c.annotateClosed(w.annotate(err))
		w.release()
		return nil, err
	}
	it := &iterCore{c: c, w: w, free: free}
	c.mu.Lock()
	c.iters[it] = struct{}{} // Close reads the set only once no call is active
	c.mu.Unlock()
	return it, nil
}

// openIterWith opens an iterator whose options (of type t) carry the
// callbacks of state (which may be nil): set fills them, given state's
// handle (0 without callbacks), open makes the C call that opens it, and
// free releases the C iterator (which may still call back through the
// handle; the handle is deleted after it).
func openIterWith[O any](c *Client, ctx context.Context, t *optionsType[O], state *callState,
	set func(o *O, h cgo.Handle) error, open func(h *C.air_client, o *O) error,
	free func()) (*iterCore, error) {
	return c.openIter(ctx, func(h *C.air_client, w *ctxWatch) (func(), error) {
		var handle cgo.Handle
		if state != nil {
			handle = cgo.NewHandle(state)
		}
		o, err := newOptions(w, t)
		if err == nil {
			if err = set(o, handle); err == nil {
				err = open(h, o)
			}
			t.release(o)
		}
		if err != nil {
			if handle != 0 {
				handle.Delete()
			}
			return nil, state.cause(err)
		}
		return func() {
			free()
			if handle != 0 {
				handle.Delete()
			}
		}, nil
	})
}

// fail annotates an error of Next like that of any call.
func (it *iterCore) fail(err error) error {
	return it.c.annotateClosed(it.w.annotate(err))
}

// release frees the iterator once; it.mu is held.
func (it *iterCore) release(why error) {
	if it.done {
		return
	}
	it.done = true
	it.err = why
	it.free()
	it.w.release()
	it.c.mu.Lock()
	delete(it.c.iters, it) // a no-op once Close has taken the set
	it.c.mu.Unlock()
}

// shut releases the iterator from any goroutine, after a Next in progress.
func (it *iterCore) shut(why error) {
	it.mu.Lock()
	it.release(why)
	it.mu.Unlock()
}

// next runs one step of an iterator under its lock: step calls libair's
// next function; on AIR_OK item takes the item (and next returns true), on
// AIR_EDONE done (may be nil) takes what the end leaves, and on a failure
// *err gets it. At the end or on a failure the iterator is released and a
// callback's panic raised again.
func (it *iterCore) next(err *error, state *callState, step func() (C.int, *C.air_error),
	item func(), done func()) bool {
	if it == nil || *err != nil {
		return false
	}
	it.mu.Lock()
	if it.done {
		*err = it.err
		it.mu.Unlock()
		return false
	}
	rc, e := step()
	switch rc {
	case C.AIR_OK:
		item()
		it.mu.Unlock()
		return true
	case C.AIR_EDONE:
		if done != nil {
			done()
		}
	default:
		*err = it.fail(state.cause(check(rc, e)))
	}
	it.release(nil)
	it.mu.Unlock()
	state.repanic()
	return false
}
