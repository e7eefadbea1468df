"""A stand-in for a training script: reads its hyper-parameters from
$HYPERPARAMETERS_PATH and prints training-like progress. Standard library
only, so that it runs anywhere python3 does."""
import math
import os
import time


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
    loss = 2.5
    for epoch in range(1, epochs + 1):
        for step in range(1, steps + 1):
            loss *= math.exp(-lr * 2)
            time.sleep(0.1)
            if step % every == 0:
                print(f"epoch {epoch}/{epochs} step {step}/{steps} loss {loss:.4f}", flush=True)
        print(f"epoch {epoch} done: loss {loss:.4f}", flush=True)
    print(f"training finished: final loss {loss:.4f}", flush=True)


if __name__ == "__main__":
    main()
