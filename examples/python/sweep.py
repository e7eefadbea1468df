# %% [markdown]
# # A learning-rate sweep on AI Runtime
#
# Loads a workload, overrides a hyper-parameter grid, submits one run per
# point (each with an idempotency key: running the cell again never starts a
# run twice), follows the logs of the first run, waits for all of them and
# prints a results table.
#
# The workspace comes from DATABRICKS_HOST and DATABRICKS_TOKEN (or a
# ~/.databrickscfg profile). Run it as a script (`python3 sweep.py`) or cell
# by cell in Jupyter or VS Code. Ctrl-C (or "interrupt kernel") stops any
# cell at once; the runs already submitted go on, and the cell says how to
# stop them.

# %%
import contextlib
import sys
from typing import Dict, Iterator, List, Tuple

import air

WORKLOAD = """\
experiment_name: lr-sweep
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
environment:
  version: 6
  dependencies: [torch, numpy]
command: python train.py --lr $LR --batch-size $BATCH_SIZE
max_retries: 0
"""
SWEEP = "lr-sweep-1"  # change it to start a new sweep; the same name finds the same runs

client = air.Client()
base = air.Config.loads(WORKLOAD, name="lr-sweep.yaml")
print(base.experiment_name, base.accelerator_type, base.num_accelerators)
submissions: List[Tuple[Dict[str, float], air.Submission]] = []


@contextlib.contextmanager
def runs_keep_going() -> Iterator[None]:
    """Ctrl-C stops the cell, not the runs: say so, and how to stop them."""
    try:
        yield
    except KeyboardInterrupt:
        ids = " ".join(str(sub.run_id) for _, sub in submissions)
        if ids:
            print("interrupted: runs %s keep going; `air cancel %s` stops them" % (ids, ids),
                  file=sys.stderr)
        raise SystemExit(1) from None

# %% The grid: one run per point, parameters and environment overridden
grid: List[Dict[str, float]] = [{"lr": lr, "batch_size": bs}
                                for lr in (1e-3, 3e-4) for bs in (16, 32)]
submissions.clear()
with runs_keep_going():
    for i, point in enumerate(grid):
        with base.copy() as cfg:
            cfg.set("parameters", point)
            cfg.set("env_variables", {"LR": str(point["lr"]),
                                      "BATCH_SIZE": str(point["batch_size"])})
            cfg.validate()
            sub = client.submit(cfg, idempotency_key="%s-%d" % (SWEEP, i))
        submissions.append((point, sub))
        print("run %d: lr=%g batch_size=%d  %s" % (sub.run_id, point["lr"], point["batch_size"],
                                                   sub.dashboard_url))

# %% Follow the first run's logs (until it ends)
first = submissions[0][1]
with runs_keep_going():
    for rec in client.logs(first.run_id, tail=20):
        print("[node %d] %s" % (rec.node, rec.line))

# %% Wait for every run
with runs_keep_going():
    results = [(point, sub.wait(timeout=6 * 3600)) for point, sub in submissions]

# %% Results
print("%-8s %-6s %-10s %-10s %s" % ("lr", "batch", "run", "state", "duration"))
for point, run in results:
    print("%-8g %-6d %-10d %-10s %s" % (point["lr"], point["batch_size"], run.run_id,
                                         run.state.name, "-" if run.duration is None else run.duration))
failed = [run for _, run in results if run.state is not air.State.SUCCESS]
print("%d of %d runs succeeded" % (len(results) - len(failed), len(results)))
