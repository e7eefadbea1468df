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
	"time"
)

// ClientOptions configure a Client. Empty strings and zero values mean the
// library's default; with IgnoreEnvironment false (the default) the
// DATABRICKS_* variables and ~/.databrickscfg are read as the Databricks CLI
// reads them, and explicit options win over both.
type ClientOptions struct {
	Host             string // workspace URL (DATABRICKS_HOST)
	Token            string // personal access token (DATABRICKS_TOKEN)
	Profile          string // ~/.databrickscfg profile; wins over environment auth
	ConfigFile       string // config file instead of ~/.databrickscfg
	ClientID         string // OAuth M2M client id
	ClientSecret     string // OAuth M2M client secret
	AuthType         string // pat | basic | oauth-m2m | databricks-cli
	Username         string // basic auth user
	Password         string // basic auth password
	WorkspaceID      string // X-Databricks-Workspace-Id routing header
	UserAgentSuffix  string // appended to the User-Agent ("myapp/1.2")
	CAFile           string // PEM bundle of trusted CAs
	HomeDir          string // home directory for ~ expansion and the token cache
	AuthStorage      string // U2M token storage: plaintext | secure
	UserWorkspaceDir string // artifact base instead of /Workspace/Users/<me>
	DefaultRuntime   string // default environment channel
	DiscoveryURL     string // OAuth authorization-server metadata URL

	ConnectTimeout    time.Duration // TCP+TLS connect timeout per attempt; default 30 s
	RequestTimeout    time.Duration // total time per attempt; default none
	InactivityTimeout time.Duration // abort an attempt stalled this long; default 60 s
	RetryDeadline     time.Duration // retry budget of one call; default 2 min
	RetryBackoff      time.Duration // back-off unit; default 1 s
	RateLimit         *int          // requests per second; default 15; Int(0) turns it off
	MaxParallel       int           // concurrent uploads of one submission; default 8

	IgnoreEnvironment bool // do not read the DATABRICKS_* variables
	SkipTLSVerify     bool // do not verify certificates (testing only)

	// Debug receives a trace of requests, replies and decisions, with
	// credentials redacted. With a shared Client it may run on several
	// goroutines at once.
	Debug func(t DebugType, text string)

	// Strings and Ints set raw options by number, for options newer than
	// this package; they are applied after the fields above.
	Strings map[Option]string
	Ints    map[Option]int64
}

// String describes the options without their secrets, so that logging
// them is safe.
func (o ClientOptions) String() string {
	secret := func(s string) string {
		if s == "" {
			return `""`
		}
		return "<redacted>"
	}
	return fmt.Sprintf("air.ClientOptions{Host:%q Profile:%q AuthType:%q Token:%s ClientSecret:%s Password:%s}",
		o.Host, o.Profile, o.AuthType, secret(o.Token), secret(o.ClientSecret), secret(o.Password))
}

// GoString is String, so that %#v does not print secrets either.
func (o ClientOptions) GoString() string { return o.String() }

// Client is a connection to one Databricks workspace. It is safe for
// concurrent use by any number of goroutines; create one per workspace and
// share it. Close it when done: Close interrupts the calls in progress.
type Client struct {
	mu      sync.Mutex
	left    sync.Cond // signalled when a call leaves
	h       *C.air_client
	intr    *C.air_interrupt // client-wide; raised by Close
	debug   cgo.Handle
	active  int                    // calls in progress
	closing bool                   // Close has begun
	done    chan struct{}          // closed once Close has released everything
	iters   map[*iterCore]struct{} // open iterators
}

// NewClient creates a client; opts may be nil. Nothing is resolved or
// contacted yet: configuration errors come from Resolve or the first call.
func NewClient(opts *ClientOptions) (*Client, error) {
	if opts == nil {
		opts = &ClientOptions{}
	}
	var o *C.air_client_options
	if err := check(C.air_client_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_client_options_free(o)
	if err := setClientOptions(o, opts); err != nil {
		return nil, err
	}
	c := &Client{done: make(chan struct{}), iters: map[*iterCore]struct{}{}}
	c.left.L = &c.mu
	if err := check(C.air_interrupt_new(&c.intr), nil); err != nil {
		return nil, err
	}
	if err := check(C.air_client_options_set_interrupt(o, c.intr), nil); err != nil {
		C.air_interrupt_free(c.intr)
		return nil, err
	}
	if opts.Debug != nil {
		c.debug = cgo.NewHandle(opts.Debug)
		if err := check(C.airgo_client_options_set_debug(o, C.uintptr_t(c.debug)), nil); err != nil {
			c.debug.Delete()
			C.air_interrupt_free(c.intr)
			return nil, err
		}
	}
	var e *C.air_error
	if err := check(C.air_client_new(o, &c.h, &e), e); err != nil {
		if c.debug != 0 {
			c.debug.Delete()
		}
		C.air_interrupt_free(c.intr)
		return nil, err
	}
	runtime.SetFinalizer(c, (*Client).Close)
	return c, nil
}

func setClientOptions(o *C.air_client_options, opts *ClientOptions) error {
	setStr := func(opt Option, v string) error {
		p := cstrOpt(v)
		defer free(p)
		return check(C.air_client_options_set_str(o, C.int32_t(opt), p), nil)
	}
	setInt := func(opt Option, v int64) error {
		return check(C.air_client_options_set_int(o, C.int32_t(opt), C.int64_t(v)), nil)
	}
	for _, s := range []struct {
		opt Option
		v   string
	}{{OptHost, opts.Host}, {OptToken, opts.Token}, {OptProfile, opts.Profile},
		{OptConfigFile, opts.ConfigFile}, {OptClientID, opts.ClientID},
		{OptClientSecret, opts.ClientSecret}, {OptAuthType, opts.AuthType},
		{OptUsername, opts.Username}, {OptPassword, opts.Password},
		{OptWorkspaceID, opts.WorkspaceID}, {OptUserAgentSuffix, opts.UserAgentSuffix},
		{OptCAFile, opts.CAFile}, {OptHomeDir, opts.HomeDir}, {OptAuthStorage, opts.AuthStorage},
		{OptUserWorkspaceDir, opts.UserWorkspaceDir}, {OptDefaultRuntime, opts.DefaultRuntime},
		{OptDiscoveryURL, opts.DiscoveryURL}} {
		if s.v != "" {
			if err := setStr(s.opt, s.v); err != nil {
				return err
			}
		}
	}
	for _, d := range []struct {
		opt Option
		v   time.Duration
	}{{OptConnectTimeoutMs, opts.ConnectTimeout}, {OptRequestTimeoutMs, opts.RequestTimeout},
		{OptInactivityTimeoutMs, opts.InactivityTimeout}, {OptRetryDeadlineMs, opts.RetryDeadline},
		{OptRetryBackoffMs, opts.RetryBackoff}} {
		if d.v != 0 {
			if err := setInt(d.opt, millis(d.v)); err != nil {
				return err
			}
		}
	}
	ints := map[Option]int64{}
	if opts.RateLimit != nil {
		ints[OptRateLimit] = int64(*opts.RateLimit)
	}
	if opts.MaxParallel != 0 {
		ints[OptMaxParallel] = int64(opts.MaxParallel)
	}
	if opts.IgnoreEnvironment {
		ints[OptUseEnvironment] = 0
	}
	if opts.SkipTLSVerify {
		ints[OptSkipTLSVerify] = 1
	}
	for opt, v := range ints {
		if err := setInt(opt, v); err != nil {
			return err
		}
	}
	for opt, v := range opts.Strings {
		if err := setStr(opt, v); err != nil {
			return err
		}
	}
	for opt, v := range opts.Ints {
		if err := setInt(opt, v); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the client. Calls made afterwards fail at once with an
// error matching ErrClosed; calls in progress on other goroutines are
// interrupted (they fail with ErrClosed too) and open iterators are closed.
// Close returns once every call has left libair. It is idempotent and
// safe from any goroutine, but not from a callback of a call on the same
// client. It always returns nil.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closing = true
	c.mu.Unlock()

	C.air_interrupt_trigger(c.intr)
	c.mu.Lock()
	for c.active > 0 {
		c.left.Wait()
	}
	iters := c.iters
	c.iters = nil
	c.mu.Unlock()
	for it := range iters {
		it.shut(closedError("Client"))
	}
	C.air_client_free(c.h)
	c.h = nil
	C.air_interrupt_free(c.intr)
	c.intr = nil
	if c.debug != 0 {
		c.debug.Delete()
	}
	runtime.SetFinalizer(c, nil)
	close(c.done)
	return nil
}

// enter pins the client for one call; leave unpins it.
func (c *Client) enter() (*C.air_client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil, closedError("Client")
	}
	c.active++
	return c.h, nil
}

func (c *Client) leave() {
	c.mu.Lock()
	c.active--
	if c.active == 0 {
		c.left.Broadcast()
	}
	c.mu.Unlock()
}

// annotateClosed marks a failure caused by Close's interrupt.
func (c *Client) annotateClosed(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Code != EINTERRUPTED || e.Cause != nil {
		return err
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		e.closed = true
		e.Message += " (the Client was closed)"
	}
	return err
}

// Resolve resolves the host and credentials now (profile, environment,
// OAuth discovery and token) instead of on the first request, so that
// configuration errors show up early. It makes no request for PAT auth.
func (c *Client) Resolve(ctx context.Context) error {
	_, err := withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (none, error) {
		var e *C.air_error
		return none{}, k.result(C.air_client_resolve(k.h, o, &e), e)
	})
	return err
}

// local reads a resolved string of the client ("" before resolution or after Close).
func (c *Client) local(f func(*C.air_client) *C.char) string {
	h, err := c.enter()
	if err != nil {
		return ""
	}
	defer c.leave()
	return gostr(f(h))
}

// Host is the normalised workspace URL once resolved, else "".
func (c *Client) Host() string {
	return c.local(func(h *C.air_client) *C.char { return C.air_client_host(h) })
}

// AuthType is the auth method in use once resolved ("pat", "oauth-m2m",
// "databricks-cli", "basic"), else "".
func (c *Client) AuthType() string {
	return c.local(func(h *C.air_client) *C.char { return C.air_client_auth_type(h) })
}

// Profile is the profile the configuration came from once resolved, or "".
func (c *Client) Profile() string {
	return c.local(func(h *C.air_client) *C.char { return C.air_client_profile(h) })
}

// CurrentUser is the caller's user name, looked up once and cached.
func (c *Client) CurrentUser(ctx context.Context) (string, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (string, error) {
		var out *C.char
		var e *C.air_error
		rc := C.air_client_current_user(k.h, o, &out, &e)
		user := takeStr(out)
		if err := k.result(rc, e); err != nil {
			return "", err
		}
		return user, nil
	})
}

// WorkspaceID is the numeric workspace id, looked up once and cached.
func (c *Client) WorkspaceID(ctx context.Context) (int64, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (int64, error) {
		var id C.int64_t
		var e *C.air_error
		if err := k.result(C.air_client_workspace_id(k.h, o, &id, &e), e); err != nil {
			return 0, err
		}
		return int64(id), nil
	})
}
