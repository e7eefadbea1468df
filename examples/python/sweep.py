# %% [markdown]
# # A learning-rate sweep on AI Runtime
#
# Loads a workload and submits one run per point of a hyper-parameter grid
# with `Client.sweep()`: every variant is validated before anything is
# uploaded, and each carries an idempotency key derived from the sweep's base
# key and its point, so running the cell again never starts a run twice (and
# changing one point starts only that run). Then it follows the logs of the
# first run, waits for all of them and prints a results table.
#
# The workspace comes from DATABRICKS_HOST and DATABRICKS_TOKEN (or a
# ~/.databrickscfg profile). Run it as a script (`python3 sweep.py`) or cell
# by cell in Jupyter or VS Code. Ctrl-C (or "interrupt kernel") stops any
# cell at once; the runs already submitted go on, and the cell says how to
# stop them.

# %%
import contextlib
import sys
from typing import Iterator, Optional

import air

WORKLOAD = """\
experiment_name: lr-sweep
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
environment:
  version: 6
  dependencies: []
parameters:
  lr: 0.01
  batch_size: 16
# A stand-in for `python train.py --config "$HYPERPARAMETERS_PATH"`: it reads
# the variant's hyper-parameters and prints a falling loss.
command: |
  python3 - "$HYPERPARAMETERS_PATH" <<'PY'
  import sys
  params = dict(line.split(": ", 1) for line in open(sys.argv[1]).read().splitlines() if ": " in line)
  lr = float(params["lr"])
  for step in range(5):
      print("step %d loss %.4f" % (step, 2.0 / (1 + lr * 100 * step)), flush=True)
  PY
max_retries: 0
"""
SWEEP = "lr-sweep-1"  # the base key: change it to start a new sweep; the same finds the same runs

client = air.Client()
base = air.Config.loads(WORKLOAD, name="lr-sweep.yaml")
print(base.experiment_name, base.accelerator_type, base.num_accelerators)
sweep: Optional[air.Sweep] = None


@contextlib.contextmanager
def runs_keep_going() -> Iterator[None]:
    """Ctrl-C stops the cell, not the runs: say so, and how to stop them."""
    try:
        yield
    except KeyboardInterrupt as exc:
        done = sweep or getattr(exc, "sweep", None)
        ids = " ".join(str(i) for i in done.run_ids) if done else ""
        if ids:
            print("interrupted: runs %s keep going; `air cancel --sweep %s` stops them"
                  % (ids, SWEEP), file=sys.stderr)
        raise SystemExit(1) from None

# %% The grid: one run per point, each named after it ("lr-sweep lr=0.001 batch_size=16")
with runs_keep_going():
    sweep = client.sweep(base, grid={"parameters.lr": [1e-3, 3e-4],
                                     "parameters.batch_size": [16, 32]},
                         base_key=SWEEP)
for v in sweep:
    print("run %s: %s  %s" % (v.run_id, v.run_name, v.dashboard_url))
if sweep.failed:
    for v in sweep.failed:
        print("not submitted: %s: %s" % (v.run_name, v.error), file=sys.stderr)

# %% Follow the first run's logs (until it ends)
with runs_keep_going():
    for rec in sweep[0].logs(tail=20):
        print("[node %d] %s" % (rec.node, rec.line))

# %% Wait for every run: one row per variant (pandas.DataFrame(results) works too)
with runs_keep_going():
    results = sweep.results(timeout=6 * 3600)

# %% Results
print("%-8s %-6s %-10s %-10s %s" % ("lr", "batch", "run", "state", "duration"))
for row in results:
    print("%-8g %-6d %-10s %-10s %s" % (row["parameters.lr"], row["parameters.batch_size"],
                                         row["run_id"], row["state"],
                                         "-" if row["duration"] is None else row["duration"]))
ok = sum(1 for row in results if row["succeeded"])
print("%d of %d runs succeeded" % (ok, len(results)))
