"""DVC and Hydra plumbing: params composition, locations, the stage harness, DAG derivation, updates, remotes, lock files and the command lines."""
