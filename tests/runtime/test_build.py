"""runtime.wasm: reproducible build, imports and exports."""

from __future__ import annotations

import wasmtime

from cupcake_py.wasm.runtime import RUNTIME_WASM_PATH, build, load_runtime_bytes

ABI_EXPORTS = {
    "opa_malloc", "opa_free", "opa_json_parse", "opa_value_parse", "opa_json_dump", "opa_value_dump",
    "opa_heap_ptr_get", "opa_heap_ptr_set", "opa_value_add_path", "opa_value_remove_path", "opa_value_free",
    "opa_heap_blocks_stash", "opa_heap_blocks_restore", "opa_heap_stash_clear", "opa_eval_ctx_new",
    "opa_eval_ctx_set_input", "opa_eval_ctx_set_data", "opa_eval_ctx_set_entrypoint",
    "opa_eval_ctx_get_result", "opa_eval",
}
CODEGEN_EXPORTS = {
    "opa_rt_init", "opa_mapping_lookup", "opa_memoize_init", "opa_memoize_push", "opa_memoize_pop",
    "opa_memoize_insert", "opa_memoize_get", "opa_runtime_error", "opa_value_get", "opa_value_compare",
    "opa_value_iter", "opa_value_type", "opa_value_length", "opa_number_size", "opa_value_number_set_int",
    "opa_null", "opa_boolean", "opa_number_int", "opa_number_ref", "opa_array_with_cap", "opa_object",
    "opa_set", "opa_array_append", "opa_set_add", "opa_object_insert", "opa_value_merge",
    "opa_value_shallow_copy", "opa_string", "opa_value_key_at", "opa_value_value_at", "opa_value_is_string",
    "__heap_base",
}


def test_rebuild_is_byte_identical() -> None:
    """`make runtime-check`: the committed runtime.wasm matches its sources."""
    build.check()


def test_imports_and_exports() -> None:
    module = wasmtime.Module(wasmtime.Engine(), load_runtime_bytes())
    imports = {(i.module, i.name) for i in module.imports}
    assert imports <= {("env", "memory"), ("env", "opa_abort"), ("env", "gen_eval"), ("env", "opa_println")}
    assert {("env", "memory"), ("env", "opa_abort"), ("env", "gen_eval")} <= imports
    exports = {e.name for e in module.exports}
    assert ABI_EXPORTS | CODEGEN_EXPORTS <= exports
    assert RUNTIME_WASM_PATH.name == "runtime.wasm"


def test_compiles_without_post_mvp_features() -> None:
    """The runtime is built with -mcpu=mvp: an engine with the post-MVP
    proposals switched off must accept it (a hand-written linker only has to
    understand MVP instructions). Order matters: dependants go first, and
    reference types stay on (wasmtime's component model needs them)."""
    config = wasmtime.Config()
    for feature in ("gc", "function_references", "exceptions", "stack_switching", "relaxed_simd", "simd",
                    "bulk_memory", "multi_value", "threads", "tail_call", "multi_memory", "memory64",
                    "wide_arithmetic"):
        setattr(config, f"wasm_{feature}", False)
    wasmtime.Module(wasmtime.Engine(config), load_runtime_bytes())


def _section_ids(data: bytes) -> list[int]:
    ids, i = [], 8
    while i < len(data):
        ids.append(data[i])
        size, shift, i = 0, 0, i + 1
        while True:
            b = data[i]
            i += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        i += size
    return ids


def test_no_function_table() -> None:
    """No function pointers: a table would keep every element alive in the
    linker's tree shaking, and call_indirect is reserved for CallDynamic."""
    ids = _section_ids(load_runtime_bytes())
    assert 10 in ids  # parsed the sections correctly: there is code
    assert 4 not in ids and 9 not in ids  # no table, no element segments
    assert 5 not in ids  # no own memory: it is imported
