"""Example fine-tuning entry point: reads a static config and the run's
hyperparameters ($HYPERPARAMETERS_PATH, the `parameters` block)."""
import argparse

import yaml


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--params", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        config = yaml.safe_load(f)
    with open(args.params) as f:
        params = yaml.safe_load(f)
    print(f"fine-tuning {config['base_model']} for {params['epochs']} epochs "
          f"at lr={params['learning_rate']} (LoRA r={params['lora']['r']})")


if __name__ == "__main__":
    main()
