"""Foundations every layer may import: error types (`errors`), records without dataclasses (`record`),
data classes declared like dataclasses but without code generated at import (`slotted`: the compiler's nodes),
strict JSON (`jsonio`), logging (`logs`, `lazylog`), the user's directories (`userdirs`), Rego values
(`values`), YAML as OPA reads it (`yaml_values`), cache MACs (`cache_mac`), the GC pause for builds
(`gc_pause`), room on the stack for deeply nested Rego (`deep_stack`) and termination signals turned
into a fail-closed answer (`termination`).

The lowest layer: its modules import nothing of cupcake_py above it, and the ones on the `cupcake eval`
path keep to that path's rules (docs/architecture.md section 6). Importing this package imports nothing.
"""
