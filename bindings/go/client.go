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
	"sync"
	"sync/atomic"
)

// Client is a connection to one workspace (air_client).
//
// Configure it with NewClient options (or SetString/SetInt before use), then
// share it between any number of goroutines: libair locks what it shares.
// Close waits for calls in progress; it refuses while run listings are open.
type Client struct {
	mu    sync.RWMutex // calls hold it shared; setters and Close exclusively
	h     *C.air_client
	debug cgo.Handle
	intr  *Interrupt // the client-wide interrupt, kept alive while installed
	iters int32      // open RunIterators (atomic)
}

// ClientOption configures a Client in NewClient.
type ClientOption func(*Client) error

// WithString sets a string option (1..99).
func WithString(opt Option, value string) ClientOption {
	return func(c *Client) error { return c.setString(opt, value) }
}

// WithInt sets an integer option (100..199).
func WithInt(opt Option, value int64) ClientOption {
	return func(c *Client) error { return c.setInt(opt, value) }
}

// WithHost sets the workspace URL.
func WithHost(host string) ClientOption { return WithString(OptHost, host) }

// WithToken sets a personal access token.
func WithToken(token string) ClientOption { return WithString(OptToken, token) }

// WithProfile selects a ~/.databrickscfg profile.
func WithProfile(profile string) ClientOption { return WithString(OptProfile, profile) }

// WithConfigFile sets the Databricks config file.
func WithConfigFile(path string) ClientOption { return WithString(OptConfigFile, path) }

// WithUseEnvironment turns the reading of DATABRICKS_* variables on or off.
func WithUseEnvironment(use bool) ClientOption { return WithInt(OptUseEnvironment, int64(cbool(use))) }

// WithRetryDeadlineMs sets the overall retry budget per call.
func WithRetryDeadlineMs(ms int64) ClientOption { return WithInt(OptRetryDeadlineMs, ms) }

// WithRetryBackoffMs sets the back-off unit.
func WithRetryBackoffMs(ms int64) ClientOption { return WithInt(OptRetryBackoffMs, ms) }

// WithUserAgentSuffix appends "product/version" to the User-Agent.
func WithUserAgentSuffix(s string) ClientOption { return WithString(OptUserAgentSuffix, s) }

// WithDebug installs a debug callback; it may run on several goroutines at once.
func WithDebug(fn func(DebugType, string)) ClientOption {
	return func(c *Client) error { return c.setDebug(fn) }
}

// WithInterrupt installs a client-wide interrupt (see SetInterrupt).
func WithInterrupt(i *Interrupt) ClientOption {
	return func(c *Client) error { return c.setInterrupt(i) }
}

// NewClient creates a client and applies opts. Nothing is resolved until
// the first request or Resolve.
func NewClient(opts ...ClientOption) (*Client, error) {
	var h *C.air_client
	var e *C.air_error
	if err := check(C.air_client_new(&h, &e), e); err != nil {
		return nil, err
	}
	c := &Client{h: h}
	runtime.SetFinalizer(c, func(c *Client) { c.Close() })
	for _, o := range opts {
		if err := o(c); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Close releases the client after the calls in progress have returned.
// It fails while RunIterators of the client are open. Idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := atomic.LoadInt32(&c.iters); n > 0 {
		return fmt.Errorf("air: Client.Close with %d open run listing(s)", n)
	}
	if c.h != nil {
		C.air_client_free(c.h)
		c.h = nil
	}
	if c.debug != 0 {
		c.debug.Delete()
		c.debug = 0
	}
	c.intr = nil
	runtime.SetFinalizer(c, nil)
	return nil
}

// enter starts a call made under ctx: an ended ctx fails it at once;
// otherwise it is acquire().
func (c *Client) enter(ctx context.Context) (*C.air_client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.acquire()
}

// acquire pins the client for one call; release with c.mu.RUnlock().
func (c *Client) acquire() (*C.air_client, error) {
	c.mu.RLock()
	if c.h == nil {
		c.mu.RUnlock()
		return nil, errClosed("Client")
	}
	return c.h, nil
}

// SetString sets a string option ("" unsets it). Not concurrently with calls.
func (c *Client) SetString(opt Option, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setString(opt, value)
}

// SetInt sets an integer option. Not concurrently with calls.
func (c *Client) SetInt(opt Option, value int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setInt(opt, value)
}

// SetDebug installs (or with nil removes) the debug callback.
func (c *Client) SetDebug(fn func(DebugType, string)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setDebug(fn)
}

// SetInterrupt installs (or with nil removes) a client-wide interrupt: once
// i.Trigger() is called, from any goroutine, every call on the client, on
// every goroutine, returns an EINTERRUPTED *Error promptly, also in the
// middle of a transfer or a retry wait, in addition to its own context.
// Trigger it before Close to make Close return without waiting for long
// calls (log streams) to end; i.Reset() lets the client work again. i must
// not be closed while it is installed. Not concurrently with calls.
func (c *Client) SetInterrupt(i *Interrupt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setInterrupt(i)
}

func (c *Client) setInterrupt(i *Interrupt) error {
	if c.h == nil {
		return errClosed("Client")
	}
	var h *C.air_interrupt
	if i != nil {
		i.mu.RLock()
		h = i.h
		i.mu.RUnlock()
		if h == nil {
			return errClosed("Interrupt")
		}
	}
	if err := check(C.air_client_set_interrupt(c.h, h), nil); err != nil {
		return err
	}
	c.intr = i
	return nil
}

func (c *Client) setString(opt Option, value string) error {
	if c.h == nil {
		return errClosed("Client")
	}
	v := cstrOpt(value)
	defer free(v)
	return check(C.air_client_set_str(c.h, C.int32_t(opt), v), nil)
}

func (c *Client) setInt(opt Option, value int64) error {
	if c.h == nil {
		return errClosed("Client")
	}
	return check(C.air_client_set_int(c.h, C.int32_t(opt), C.int64_t(value)), nil)
}

func (c *Client) setDebug(fn func(DebugType, string)) error {
	if c.h == nil {
		return errClosed("Client")
	}
	var h cgo.Handle
	if fn != nil {
		h = cgo.NewHandle(fn)
	}
	if err := check(C.airgo_client_set_debug(c.h, C.uintptr_t(h)), nil); err != nil {
		if h != 0 {
			h.Delete()
		}
		return err
	}
	if c.debug != 0 {
		c.debug.Delete()
	}
	c.debug = h
	return nil
}

// Resolve resolves host and credentials now, reporting configuration errors early.
func (c *Client) Resolve(ctx context.Context) error {
	h, err := c.enter(ctx)
	if err != nil {
		return err
	}
	defer c.mu.RUnlock()
	var e *C.air_error
	return check(C.air_client_resolve(h, &e), e)
}

func (c *Client) str(f func(*C.air_client) *C.char) string {
	h, err := c.acquire()
	if err != nil {
		return ""
	}
	defer c.mu.RUnlock()
	return gostr(f(h))
}

// Host is the normalised host URL after resolution, else "".
func (c *Client) Host() string {
	return c.str(func(h *C.air_client) *C.char { return C.air_client_host(h) })
}

// AuthType is the auth method in use after resolution, else "".
func (c *Client) AuthType() string {
	return c.str(func(h *C.air_client) *C.char { return C.air_client_auth_type(h) })
}

// Profile is the profile the configuration came from, or "".
func (c *Client) Profile() string {
	return c.str(func(h *C.air_client) *C.char { return C.air_client_profile(h) })
}

// CurrentUser is the caller's user name (cached by the client).
func (c *Client) CurrentUser(ctx context.Context) (string, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return "", err
	}
	defer c.mu.RUnlock()
	var out *C.char
	var e *C.air_error
	rc := C.air_client_current_user(h, &out, &e)
	s := takeStr(out)
	if err := check(rc, e); err != nil {
		return "", err
	}
	return s, nil
}

// WorkspaceID is the numeric workspace id (cached by the client).
func (c *Client) WorkspaceID(ctx context.Context) (int64, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer c.mu.RUnlock()
	var out C.int64_t
	var e *C.air_error
	if err := check(C.air_client_workspace_id(h, &out, &e), e); err != nil {
		return 0, err
	}
	return int64(out), nil
}
