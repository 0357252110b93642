"""The `cupcake test` runner (OPA's `opa test` semantics, docs/testing.md), one module per step:

- `cases`: what a run is made of (TestCase, TestResult, TestRun, TestOptions, TestSetupError);
- `loading`: the Rego files and data files of the paths, parsed; the `test_*` rules found;
- `data`: data documents mounted as OPA's loader mounts them;
- `build`: the tests compiled (compile → plan → WASM), split when one module is too much;
- `parts`: a chunk's compiled modules reused across runs when what it depends on is unchanged;
- `workers`: a large first run built and evaluated in forked processes;
- `cache`: the build cache on disk (one entry per content hash of sources, options, compiler);
- `evaluate`: the tests run by the wasmtime host, spread over processes when slow;
- `diagnose`: for a failing test, the first expression that did not hold and its values;
- `output`: text, JSON and coverage reports in `opa test`'s formats;
- `runner`: `run_tests`, the orchestration of the above.

This package re-exports nothing: import the module that does the step.
"""
