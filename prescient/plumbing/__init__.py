"""The DVC and Hydra plumbing around the library: params composition from ``conf/``, file
locations, the stage harness, the derivation of the stages' code dependencies, daily
updates, the remote, the lock file and the command line (``python -m prescient``).

The library (``prescient/`` outside this package) imports neither DVC nor Hydra; what
it needs from them (DVC's cache directory, composed params) is passed in from here.
"""
