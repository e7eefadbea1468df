package airtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"libair/air"
)

// Every method that can touch the network is called with a context that
// ends while the fake workspace sits on the request (or while the call
// waits between polls): the call must return about when the context ends,
// with an *air.Error that wraps ctx.Err(). The bound on the time is ten
// times the deadline; a call that ignored its context would take the
// workspace's stall (30 s) or the whole poll interval (an hour).

// ctxCase is one network call made under ctx; setup prepares the workspace
// (and may edit the client options) and returns what the call needs.
type ctxCase struct {
	name  string
	setup func(t *testing.T, fw *fakeWS, o *air.ClientOptions) ctxArg
	call  func(ctx context.Context, c *air.Client, a ctxArg) error
}

// ctxArg is what a call of ctxCases works on.
type ctxArg struct {
	id     int64  // a run
	docker string // a docker program
	dir    string // a Docker configuration directory
}

// activeRun is a run that stays RUNNING for ten minutes.
func activeRun(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
	return ctxArg{id: fw.newRun(t, "active", true)}
}

// stalled returns a setup that stalls path (after creating a finished run).
func stalled(path string) func(*testing.T, *fakeWS, *air.ClientOptions) ctxArg {
	return func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		id := fw.newRun(t, "done", false)
		fw.stall(t, path)
		return ctxArg{id: id}
	}
}

var hour = time.Hour

var ctxCases = []ctxCase{
	{"Resolve", func(t *testing.T, fw *fakeWS, o *air.ClientOptions) ctxArg {
		// OAuth M2M resolution asks the workspace for its token endpoint and a token.
		fw.call(t, "POST", "/__fakews/config", map[string]interface{}{
			"oauth": map[string]interface{}{"clients": map[string]interface{}{"cid": "csecret"}}}, nil)
		o.Token, o.AuthType, o.ClientID, o.ClientSecret = "", "oauth-m2m", "cid", "csecret"
		fw.stall(t, "/*")
		return ctxArg{}
	}, func(ctx context.Context, c *air.Client, _ ctxArg) error { return c.Resolve(ctx) }},
	{"CurrentUser", stalled("/api/2.0/preview/scim/v2/Me"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.CurrentUser(ctx)
		return err
	}},
	{"WorkspaceID", stalled("/api/2.0/preview/scim/v2/Me"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.WorkspaceID(ctx)
		return err
	}},
	{"Submit", stalled("/*"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		cfg, err := air.LoadConfigBytes([]byte(minimalYAML), "mini.yaml", "")
		if err != nil {
			return err
		}
		defer cfg.Close()
		_, err = c.Submit(ctx, cfg, nil)
		return err
	}},
	{"Failure", stalled("/api/2.2/jobs/runs/get"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.Failure(ctx, a.id, nil)
		return err
	}},
	{"GetRun", stalled("/api/2.2/jobs/runs/get"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.GetRun(ctx, a.id, nil)
		return err
	}},
	{"ListRuns", stalled("/*"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		it := c.ListRuns(ctx, &air.ListOptions{AllStatus: true, NoWorkspaceID: true})
		defer it.Close()
		for it.Next() {
		}
		return it.Err()
	}},
	{"RunIter.Next", func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		// One run per page of the workflows index; the second page is stalled.
		fw.call(t, "POST", "/__fakews/config", map[string]interface{}{"workflows_page_size": 1}, nil)
		fw.newRun(t, "first", false)
		fw.newRun(t, "second", false)
		fw.fault(t, map[string]interface{}{"path": "/api/2.0/ai-training/workflows", "action": "delay",
			"delay_ms": stallTime.Milliseconds(), "times": -1, "after": 1})
		return ctxArg{}
	}, func(ctx context.Context, c *air.Client, _ ctxArg) error {
		it := c.ListRuns(ctx, &air.ListOptions{AllStatus: true, NoWorkspaceID: true})
		defer it.Close()
		if !it.Next() {
			return fmt.Errorf("no first run: %w", it.Err())
		}
		for it.Next() {
		}
		return it.Err()
	}},
	{"CancelRun", stalled("/api/2.2/jobs/runs/cancel"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		return c.CancelRun(ctx, a.id)
	}},
	{"CancelRuns", stalled("/api/2.2/jobs/runs/cancel"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.CancelRuns(ctx, []int64{a.id, a.id + 1})
		return err
	}},
	{"CancelAll", stalled("/api/2.2/jobs/runs/list"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.CancelAll(ctx)
		return err
	}},
	{"Wait", activeRun, func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.Wait(ctx, a.id, &air.WaitOptions{PollInterval: hour})
		return err
	}},
	{"Wait/stalled", stalled("/api/2.2/jobs/runs/get"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.Wait(ctx, a.id, nil)
		return err
	}},
	{"Logs", stalled("/*"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		it := c.Logs(ctx, a.id, nil)
		defer it.Close()
		for it.Next() {
		}
		return it.Err()
	}},
	{"LogIter.Next", activeRun, func(ctx context.Context, c *air.Client, a ctxArg) error {
		it := c.Logs(ctx, a.id, &air.LogsOptions{PollInterval: hour})
		defer it.Close()
		for it.Next() {
		}
		return it.Err()
	}},
	{"StreamLogs", activeRun, func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.StreamLogs(ctx, a.id, &air.LogsOptions{PollInterval: hour}, nil)
		return err
	}},
	{"LatestMetrics", stalled("/api/2.2/jobs/runs/get"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.LatestMetrics(ctx, a.id, nil)
		return err
	}},
	{"Metrics", stalled("/api/2.2/jobs/runs/get"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.Metrics(ctx, a.id, nil)
		return err
	}},
	{"MetricIter.Next", activeRun, func(ctx context.Context, c *air.Client, a ctxArg) error {
		it := c.MetricHistory(ctx, a.id, "loss", &air.MetricsOptions{Follow: true, PollInterval: hour})
		defer it.Close()
		for it.Next() {
		}
		return it.Err()
	}},
	{"DownloadLogs", stalled("/*"), func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.DownloadLogs(ctx, a.id, os.TempDir(), nil)
		return err
	}},
	{"ListPools", stalled("/api/2.0/*"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.ListPools(ctx)
		return err
	}},
	{"GetPool", stalled("/api/2.0/*"), func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.GetPool(ctx, "pool-a")
		return err
	}},
	{"PollMLflowLinks", func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		// A pending run: its task has no MLflow ids yet.
		var out struct {
			RunID int64 `json:"run_id"`
		}
		fw.call(t, "POST", "/__fakews/runs", map[string]interface{}{
			"tasks":     []interface{}{map[string]interface{}{"ai_runtime_task": map[string]interface{}{}}},
			"lifecycle": map[string]interface{}{"pending_ms": 600000}}, &out)
		return ctxArg{id: out.RunID}
	}, func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, _, err := c.PollMLflowLinks(ctx, a.id, 1000, hour)
		return err
	}},
	{"PushImage", func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		// A docker program that takes far too long; the push must kill it.
		p := filepath.Join(t.TempDir(), "docker")
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return ctxArg{docker: p}
	}, func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.PushImage(ctx, &air.ImagePushOptions{Source: "trainer:1", Catalog: "main",
			Schema: "ml", RegistryHost: "registry.invalid", Docker: a.docker})
		return err
	}},
	{"RegisterImage", func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		// The workspace keeps the image PENDING: the wait must end with the context.
		fw.images(t, map[string]interface{}{privateImage: map[string]interface{}{
			"registered": false, "on_register": map[string]interface{}{"state": "PENDING"}}})
		return ctxArg{}
	}, func(ctx context.Context, c *air.Client, _ ctxArg) error {
		_, err := c.RegisterImage(ctx, privateImage, &air.RegisterImageOptions{PollInterval: hour, NoDiscover: true})
		return err
	}},
	{"RegisterImage/helper", func(t *testing.T, fw *fakeWS, _ *air.ClientOptions) ctxArg {
		// A credential helper that takes far too long; the registration must kill it.
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "docker-credential-slow"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		return ctxArg{dir: dockerConfig(t, `{"credsStore":"slow"}`)}
	}, func(ctx context.Context, c *air.Client, a ctxArg) error {
		_, err := c.RegisterImage(ctx, privateImage, &air.RegisterImageOptions{DockerConfigDir: a.dir, HelperTimeout: hour})
		return err
	}},
}

// checkEnded asserts that err reports the end of ctx (want: its error)
// within ten times the deadline d.
func checkEnded(t *testing.T, err error, want error, took, d time.Duration) {
	t.Helper()
	var e *air.Error
	if !errors.As(err, &e) || !errors.Is(err, want) {
		t.Fatalf("want an *air.Error wrapping %v, got %T %v", want, err, err)
	}
	code, kind := air.ETIMEOUT, air.KindTransient
	if want == context.Canceled {
		code, kind = air.EINTERRUPTED, air.KindAborted
	}
	if e.Code != code || e.Kind != kind || e.Retryable != (want == context.DeadlineExceeded) {
		t.Fatalf("code %v kind %v retryable %v: %v", e.Code, e.Kind, e.Retryable, err)
	}
	if took > 10*d {
		t.Fatalf("returned after %v, the context ended after %v", took, d)
	}
	t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
}

// TestContextDeadline runs every network call against a context whose
// deadline passes while the call waits.
func TestContextDeadline(t *testing.T) {
	for _, tc := range ctxCases {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			fw := workspace(t)
			o := fw.options()
			arg := tc.setup(t, fw, o)
			c, err := air.NewClient(o)
			must(t, err)
			defer c.Close()
			d := 250 * time.Millisecond
			if tc.name == "GetRun" {
				d = time.Second // as a service would set it
			}
			ctx, cancel := context.WithTimeout(bg, d)
			defer cancel()
			start := time.Now()
			err = tc.call(ctx, c, arg)
			checkEnded(t, landed(t, err), context.DeadlineExceeded, time.Since(start), d)
		})
	}
}

// TestContextCancel cancels the context of a waiting call from another goroutine.
func TestContextCancel(t *testing.T) {
	for _, tc := range ctxCases {
		tc := tc
		switch tc.name {
		case "GetRun", "Submit", "LogIter.Next", "StreamLogs", "Wait", "PushImage", "RegisterImage",
			"RegisterImage/helper", "MetricIter.Next":
		default:
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			fw := workspace(t)
			o := fw.options()
			arg := tc.setup(t, fw, o)
			c, err := air.NewClient(o)
			must(t, err)
			defer c.Close()
			ctx, cancel := context.WithCancel(bg)
			d := 250 * time.Millisecond
			timer := time.AfterFunc(d, cancel)
			defer timer.Stop()
			start := time.Now()
			err = tc.call(ctx, c, arg)
			checkEnded(t, landed(t, err), context.Canceled, time.Since(start), d)
		})
	}
}

// TestContextEndedBeforeTheCall: a context that has already ended fails
// every call before any request is made.
func TestContextEndedBeforeTheCall(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "r", false)
	c := fw.client(t, nil)
	done, cancel := context.WithCancel(bg)
	cancel()
	for _, tc := range ctxCases {
		if err := tc.call(done, c, ctxArg{id: rid, docker: "/bin/false"}); !errors.Is(err, context.Canceled) || !errors.Is(err, air.EINTERRUPTED) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	var out struct {
		Requests []interface{} `json:"requests"`
	}
	fw.call(t, "GET", "/__fakews/requests", nil, &out)
	if len(out.Requests) != 0 {
		t.Fatalf("%d requests made under an ended context", len(out.Requests))
	}
}
