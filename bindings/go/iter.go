package air

/*
#include <air/air.h>
*/
import "C"

import (
	"context"
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
