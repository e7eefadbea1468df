package airtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"libair/air"
)

// Config.WriteBundle: local files only, no workspace; Config.CheckSubmission.

func loadIn(t *testing.T, dir, yaml string) *air.Config {
	t.Helper()
	cfg, err := air.LoadConfigBytes([]byte(yaml), "w.yaml", dir)
	must(t, err)
	t.Cleanup(cfg.Close)
	return cfg
}

func TestWriteBundle(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadIn(t, dir, minimalYAML+"env_variables: {A: x}\n")
	b, err := cfg.WriteBundle("", &air.BundleOptions{DefaultRuntime: "5", IgnoreEnvironment: true})
	must(t, err)
	want := []string{"databricks.yml", "generated_artifacts/training_config.yaml",
		"generated_artifacts/command.sh", "generated_artifacts/env_vars.json"}
	if b.Dir != real || b.JobKey != "bindings-test" || !reflect.DeepEqual(b.Files, want) || len(b.Removed) != 0 {
		t.Fatalf("bundle %+v", b)
	}
	for _, f := range b.Files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for f, parts := range map[string][]string{
		"databricks.yml": {"jobs:\n    bindings-test:", "environment_version: \"5\"",
			"command_path: ./generated_artifacts/command.sh"},
		"generated_artifacts/command.sh": {"python train.py"},
	} {
		text, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range parts {
			if !strings.Contains(string(text), s) {
				t.Errorf("%s lacks %q:\n%s", f, s, text)
			}
		}
	}
}

func TestWriteBundleRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	cfg := loadIn(t, dir, minimalYAML+"env_variables: {A: x}\n")
	_, err := cfg.WriteBundle(dir, nil)
	must(t, err)
	before, _ := os.ReadFile(filepath.Join(dir, "databricks.yml"))

	_, err = cfg.WriteBundle(dir, nil)
	e := airErr(t, err, air.ECONFLICT)
	if !errors.Is(err, air.ECONFLICT) || e.Kind != air.KindConflict ||
		!strings.Contains(e.Message, "databricks.yml already exists") {
		t.Fatalf("kind %v: %v", e.Kind, err)
	}
	// Without databricks.yml, a generated artifact blocks too; nothing is written.
	if err := os.Remove(filepath.Join(dir, "databricks.yml")); err != nil {
		t.Fatal(err)
	}
	fewer := loadIn(t, dir, minimalYAML)
	_, err = fewer.WriteBundle(dir, nil)
	if e := airErr(t, err, air.ECONFLICT); !strings.Contains(e.Message, "generated_artifacts/training_config.yaml") {
		t.Fatalf("message %q", e.Message)
	}
	if _, err := os.Stat(filepath.Join(dir, "databricks.yml")); !os.IsNotExist(err) {
		t.Fatalf("databricks.yml written by a refused call: %v", err)
	}

	// Force overwrites, and removes the sidecar the workload no longer has.
	b, err := fewer.WriteBundle(dir, &air.BundleOptions{Force: true})
	must(t, err)
	if !reflect.DeepEqual(b.Removed, []string{"generated_artifacts/env_vars.json"}) || len(b.Files) != 3 {
		t.Fatalf("bundle %+v", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated_artifacts", "env_vars.json")); !os.IsNotExist(err) {
		t.Fatalf("env_vars.json left: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "databricks.yml"))
	if string(after) != string(before) {
		t.Fatalf("databricks.yml changed:\n%s\n---\n%s", before, after)
	}
}

func TestWriteBundleErrors(t *testing.T) {
	dir := t.TempDir()
	// A field a bundle cannot express (EUNSUPPORTED here is no missing module).
	_, err := loadIn(t, dir, minimalYAML+"usage_policy_name: team\n").WriteBundle(dir, nil)
	var e *air.Error
	if !errors.As(err, &e) || e.Code != air.EUNSUPPORTED || e.Field != "usage_policy_name" {
		t.Fatalf("usage_policy_name: %v", err)
	}
	// The code source's root must lie inside the output directory.
	if err := os.Mkdir(filepath.Join(dir, "code"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := loadIn(t, dir, minimalYAML+"code_source: {root_path: code}\n")
	_, err = cfg.WriteBundle(t.TempDir(), nil)
	if e := airErr(t, err, air.EINVAL); e.Field != "code_source.root_path" {
		t.Fatalf("field %q: %v", e.Field, err)
	}
	// Not validated.
	parsed, err := air.ParseConfigBytes([]byte(minimalYAML), "p.yaml", dir)
	must(t, err)
	defer parsed.Close()
	_, err = parsed.WriteBundle(dir, nil)
	airErr(t, err, air.ECONFIG)
	// Closed.
	parsed.Close()
	if _, err := parsed.WriteBundle(dir, nil); !errors.Is(err, air.ErrClosed) {
		t.Fatalf("closed config: %v", err)
	}
}

// Config.CheckSubmission: what a submission checks without the workspace.
func TestCheckSubmission(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cfg := loadIn(t, dir, minimalYAML)
	must(t, cfg.CheckSubmission(ctx, nil))
	must(t, cfg.CheckSubmission(ctx, &air.SubmitOptions{IdempotencyKey: strings.Repeat("k", 64)}))
	err := cfg.CheckSubmission(ctx, &air.SubmitOptions{IdempotencyKey: strings.Repeat("\u00e9", 40)})
	if e := airErr(t, err, air.EINVAL); e.Field != "idempotency_key" ||
		!strings.Contains(e.Message, "80 bytes long") {
		t.Fatalf("error %+v", e)
	}
	cfg = loadIn(t, dir, minimalYAML+"code_source: {root_path: gone}\n")
	if e := airErr(t, cfg.CheckSubmission(ctx, nil), air.ESNAPSHOT); !strings.Contains(e.Message, "gone") {
		t.Fatalf("error %+v", e)
	}
	must(t, os.Mkdir(filepath.Join(dir, "gone"), 0o755))
	must(t, cfg.CheckSubmission(ctx, nil))
}
