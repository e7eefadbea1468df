package airtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"libair/air"
)

// TestCloseInterruptsCalls closes a client while other goroutines are
// inside calls that would otherwise wait for half a minute or an hour:
// those calls fail with ErrClosed, Close returns once they have left, and
// later calls fail at once without a request.
func TestCloseInterruptsCalls(t *testing.T) {
	fw := workspace(t)
	active := fw.newRun(t, "active", true)
	stalledRun := fw.newRun(t, "stalled", false)
	c := fw.client(t, nil)
	listing := c.ListRuns(bg, &air.ListOptions{Limit: 1, AllStatus: true}) // open, not inside Next
	if !listing.Next() {
		t.Fatalf("listing: %v", listing.Err())
	}
	fw.fault(t, map[string]interface{}{"path": "/api/2.2/jobs/runs/get", "query": map[string]interface{}{
		"run_id": stalledRun}, "action": "delay", "delay_ms": stallTime.Milliseconds(), "times": -1})
	poll := &air.LogsOptions{PollInterval: time.Hour}
	calls := map[string]func() error{
		"GetRun": func() error { _, err := c.GetRun(bg, stalledRun, nil); return err },
		"Wait": func() error {
			_, err := c.Wait(bg, active, &air.WaitOptions{PollInterval: time.Hour})
			return err
		},
		"StreamLogs": func() error { _, err := c.StreamLogs(bg, active, poll, nil); return err },
		"LogIter.Next": func() error {
			it := c.Logs(bg, active, poll)
			for it.Next() {
			}
			return it.Err()
		},
	}
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(calls))
	for name, f := range calls {
		name, f := name, f
		go func() { results <- result{name, f()} }()
	}
	// Iterators that are open but not inside Next are closed too.
	idle := c.Logs(bg, active, poll)

	// Give the calls time to be inside libair (if one is not yet, it fails
	// at its start with the same error, which the test accepts too).
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	must(t, c.Close())
	took := time.Since(start)
	for range calls {
		select {
		case r := <-results:
			if !errors.Is(r.err, air.ErrClosed) {
				t.Errorf("%s: %v", r.name, r.err)
			}
			t.Logf("%s: %v", r.name, r.err)
		case <-time.After(10 * time.Second):
			t.Fatal("a call did not return after Close")
		}
	}
	if took > 10*time.Second {
		t.Fatalf("Close took %v", took)
	}
	if idle.Next() || !errors.Is(idle.Err(), air.ErrClosed) {
		t.Fatalf("open iterator after Close: %v", idle.Err())
	}
	if listing.Next() || !errors.Is(listing.Err(), air.ErrClosed) {
		t.Fatalf("open listing after Close: %v", listing.Err())
	}

	fw.call(t, "DELETE", "/__fakews/requests", nil, nil)
	_, err := c.GetRun(bg, active, nil)
	e := airErr(t, err, air.EINVAL)
	if !errors.Is(err, air.ErrClosed) || e.Kind != air.KindInvalidArgument {
		t.Fatalf("call after Close: %v", err)
	}
	it := c.Logs(bg, active, nil)
	if it.Next() || !errors.Is(it.Err(), air.ErrClosed) {
		t.Fatalf("Logs after Close: %v", it.Err())
	}
	if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get"); n != 0 {
		t.Fatalf("%d requests after Close", n)
	}
	if c.Host() != "" {
		t.Fatalf("host after Close %q", c.Host())
	}
	must(t, c.Close()) // idempotent
}

// TestCloseWaitsForTheCallToLeave: Close does not free the client while a
// call is still inside libair (here: inside one of its callbacks).
func TestCloseWaitsForTheCallToLeave(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "logs", false)
	fw.addLogs(t, rid, 5, "line {i}")
	c := fw.client(t, nil)
	inside, release := make(chan struct{}), make(chan struct{})
	streamErr := make(chan error, 1)
	go func() {
		n := 0
		_, err := c.StreamLogs(bg, rid, nil, func(air.LogRecord) error {
			if n++; n == 1 {
				close(inside)
				<-release
			}
			return nil
		})
		streamErr <- err
	}()
	<-inside
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a call was inside libair")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	<-closed
	// The stream either finished its last records or was interrupted by Close.
	if err := <-streamErr; err != nil && !errors.Is(err, air.ErrClosed) {
		t.Fatalf("stream: %v", err)
	}
}

// TestCloseFromManyGoroutines: concurrent Close calls all return after the
// client is released, and calls racing with them either work or fail with
// ErrClosed.
func TestCloseFromManyGoroutines(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "r", false)
	c := fw.client(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for k := 0; k < 4; k++ {
				if _, err := c.GetRun(context.Background(), rid, nil); err != nil && !errors.Is(err, air.ErrClosed) {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			time.Sleep(10 * time.Millisecond)
			c.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestErrorText: every kind of failure prints "air: KIND: message" once,
// without a repeated prefix, kind or message.
func TestErrorText(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	var errs []error
	add := func(err error) { errs = append(errs, err) }

	_, err := air.LoadConfigBytes([]byte("experiment_name: [\n"), "bad.yaml", "")
	add(err)
	_, err = c.GetRun(bg, 987654321, nil)
	add(err)
	bad := fw.client(t, func(o *air.ClientOptions) { o.Token = "dapi-wrong" })
	_, err = bad.CurrentUser(bg)
	add(err)
	done, cancel := context.WithCancel(bg)
	cancel()
	_, err = c.GetRun(done, 1, nil)
	add(err)
	ctx, cancel2 := context.WithTimeout(bg, 100*time.Millisecond)
	defer cancel2()
	_, err = c.Wait(ctx, fw.newRun(t, "active", true), &air.WaitOptions{PollInterval: time.Hour})
	add(err)
	rid := fw.newRun(t, "r", false)
	fw.addLogs(t, rid, 3, "line {i}")
	_, err = c.StreamLogs(bg, rid, nil, func(air.LogRecord) error { return air.ErrStop })
	add(err)
	closed := fw.client(t, nil)
	closed.Close()
	_, err = closed.GetRun(bg, 1, nil)
	add(err)
	cfg := loadMinimal(t)
	cfg.Close()
	add(cfg.Validate())

	for _, err := range errs {
		var e *air.Error
		if !errors.As(err, &e) {
			t.Fatalf("not an *air.Error: %T %v", err, err)
		}
		s := err.Error()
		prefix := "air: " + e.Kind.String() + ": "
		if !strings.HasPrefix(s, prefix) || strings.Count(s, "air: ") != 1 ||
			strings.Count(s, e.Kind.String()+":") != 1 || strings.Count(s, e.Message) != 1 {
			t.Errorf("error text %q (kind %v, message %q)", s, e.Kind, e.Message)
		}
		t.Log(s)
	}
}
