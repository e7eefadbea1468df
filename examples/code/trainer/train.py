"""Minimal distributed training entry point used by the examples.

torchrun sets RANK/WORLD_SIZE for each process; the platform sets NUM_NODES,
NODE_RANK, MASTER_ADDR and HYPERPARAMETERS_PATH on every node.
"""
import argparse
import os


def load_params(path):
    if not path or not os.path.exists(path):
        return {}
    import yaml  # PyYAML is part of the runtime's ML stack

    with open(path) as f:
        return yaml.safe_load(f) or {}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=os.environ.get("HYPERPARAMETERS_PATH"))
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    params = load_params(args.config)
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if rank == 0:
        print(f"training on {world} processes, node {os.environ.get('NODE_RANK', '0')} "
              f"of {os.environ.get('NUM_NODES', '1')}, params: {params}")
    for step in range(args.steps):
        if rank == 0 and step % 10 == 0:
            print(f"step {step}")


if __name__ == "__main__":
    main()
