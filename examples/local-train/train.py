"""A stand-in for a training script: reads its hyper-parameters from
$HYPERPARAMETERS_PATH, prints training-like progress and logs its loss as an
MLflow metric (`air metrics RUN_ID` draws it). Standard library only, so
that it runs anywhere python3 does: with the mlflow package it logs through
it; without it, in a local workspace (MLFLOW_TRACKING_URI=file://...), it
appends the points to the run's metrics file itself, in MLflow's file store
format ("<timestamp ms> <value> <step>" per line)."""
import math
import os
import time
import urllib.parse


def read_parameters(path):
    """The flat `name: value` lines of hyperparameters.yaml (a real script
    would use yaml.safe_load)."""
    params = {}
    with open(path) as f:
        for line in f:
            name, sep, value = line.partition(":")
            if not sep or line.startswith((" ", "#")):
                continue
            value = value.strip()
            try:
                params[name.strip()] = int(value)
            except ValueError:
                try:
                    params[name.strip()] = float(value)
                except ValueError:
                    params[name.strip()] = value
    return params


class Metrics:
    """mlflow.log_metric() when the mlflow package is there, else the file
    store of a file: tracking URI, else nothing."""

    def __init__(self):
        self.mlflow = None
        self.dir = None
        try:
            import mlflow  # noqa: F401  (on Databricks: the platform's MLflow run)
            self.mlflow = mlflow
            return
        except ImportError:
            pass
        uri = urllib.parse.urlparse(os.environ.get("MLFLOW_TRACKING_URI", ""))
        exp, run = os.environ.get("MLFLOW_EXPERIMENT_ID"), os.environ.get("MLFLOW_RUN_ID")
        if uri.scheme == "file" and exp and run:
            self.dir = os.path.join(urllib.parse.unquote(uri.path), exp, run, "metrics")

    def log(self, key, value, step):
        if self.mlflow is not None:
            self.mlflow.log_metric(key, value, step=step)
        elif self.dir is not None:
            path = os.path.join(self.dir, key)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a") as f:
                f.write("%d %r %d\n" % (int(time.time() * 1000), value, step))


def main():
    params = read_parameters(os.environ["HYPERPARAMETERS_PATH"])
    epochs = int(params.get("epochs", 1))
    steps = int(params.get("steps_per_epoch", 10))
    lr = float(params.get("learning_rate", 0.01))
    every = int(os.environ.get("LOG_EVERY", "1"))
    rank, nodes = os.environ.get("NODE_RANK", "0"), os.environ.get("NUM_NODES", "1")
    gpus = os.environ.get("CUDA_VISIBLE_DEVICES") or "none (CPU)"
    print(f"node {rank} of {nodes}, GPUs: {gpus}, MLflow run {os.environ.get('MLFLOW_RUN_ID')}",
          flush=True)
    print(f"hyper-parameters: epochs={epochs} steps_per_epoch={steps} learning_rate={lr}",
          flush=True)
    metrics = Metrics()
    loss = 2.5
    for epoch in range(1, epochs + 1):
        for step in range(1, steps + 1):
            loss *= math.exp(-lr * 2)
            time.sleep(0.1)
            if rank == "0":
                metrics.log("loss", loss, (epoch - 1) * steps + step)
            if step % every == 0:
                print(f"epoch {epoch}/{epochs} step {step}/{steps} loss {loss:.4f}", flush=True)
        print(f"epoch {epoch} done: loss {loss:.4f}", flush=True)
    print(f"training finished: final loss {loss:.4f}", flush=True)


if __name__ == "__main__":
    main()
