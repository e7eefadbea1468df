package airtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"libair/air"
)

const sweepYAML = minimalYAML + "parameters: {lr: 0.1}\n"

func sweepConfig(t *testing.T) *air.Config {
	t.Helper()
	cfg, err := air.LoadConfigBytes([]byte(sweepYAML), "w.yaml", "")
	must(t, err)
	t.Cleanup(func() { cfg.Close() })
	return cfg
}

func TestSweepGridExactlyOnce(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg := sweepConfig(t)
	var seen []air.Variant
	opts := air.SweepOptions{
		Grid: []air.Axis{{Path: "parameters.lr", Values: []any{1e-3, 3e-4}},
			{Path: "parameters.opt", Values: []any{"adam", "32"}}},
		BaseKey:    "go",
		OnProgress: func(v air.Variant) error { seen = append(seen, v); return nil },
	}
	s, err := c.Sweep(bg, cfg, opts)
	must(t, err)
	if len(s.Variants) != 4 || s.BaseKey != "go" || len(s.Failed()) != 0 {
		t.Fatalf("sweep %+v", s)
	}
	v := s.Variants[1]
	if v.Point["parameters.opt"] != "32" || v.Point["parameters.lr"] != 0.001 ||
		v.RunName != "bindings-test lr=0.001 opt=32" || v.Status != air.VariantSubmitted ||
		v.RunID <= 0 || !strings.HasPrefix(v.IdempotencyKey, "go-") {
		t.Fatalf("variant %+v", v)
	}
	if len(seen) != 8 {
		t.Fatalf("%d progress calls, want 8 (uploading and submitted per variant)", len(seen))
	}
	opts.OnProgress = nil
	again, err := c.Sweep(bg, cfg, opts)
	must(t, err)
	for i, id := range again.RunIDs() {
		if id != s.RunIDs()[i] {
			t.Fatalf("submitting again gave run %d for %d", id, s.RunIDs()[i])
		}
	}
	if n := fw.count(t, "POST", "/api/2.2/jobs/runs/submit"); n != 8 {
		t.Fatalf("%d runs/submit", n)
	}
}

func TestSweepPointsDryRunAndErrors(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg := sweepConfig(t)
	d, err := c.Sweep(bg, cfg, air.SweepOptions{DryRun: true, BaseKey: "k", Sample: 2, Seed: 3,
		Points: []map[string]any{{"parameters.lr": 0.1}, {"parameters.lr": 0.2}, {"parameters.lr": 0.3}}})
	must(t, err)
	if len(d.Variants) != 2 || d.Variants[0].Status != air.VariantValid || d.Variants[0].RunID != 0 {
		t.Fatalf("dry run %+v", d)
	}
	_, err = c.Sweep(bg, cfg, air.SweepOptions{Grid: []air.Axis{
		{Path: "compute.num_accelerators", Values: []any{1, 0}}}})
	e := airErr(t, err, air.ECONFIG)
	if e.Field != "compute.num_accelerators" || !strings.Contains(e.Message, "variant 1") {
		t.Fatalf("error %+v", e)
	}
	_, err = c.Sweep(bg, cfg, air.SweepOptions{})
	airErr(t, err, air.EINVAL)
	stop := errors.New("stop")
	s, err := c.Sweep(bg, cfg, air.SweepOptions{MaxParallel: 1,
		Grid: []air.Axis{{Path: "parameters.lr", Values: []any{1, 2, 3, 4, 5}}},
		OnProgress: func(v air.Variant) error {
			if v.Status == air.VariantSubmitted {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, stop) || !errors.Is(err, air.EABORTED) || s == nil || len(s.RunIDs()) >= 5 {
		t.Fatalf("stopped sweep: %v, %+v", err, s)
	}
}

func TestSweepContextEnds(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg := sweepConfig(t)
	fw.stall(t, "/api/2.2/jobs/runs/submit")
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	s, err := c.Sweep(ctx, cfg, air.SweepOptions{Grid: []air.Axis{
		{Path: "parameters.lr", Values: []any{1, 2}}}})
	if !errors.Is(err, context.DeadlineExceeded) || s == nil || len(s.Failed()) != 2 {
		t.Fatalf("sweep past its deadline: %v, %+v", err, s)
	}
}

func TestRerun(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg := sweepConfig(t)
	first, err := c.Submit(bg, cfg, nil)
	must(t, err)
	again, err := c.Rerun(bg, first.RunID, air.RerunOptions{Overrides: []string{"parameters.lr=0.5"}})
	must(t, err)
	twice, err := c.Rerun(bg, first.RunID, air.RerunOptions{Overrides: []string{"parameters.lr=0.5"}})
	must(t, err)
	if again.RunID == first.RunID || twice.RunID != again.RunID ||
		!strings.HasPrefix(again.IdempotencyToken, "rerun-") {
		t.Fatalf("reruns %+v %+v", again, twice)
	}
	_, err = c.Rerun(bg, 424242, air.RerunOptions{})
	airErr(t, err, air.ENOTFOUND)
	_, err = c.Rerun(bg, first.RunID, air.RerunOptions{Overrides: []string{"nope"}})
	airErr(t, err, air.EINVAL)

	// A run submitted with an override its training_config.yaml does not
	// hold: the rerun keeps it and says so.
	must(t, cfg.Override("compute.num_accelerators=2"))
	must(t, cfg.Validate())
	overridden, err := c.Submit(bg, cfg, nil)
	must(t, err)
	kept, err := c.Rerun(bg, overridden.RunID, air.RerunOptions{})
	must(t, err)
	if len(kept.Warnings) != 1 ||
		!strings.Contains(kept.Warnings[0], "this run keeps them (compute.num_accelerators)") {
		t.Fatalf("rerun of an overridden run: warnings %q", kept.Warnings)
	}
}

func TestStopAndCancelSweep(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/config", map[string]any{"lifecycle": map[string]any{"pending_ms": 600000}}, nil)
	c := fw.client(t, nil)
	cfg := sweepConfig(t)
	grid := []air.Axis{{Path: "parameters.lr", Values: []any{1, 2}}}
	s, err := c.Sweep(bg, cfg, air.SweepOptions{Grid: grid, BaseKey: "go-stop"})
	must(t, err)
	rep, err := c.CancelSweep(bg, "go-stop")
	must(t, err)
	if len(rep.Outcomes) != 2 || rep.Failures != 0 {
		t.Fatalf("cancel report %+v", rep)
	}
	more := []air.Axis{{Path: "parameters.lr", Values: []any{1, 2, 3}}}
	again, err := c.Sweep(bg, cfg, air.SweepOptions{Grid: more, BaseKey: "go-stop"})
	must(t, err)
	if len(again.Failed()) != 1 || !errors.Is(again.Variants[2].Err, air.EABORTED) ||
		!strings.Contains(again.Variants[2].Err.Error(), "sweep go-stop was stopped") ||
		again.Variants[0].RunID != s.Variants[0].RunID {
		t.Fatalf("a stopped sweep submitted again: %+v", again)
	}
	must(t, c.StopSweep(bg, "go-other"))
	other, err := c.Sweep(bg, cfg, air.SweepOptions{Grid: grid, BaseKey: "go-other"})
	must(t, err)
	if len(other.RunIDs()) != 0 || len(s.RunIDs()) != 2 || other.Resumed {
		t.Fatalf("runs %v, %v", other.RunIDs(), s.RunIDs())
	}
	// Resume undoes the stop: the variant is submitted, once.
	resumed, err := c.Sweep(bg, cfg, air.SweepOptions{Grid: grid, BaseKey: "go-other", Resume: true})
	must(t, err)
	plain, err := c.Sweep(bg, cfg, air.SweepOptions{Grid: grid, BaseKey: "go-other", Resume: true})
	must(t, err)
	if !resumed.Resumed || len(resumed.RunIDs()) != 2 || plain.Resumed ||
		plain.Variants[1].RunID != resumed.Variants[1].RunID {
		t.Fatalf("resumed %+v, then %+v", resumed, plain)
	}
	if err := c.StopSweep(bg, " "); !errors.Is(err, air.EINVAL) {
		t.Fatalf("a blank base key: %v", err)
	}
}
