"""The OpenCode example events (`harness/opencode/examples/`): the runner lives in
cupcake_py/harness/examples.py; these names default to the opencode harness."""

from __future__ import annotations

from cupcake_py.harness.examples import (
    GIT_ENV,
    Case,
    Outcome,
    config_home,
    cupcake_command,
    examples_dir,
    isolated_env,
    load_cases,
    materialize,
    prepare_configs,
    run_case,
    run_cases,
    run_eval,
    substitute,
)

__all__ = ["GIT_ENV", "Case", "Outcome", "config_home", "cupcake_command", "examples_dir", "isolated_env",
           "load_cases", "materialize", "prepare_configs", "run_case", "run_cases", "run_eval", "substitute"]
