package airtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"libair/air"
)

func loadMinimal(t *testing.T, overrides ...string) *air.Config {
	t.Helper()
	c, err := air.LoadConfigBytes([]byte(minimalYAML), "mini.yaml", "", overrides...)
	must(t, err)
	t.Cleanup(c.Close)
	return c
}

func TestConfigLoad(t *testing.T) {
	c := loadMinimal(t)
	if !c.IsValid() || c.ExperimentName() != "bindings-test" || c.Command() != "python train.py" {
		t.Fatalf("values: valid=%v name=%q command=%q", c.IsValid(), c.ExperimentName(), c.Command())
	}
	if c.AcceleratorType() != "GPU_1xA10" || c.NumAccelerators() != 1 || c.NumNodes() != 1 {
		t.Fatalf("compute: %q %d %d", c.AcceleratorType(), c.NumAccelerators(), c.NumNodes())
	}
	if c.MaxRetries() != 3 || c.CodeSourceForm() != air.CodeSourceNone || c.SourceName() != "mini.yaml" {
		t.Fatalf("defaults: %d %d %q", c.MaxRetries(), c.CodeSourceForm(), c.SourceName())
	}
	if c.IsSet("max_retries") || !c.IsSet("compute.accelerator_type") {
		t.Fatalf("IsSet: max_retries=%v accelerator_type=%v", c.IsSet("max_retries"), c.IsSet("compute.accelerator_type"))
	}
	if string(c.SourceBytes()) != minimalYAML {
		t.Fatalf("source bytes %q", c.SourceBytes())
	}
	js, err := c.JSON()
	must(t, err)
	if !strings.Contains(js, `"bindings-test"`) {
		t.Fatalf("json %s", js)
	}
}

func TestConfigOverrides(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.yaml")
	if err := os.WriteFile(path, []byte(minimalYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := air.LoadConfig(path, "compute.accelerator_type=GPU_8xH100", "compute.num_accelerators=16")
	must(t, err)
	defer c.Close()
	if c.NumNodes() != 2 || c.SourceName() != path {
		t.Fatalf("nodes %d source %q", c.NumNodes(), c.SourceName())
	}
	ch := c.Changes()
	if len(ch) != 2 || ch[1].Path != "compute.num_accelerators" || ch[1].Old == nil || *ch[1].Old != "1" || ch[1].New != "16" {
		t.Fatalf("changes %+v", ch)
	}
	must(t, c.Override("experiment_name=other"))
	if c.IsValid() {
		t.Fatal("valid after override")
	}
	must(t, c.Validate())
	if c.ExperimentName() != "other" {
		t.Fatalf("name %q", c.ExperimentName())
	}
	err = c.Override("compute.bogus=1")
	e := airErr(t, err, air.ECONFIG)
	if e.Kind != air.KindInvalidConfig || !strings.Contains(e.Error(), "bogus") {
		t.Fatalf("error %+v", e)
	}
	if len(c.Changes()) != 3 {
		t.Fatalf("failed override recorded: %+v", c.Changes())
	}
}

func TestConfigValidationError(t *testing.T) {
	bad := strings.Replace(minimalYAML, "num_accelerators: 1", `num_accelerators: "8"`, 1)
	_, err := air.LoadConfigBytes([]byte(bad), "bad.yaml", "")
	e := airErr(t, err, air.ECONFIG)
	if e.Field != "compute.num_accelerators" || e.File != "bad.yaml" || e.Line != 4 || e.Column == 0 {
		t.Fatalf("position: %+v", e)
	}
	if e.Kind != air.KindInvalidConfig || e.Retryable || e.HTTPStatus != 0 {
		t.Fatalf("classification: %+v", e)
	}
	if !strings.Contains(e.Error(), "bad.yaml:4:") {
		t.Fatalf("message %q", e.Error())
	}
	_, err = air.LoadConfig("/nonexistent/train.yaml")
	airErr(t, err, air.EIO)
}

func TestConfigExamples(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(sourceRoot(t), "examples", "*.yaml"))
	if len(paths) == 0 {
		t.Skip("no examples/*.yaml yet")
	}
	for _, p := range paths {
		c, err := air.LoadConfig(p)
		must(t, err)
		if !c.IsValid() || c.ExperimentName() == "" || c.NumAccelerators() <= 0 {
			t.Errorf("%s: valid=%v name=%q", p, c.IsValid(), c.ExperimentName())
		}
		c.Close()
	}
}

func TestSchemaLookup(t *testing.T) {
	f, err := air.LookupField("config.compute")
	must(t, err)
	var names []string
	for _, ch := range f.Children {
		names = append(names, ch.Name)
	}
	if f.Kind != air.FieldObject || !strings.Contains(strings.Join(names, " "), "num_accelerators") {
		t.Fatalf("compute %+v children %v", f, names)
	}
	f, err = air.LookupField("max_retries")
	must(t, err)
	if f.Kind != air.FieldInt || f.Type != "int" || !f.HasDefault || f.Default != "3" || f.Required || f.Description == "" {
		t.Fatalf("max_retries %+v", f)
	}
	root := air.SchemaRoot()
	if root.Name != "config" || len(root.Children) == 0 {
		t.Fatalf("root %+v", root)
	}
	_, err = air.LookupField("compute.acelerator_type")
	e := airErr(t, err, air.ECONFIG)
	if e.Suggestion != "accelerator_type" || e.Field == "" {
		t.Fatalf("no suggestion: %+v", e)
	}
	if air.AcceleratorGPUsPerNode("GPU_8xH100") != 8 || air.AcceleratorDisplayName("GPU_8xH100") != "H100" {
		t.Fatal("accelerator table")
	}
}

func TestConfigClose(t *testing.T) {
	c := loadMinimal(t)
	c.Close()
	c.Close()
	if c.ExperimentName() != "" {
		t.Fatal("value after Close")
	}
	if err := c.Validate(); !errors.Is(err, air.ErrClosed) {
		t.Fatalf("Validate after Close: %v", err)
	}
}
