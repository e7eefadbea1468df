package air_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"libair/air"
)

// workload is a small workload YAML file (see docs/workload-yaml.md).
const workload = `experiment_name: mnist
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
command: python train.py
`

// submitted submits workload and returns the run id, for the examples that
// start from a run.
func submitted(client *air.Client, overrides ...string) int64 {
	cfg, err := air.LoadConfigBytes([]byte(workload), "train.yaml", "", overrides...)
	if err != nil {
		log.Fatal(err)
	}
	defer cfg.Close()
	sub, err := client.Submit(context.Background(), cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	return sub.RunID
}

// Submit a workload file, wait for its run to end and print the result.
func Example() {
	ctx := context.Background()
	// The workspace and credentials come from DATABRICKS_HOST and
	// DATABRICKS_TOKEN (or a ~/.databrickscfg profile).
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	cfg, err := air.LoadConfigBytes([]byte(workload), "train.yaml", "")
	if err != nil {
		log.Fatal(err)
	}
	defer cfg.Close()
	sub, err := client.Submit(ctx, cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	run, err := client.Wait(ctx, sub.RunID, &air.WaitOptions{PollInterval: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Name, run.State, run.Accelerators)
	// Output: mnist SUCCESS 1x A10
}

// Configure a client explicitly instead of from the environment.
func ExampleNewClient() {
	client, err := air.NewClient(&air.ClientOptions{
		Host:              os.Getenv("DATABRICKS_HOST"),
		Token:             os.Getenv("DATABRICKS_TOKEN"),
		IgnoreEnvironment: true,
		RetryDeadline:     30 * time.Second,
		UserAgentSuffix:   "example/1.0",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	if err := client.Resolve(ctx); err != nil {
		log.Fatal(err)
	}
	user, err := client.CurrentUser(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.AuthType(), user)
	// Output: pat tester@databricks.com
}

// Submit with a progress callback and an idempotency key: submitting again
// with the same key returns the same run instead of starting a second one.
func ExampleClient_Submit() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	cfg, err := air.LoadConfigBytes([]byte(workload), "train.yaml", "", "compute.num_accelerators=1")
	if err != nil {
		log.Fatal(err)
	}
	defer cfg.Close()

	var phases []air.Phase
	opts := &air.SubmitOptions{
		IdempotencyKey: "mnist-2024-06-01",
		OnProgress: func(p air.Progress) error {
			if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
				phases = append(phases, p.Phase)
			}
			return nil
		},
	}
	sub, err := client.Submit(context.Background(), cfg, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(phases)
	again, err := client.Submit(context.Background(), cfg, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sub.IdempotencyToken, again.RunID == sub.RunID)
	// Output:
	// [IDENTITY PREFLIGHT DIRECTORY ARTIFACTS SUBMIT DONE]
	// mnist-2024-06-01 true
}

// Read a run's logs with an iterator; for an active run Next waits for new
// lines until the run ends.
func ExampleClient_Logs() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	runID := submitted(client)

	it := client.Logs(context.Background(), runID, nil)
	defer it.Close()
	for it.Next() {
		fmt.Println(it.Record().Line)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(it.Summary().Records, "lines, run", it.Summary().State)
	// Output:
	// node 0 step 0
	// node 0 step 1
	// node 0 step 2
	// 3 lines, run SUCCESS
}

// Stream a run's logs to a callback; returning an error from it (here
// ErrStop) stops the stream.
func ExampleClient_StreamLogs() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	runID := submitted(client)

	_, err = client.StreamLogs(context.Background(), runID, nil, func(r air.LogRecord) error {
		fmt.Println(r.Line)
		if r.Line == "node 0 step 1" {
			return air.ErrStop
		}
		return nil
	})
	fmt.Println(errors.Is(err, air.ErrStop))
	// Output:
	// node 0 step 0
	// node 0 step 1
	// true
}

// Wait for a run to end, watching its state changes.
func ExampleClient_Wait() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	runID := submitted(client)

	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	run, err := client.Wait(ctx, runID, &air.WaitOptions{
		PollInterval: 10 * time.Second,
		OnState: func(r *air.Run) error {
			fmt.Println("state:", r.State)
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.State.IsTerminal(), run.Succeeded, !run.EndTime.IsZero())
	// Output:
	// state: SUCCESS
	// true true true
}

// Read a run with its MLflow ids.
func ExampleClient_GetRun() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	runID := submitted(client)

	run, err := client.GetRun(context.Background(), runID, &air.GetOptions{MLflow: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.ExperimentName, run.State, run.AcceleratorType, run.MLflowRunID != "")
	// Output: mnist SUCCESS GPU_1xA10 true
}

// A context bounds every call: past its deadline the call returns at once
// with an error that wraps context.DeadlineExceeded.
func ExampleClient_GetRun_deadline() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	_, err = client.GetRun(ctx, 42, nil)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output: true
}

// List finished and active runs of one experiment, newest first.
func ExampleClient_ListRuns() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	first := submitted(client, "experiment_name=listed")
	second := submitted(client, "experiment_name=listed")

	it := client.ListRuns(context.Background(), &air.ListOptions{
		AllStatus: true,
		Filters:   []string{"experiment=listed"},
	})
	defer it.Close()
	for it.Next() {
		r := it.Run()
		fmt.Println(r.ID == second, r.ID == first, r.ExperimentName, r.State)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// true false listed SUCCESS
	// false true listed SUCCESS
}

// Errors carry libair's details; status codes work with errors.Is.
func ExampleClient_CancelRun() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	err = client.CancelRun(context.Background(), 987654321)
	var e *air.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, e.HTTPStatus, errors.Is(err, air.ENOTFOUND))
	}
	// Output: NOT_FOUND 400 true
}

// Register a legacy container image (environment.docker_image) and wait
// until the workspace has it. A private registry's credentials are found in
// the local Docker configuration; this image is public, so discovery is off.
func ExampleClient_RegisterImage() {
	client, err := air.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	reg, err := client.RegisterImage(ctx, "ubuntu:22.04", &air.RegisterImageOptions{
		PollInterval: 10 * time.Second,
		NoDiscover:   true,
	})
	if errors.Is(err, air.ETIMEOUT) {
		log.Fatal("still importing; try again later: ", err)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reg.URL, reg.Status, reg.ImageUpdated)
	// Output: docker.io/library/ubuntu:22.04 AVAILABLE true
}

// Turn a workload into a bundle for `databricks bundle deploy`, to run it
// as a persistent job.
func ExampleConfig_WriteBundle() {
	dir, err := os.MkdirTemp("", "bundle-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg, err := air.LoadConfigBytes([]byte(workload), "train.yaml", dir)
	if err != nil {
		log.Fatal(err)
	}
	defer cfg.Close()
	bundle, err := cfg.WriteBundle(dir, nil) // BundleOptions.Force overwrites an earlier bundle
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("databricks bundle run", bundle.JobKey)
	for _, f := range bundle.Files {
		fmt.Println(f)
	}
	// Output:
	// databricks bundle run mnist
	// databricks.yml
	// generated_artifacts/training_config.yaml
	// generated_artifacts/command.sh
}

// A workload is validated offline; an invalid one names the field and its
// position.
func ExampleLoadConfigBytes() {
	cfg, err := air.LoadConfigBytes([]byte(workload), "train.yaml", "",
		"compute.accelerator_type=GPU_8xH100", "compute.num_accelerators=16")
	if err != nil {
		log.Fatal(err)
	}
	defer cfg.Close()
	fmt.Println(cfg.AcceleratorType(), cfg.NumAccelerators(), cfg.NumNodes())

	_, err = air.LoadConfigBytes([]byte(workload), "train.yaml", "", "compute.num_accelerators=0")
	var e *air.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, e.Field)
	}
	// Output:
	// GPU_8xH100 16 2
	// INVALID_CONFIG compute.num_accelerators
}

// Describe a field of the workload schema, as a help text would.
func ExampleLookupField() {
	f, err := air.LookupField("max_retries")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Name, f.Type, f.Default, f.Required)
	// Output: max_retries int 3 false
}
