// Command watch submits a workload file, follows the logs of its node 0 until
// the run ends and exits 0 only if it succeeded: `air run -f FILE --watch` in
// a page of Go.
//
//	go run ./watch train.yaml [PATH=VALUE ...]
//
// The workspace and credentials come from DATABRICKS_HOST and
// DATABRICKS_TOKEN (or a ~/.databrickscfg profile); AIR_IDEMPOTENCY_KEY, when
// set, makes running it again attach to the same run. Ctrl-C stops following
// at once; the run goes on, and the program says how to stop it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"libair/air"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: watch WORKLOAD.yaml [PATH=VALUE ...]")
		os.Exit(2)
	}
	// The context ends on Ctrl-C: every call below returns promptly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var runID int64 // set once the run is submitted
	if err := run(ctx, os.Args[1], os.Args[2:], &runID); err != nil {
		if !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "watch:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "watch: interrupted")
		if runID != 0 { // Ctrl-C stopped the watching, not the run
			fmt.Fprintf(os.Stderr, "run %d keeps going; `air cancel %d` stops it\n", runID, runID)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, path string, overrides []string, runID *int64) error {
	cfg, err := air.LoadConfig(path, overrides...)
	if err != nil {
		return err // names the file, line, column and field
	}
	defer cfg.Close()

	client, err := air.NewClient(nil)
	if err != nil {
		return err
	}
	defer client.Close()

	sub, err := client.Submit(ctx, cfg, &air.SubmitOptions{
		IdempotencyKey: os.Getenv("AIR_IDEMPOTENCY_KEY"),
		OnProgress: func(p air.Progress) error {
			if p.BytesDone == 0 { // a phase starts (uploads also report bytes)
				fmt.Fprintln(os.Stderr, p.Phase, p.Detail)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	*runID = sub.RunID
	fmt.Printf("run %d: %s\n", sub.RunID, sub.DashboardURL)

	logs := client.Logs(ctx, sub.RunID, &air.LogsOptions{
		OnStatus: func(current, previous string) error {
			fmt.Fprintf(os.Stderr, "status: %s\n", current)
			return nil
		},
	})
	defer logs.Close()
	for logs.Next() {
		fmt.Println(logs.Record().Line)
	}
	if err := logs.Err(); err != nil {
		return err
	}
	sum := logs.Summary()
	fmt.Printf("run %d ended %s\n", sub.RunID, sum.StateName)
	if !sum.Succeeded {
		return fmt.Errorf("run %d did not succeed (%s)", sub.RunID, sum.StateName)
	}
	return nil
}
