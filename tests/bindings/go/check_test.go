package airtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"libair/air"
)

// The pre-submit check through Client.Check, against the fake workspace and
// the local workspace.

const checkYAML = `experiment_name: bindings-test
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: python train.py
environment: {version: "6", dependencies: [numpy]}
secrets: {HF_TOKEN: ml/hf, WANDB: ml/wandb}
permissions: [{user_name: a@b.com, level: CAN_VIEW}]
`

func findCheck(r *air.CheckReport, name, field string) *air.Check {
	for i := range r.Checks {
		if r.Checks[i].Name == name && (field == "" || r.Checks[i].Field == field) {
			return &r.Checks[i]
		}
	}
	return nil
}

func wantCheck(t *testing.T, r *air.CheckReport, name, field string, status air.CheckStatus, text string) {
	t.Helper()
	c := findCheck(r, name, field)
	if c == nil {
		t.Fatalf("no check %s (%s) in %+v", name, field, r.Checks)
	}
	if c.Status != status || !strings.Contains(c.Message, text) {
		t.Fatalf("check %s (%s) is %v %q, want %v with %q", name, field, c.Status, c.Message,
			status, text)
	}
}

func TestCheckWorkspace(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/secrets", map[string]interface{}{
		"scopes": map[string]interface{}{"ml": map[string]string{"hf": "hf_secret_value"}}}, nil)
	c := fw.client(t, nil)
	cfg, err := air.LoadConfigBytes([]byte(checkYAML), "w.yaml", t.TempDir())
	must(t, err)
	defer cfg.Close()
	r, err := c.Check(bg, cfg)
	must(t, err)
	if r.OK() {
		t.Fatalf("a missing key must fail the report: %+v", r.Checks)
	}
	wantCheck(t, r, "secret_key", "secrets.HF_TOKEN", air.CheckPass, "listed in scope ml")
	wantCheck(t, r, "secret_key", "secrets.WANDB", air.CheckFail, "scope ml has no key wandb")
	wantCheck(t, r, "dependencies_pinned", "environment.dependencies[0]", air.CheckWarn, "numpy is not pinned")
	wantCheck(t, r, "experiment_permissions", "permissions[0]", air.CheckPass, "CAN_READ (CAN_VIEW)")
	wantCheck(t, r, "preflight", "", air.CheckPass, "accepts the configuration")
	if s := air.CheckSkipped.String(); s != "skipped" {
		t.Fatalf("String: %q", s)
	}
	if got := findCheck(r, "code_paths", ""); got != nil {
		t.Fatalf("no code_source, no code check: %+v", got)
	}
	for _, ch := range r.Checks {
		if strings.Contains(ch.Message, "hf_secret_value") {
			t.Fatalf("a secret value in %+v", ch)
		}
	}
	if n := fw.count(t, "POST", "/api/2.2/jobs/runs/submit"); n != 0 {
		t.Fatalf("submitted %d runs", n)
	}
}

func TestCheckOptionsAndCallback(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg, err := air.LoadConfigBytes([]byte(minimalYAML), "w.yaml", t.TempDir())
	must(t, err)
	defer cfg.Close()
	// offline only: no request; the unpinned environment fails with Strict
	var seen []string
	r, err := c.Check(bg, cfg, air.CheckOptions{NoResources: true, Strict: true,
		OnCheck: func(ch air.Check) error { seen = append(seen, ch.Name); return nil }})
	must(t, err)
	if r.OK() || len(seen) != len(r.Checks) || findCheck(r, "preflight", "") != nil {
		t.Fatalf("strict offline check: ok=%v seen=%v %+v", r.OK(), seen, r.Checks)
	}
	wantCheck(t, r, "environment_pinned", "environment.version", air.CheckWarn, "not set")
	var recorded struct {
		Requests []interface{} `json:"requests"`
	}
	fw.call(t, "GET", "/__fakews/requests", nil, &recorded)
	if len(recorded.Requests) != 0 {
		t.Fatalf("%d requests for an offline check", len(recorded.Requests))
	}
	// an error from the callback stops the call and is its cause
	stop := errors.New("enough")
	_, err = c.Check(bg, cfg, air.CheckOptions{OnCheck: func(air.Check) error { return stop }})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, stop) {
		t.Fatalf("the callback's error is not the cause: %v", err)
	}
	// a context that ends stops it
	fw.call(t, "POST", "/__fakews/faults", map[string]interface{}{
		"path": "/api/2.0/ai-training/config:validate", "action": "delay", "delay_ms": 30000}, nil)
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	_, err = c.Check(ctx, cfg)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's deadline, got %v", err)
	}
}

func TestCheckLocalAndAcceleratorTypes(t *testing.T) {
	lw := newLocal(t)
	cfg, err := air.LoadConfigBytes([]byte(checkYAML), "w.yaml", lw.state)
	must(t, err)
	defer cfg.Close()
	r, err := lw.c.Check(bg, cfg)
	must(t, err)
	wantCheck(t, r, "local_secret", "secrets.HF_TOKEN", air.CheckFail, "has no local value")
	wantCheck(t, r, "local_node_limit", "compute.num_accelerators", air.CheckPass, "1 node")
	wantCheck(t, r, "experiment_permissions", "permissions", air.CheckSkipped, "no MLflow")
	types, err := lw.c.AcceleratorTypes(bg)
	must(t, err)
	if len(types) < 3 || types[0] != "GPU_1xA10" {
		t.Fatalf("accelerator types of a local workspace: %v", types)
	}
}
