package airtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFreshModule is what a Go service author does: a new module outside
// the source tree requires the binding as docs/go.md says (require plus a
// replace to the source tree), is built with PKG_CONFIG_PATH as the only
// setting of libair (no CGO_CFLAGS, CGO_LDFLAGS or LD_LIBRARY_PATH; the go
// tool offline: GOPROXY=off, GOFLAGS=-mod=mod, a new GOCACHE), and its
// program runs against the fake workspace, as does the first program of
// docs/go.md. From that module it then runs
// the binding's examples and this package's context tests, under
// GODEBUG=cgocheck=2.
func TestFreshModule(t *testing.T) {
	if why := os.Getenv("AIR_GO_SKIP_FRESH_MODULE"); why != "" {
		t.Skipf("skipped: %s", why)
	}
	goTool := os.Getenv("GO")
	if goTool == "" {
		var err error
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool")
		}
	}
	src := sourceRoot(t)
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/config", map[string]interface{}{"auto_logs": 3}, nil)
	dir := t.TempDir()
	mod := filepath.Join(dir, "app")
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), fmt.Sprintf(`module example.com/app

go 1.19

require (
	libair/air v0.0.0
	libair/air/tests v0.0.0
)

replace libair/air => %s

replace libair/air/tests => %s
`, filepath.Join(src, "bindings", "go"), filepath.Join(src, "tests", "bindings", "go")))
	write(filepath.Join(mod, "main.go"), freshProgram)

	// The environment of a machine with nothing set up but PKG_CONFIG_PATH.
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir}
	build := append(base, "GOCACHE="+filepath.Join(dir, "gocache"), "GOPATH="+filepath.Join(dir, "gopath"),
		"GOPROXY=off", "GOFLAGS=-mod=mod", "GOSUMDB=off", "GO111MODULE=on", "CGO_ENABLED=1",
		"PKG_CONFIG_PATH="+os.Getenv("PKG_CONFIG_PATH"))
	// A build tree's .pc gives its run path; a .pc without one (a prefix
	// outside the loader's path) needs the linker flag of docs/go.md.
	var flags []string
	if dirs := libDirsWithoutRunPath(t, build); len(dirs) > 0 {
		flags = []string{"-ldflags=-r " + strings.Join(dirs, ":")}
		t.Logf("libair.pc has no run path: building with %s", flags[0])
	}
	run := append(base, "DATABRICKS_HOST="+fw.URL, "DATABRICKS_TOKEN=dapi-test",
		"DATABRICKS_CONFIG_FILE="+filepath.Join(dir, "none"), "GODEBUG=cgocheck=2",
		"AIR_SOURCE_ROOT="+src, "FAKEWS_PY="+os.Getenv("FAKEWS_PY"), "PYTHON="+os.Getenv("PYTHON"))
	if p := os.Getenv("LD_PRELOAD"); p != "" { // sanitizer builds: for the programs, not the go tool
		run = append(run, "LD_PRELOAD="+p, "ASAN_OPTIONS="+os.Getenv("ASAN_OPTIONS"))
	}
	sh := func(env []string, cwd string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, cwd
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	sh(build, mod, goTool, append(append([]string{"build"}, flags...), "-o", "app", ".")...)
	if out := sh(run, mod, "./app"); out != "node 0 step 0\nnode 0 step 1\nnode 0 step 2\nSUCCESS true\n" {
		t.Fatalf("program output %q", out)
	}

	// The first program of docs/go.md, as the page shows it, with a
	// train.yaml in its directory.
	page, err := os.ReadFile(filepath.Join(src, "docs", "go.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile("(?s)## The first lines.*?\n```go\n(.*?)\n```").FindSubmatch(page)
	if first == nil {
		t.Fatal("docs/go.md: no Go block under \"The first lines\"")
	}
	docs := filepath.Join(mod, "docsprogram")
	write(filepath.Join(docs, "main.go"), string(first[1])+"\n")
	write(filepath.Join(docs, "train.yaml"), "experiment_name: train\ncommand: python train.py\n"+
		"compute: {accelerator_type: GPU_8xH100, num_accelerators: 8}\n")
	sh(build, mod, goTool, append(append([]string{"build"}, flags...), "-o", "docsprogram/train",
		"./docsprogram")...)
	if out := sh(run, docs, "./train"); out != "node 0 step 0\nnode 0 step 1\nnode 0 step 2\nrun ended: SUCCESS\n" {
		t.Fatalf("docs/go.md's program printed %q", out)
	}

	// The examples, from the binding's directory as go test would run them.
	sh(build, mod, goTool, append(append([]string{"test", "-c"}, flags...), "-o", "examples.test", "libair/air")...)
	out := sh(run, filepath.Join(src, "bindings", "go"), filepath.Join(mod, "examples.test"), "-test.v", "-test.count=1")
	b, err := os.ReadFile(filepath.Join(src, "bindings", "go", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`(?m)^func (Example\w*)\(`).FindAllStringSubmatch(string(b), -1)
	for _, n := range names {
		if !strings.Contains(out, "--- PASS: "+n[1]+" ") {
			t.Errorf("example %s did not pass:\n%s", n[1], out)
		}
	}
	if len(names) < 8 {
		t.Errorf("only %d examples", len(names))
	}

	// The context tests, one per network call.
	sh(build, mod, goTool, append(append([]string{"test", "-c"}, flags...), "-o", "ctx.test", "libair/air/tests")...)
	out = sh(run, mod, filepath.Join(mod, "ctx.test"), "-test.v", "-test.count=1", "-test.run", "^TestContext")
	if n := strings.Count(out, "--- PASS: TestContextDeadline/"); n != len(ctxCases) ||
		strings.Contains(out, "--- FAIL") || strings.Contains(out, "--- SKIP") {
		t.Fatalf("%d of %d context tests passed:\n%s", n, len(ctxCases), out)
	}
}

// libDirsWithoutRunPath returns the -L directories of `pkg-config --libs
// libair` when it gives no run path, else nil.
func libDirsWithoutRunPath(t *testing.T, env []string) []string {
	cmd := exec.Command("pkg-config", "--libs", "libair")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pkg-config --libs libair: %v (PKG_CONFIG_PATH=%q)", err, os.Getenv("PKG_CONFIG_PATH"))
	}
	var dirs []string
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "-Wl,-rpath") || strings.HasPrefix(f, "-Wl,-R") {
			return nil
		}
		if strings.HasPrefix(f, "-L") {
			dirs = append(dirs, strings.TrimPrefix(f, "-L"))
		}
	}
	return dirs
}

// freshProgram is the service of TestFreshModule: it submits a workload,
// prints its logs and its final state, and checks that a context bounds a call.
const freshProgram = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"libair/air"
)

func main() {
	ctx := context.Background()
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	cfg, err := air.LoadConfigBytes([]byte("experiment_name: app\ncompute:\n  accelerator_type: GPU_1xA10\n  num_accelerators: 1\ncommand: python train.py\n"), "train.yaml", "")
	if err != nil {
		log.Fatal(err)
	}
	sub, err := client.Submit(ctx, cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	it := client.Logs(ctx, sub.RunID, nil)
	for it.Next() {
		fmt.Println(it.Record().Line)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	_, err = client.GetRun(short, sub.RunID, nil)
	fmt.Println(it.Summary().State, errors.Is(err, context.DeadlineExceeded))
}
`
