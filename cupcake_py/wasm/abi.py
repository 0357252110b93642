"""The one table of OPA WASM ABI names and numbers: generated code, the C runtime
(runtime.wasm, `runtime/include/opa.h`), the linker and the host all read it from here.

In: nothing (a leaf: it imports no module, so the host imports it on the `cupcake eval` path
for the price of one small module). Out: constants and `native_symbol`.
- Value types are WebAssembly text names ("i32", "i64"); the linker maps them to binary codes.
- `RUNTIME_CALLS`: runtime exports the generated code calls, with their parameter types and
  whether the generated code uses the result (a function whose result is unused may return
  one; it is dropped). `ABI_EXPORTS`: runtime functions re-exported unchanged under OPA ABI
  1.3 names. The linker checks the runtime against both tables.
- `HOST_IMPORTS`: every import a module may have (module "env") with its signature; the host
  provides exactly these and rejects anything else.
- `tests/wasm/test_abi_header.py` checks `opa.h` against this table (tags, exports, imports):
  a name added here without the C declaration, or the other way round, fails there.
Adding a runtime function the generated code calls: declare it `OPA_EXPORT` in opa.h and add
it to `RUNTIME_CALLS`. A native builtin needs no entry: it is found by `native_symbol` (or
`try_symbol` for one that may hand the call back to the host).
"""

from __future__ import annotations

ABI_VERSION = 1
ABI_MINOR_VERSION = 3
# i32 globals a module exports with the two numbers above
ABI_VERSION_GLOBAL = "opa_wasm_abi_version"
ABI_MINOR_VERSION_GLOBAL = "opa_wasm_abi_minor_version"

# name -> (params, result used)
RUNTIME_CALLS: dict[str, tuple[tuple[str, ...], bool]] = {
    "opa_rt_init": (("i32", "i32", "i32"), False),  # (heap_base, mapping_ptr, mapping_len)
    "opa_memoize_init": (("i32",), False),  # (number of plan functions: the root frame's size)
    "opa_memoize_push": ((), False),
    "opa_memoize_pop": ((), False),
    "opa_memoize_get": (("i32",), True),
    "opa_memoize_insert": (("i32", "i32"), False),
    "opa_runtime_error": (("i32", "i32", "i32", "i32"), False),  # (file cstr, row, col, msg cstr)
    "opa_mapping_lookup": (("i32",), True),
    "opa_value_compare": (("i32", "i32"), True),
    "opa_value_get": (("i32", "i32"), True),
    "opa_value_iter": (("i32", "i32"), True),
    "opa_value_key_at": (("i32", "i32"), True),
    "opa_value_value_at": (("i32", "i32"), True),
    "opa_value_is_string": (("i32", "i32", "i32"), True),
    "opa_value_type": (("i32",), True),
    "opa_value_length": (("i32",), True),
    "opa_value_merge": (("i32", "i32"), True),
    "opa_value_shallow_copy": (("i32",), True),
    "opa_value_number_set_int": (("i32", "i64"), False),
    "opa_number_size": (("i32",), True),
    "opa_number_int": (("i64",), True),
    "opa_number_ref": (("i32", "i32"), True),
    "opa_null": ((), True),
    "opa_array_with_cap": (("i32",), True),
    "opa_object": ((), True),
    "opa_set": ((), True),
    "opa_array_append": (("i32", "i32"), False),
    "opa_set_add": (("i32", "i32"), False),
    "opa_object_insert": (("i32", "i32", "i32"), False),
    "opa_regex_vm_match": (("i32", "i32"), True),  # (program, subject); see wasm/regex_call.py
}

# Runtime functions exported by the final module under the same name (OPA ABI 1.3).
ABI_EXPORTS: tuple[str, ...] = (
    "opa_eval_ctx_new",
    "opa_eval_ctx_set_input",
    "opa_eval_ctx_set_data",
    "opa_eval_ctx_set_entrypoint",
    "opa_eval_ctx_get_result",
    "opa_eval",
    "opa_malloc",
    "opa_free",
    "opa_json_parse",
    "opa_value_parse",
    "opa_json_dump",
    "opa_value_dump",
    "opa_heap_ptr_get",
    "opa_heap_ptr_set",
    "opa_value_add_path",
    "opa_value_remove_path",
    "opa_value_free",
    "opa_heap_blocks_stash",
    "opa_heap_blocks_restore",
    "opa_heap_stash_clear",
)
# cupcake's own exports beyond OPA's ABI, exported when the runtime has them (a host that does
# not know them ignores them): `opa_strict_builtin_errors_set(on)` makes the runtime's native
# builtins report errors instead of undefined (opa.h, STRICT BUILTIN ERRORS).
EXPORT_STRICT_BUILTIN_ERRORS = "opa_strict_builtin_errors_set"
EXTENSION_EXPORTS: tuple[str, ...] = (EXPORT_STRICT_BUILTIN_ERRORS,)
# Functions the generated code itself exports: evaluation and the two JSON tables.
EXPORT_EVAL, EXPORT_BUILTINS, EXPORT_ENTRYPOINTS = "eval", "builtins", "entrypoints"
GENERATED_EXPORTS: tuple[str, ...] = (EXPORT_EVAL, EXPORT_BUILTINS, EXPORT_ENTRYPOINTS)

# What the host calls. Every ABI 1.x module has REQUIRED_EXPORTS (the context path and host
# I/O); BUILTIN_IO_EXPORTS are needed only to call host builtins (argument/result conversion);
# the fast path `opa_eval` exists from ABI 1.2.
REQUIRED_EXPORTS: tuple[str, ...] = (
    *GENERATED_EXPORTS,
    "opa_eval_ctx_new", "opa_eval_ctx_set_input", "opa_eval_ctx_set_data",
    "opa_eval_ctx_set_entrypoint", "opa_eval_ctx_get_result",
    "opa_malloc", "opa_json_parse", "opa_json_dump", "opa_heap_ptr_get", "opa_heap_ptr_set",
)  # fmt: skip
BUILTIN_IO_EXPORTS: tuple[str, ...] = ("opa_value_dump", "opa_value_parse")
FAST_PATH_EXPORT = "opa_eval"
HOST_CALLED_EXPORTS = frozenset(REQUIRED_EXPORTS + BUILTIN_IO_EXPORTS + (FAST_PATH_EXPORT,) + EXTENSION_EXPORTS)

# Imports (module "env"). The runtime imports gen_eval (the generated `eval`, satisfied by
# the linker); the final module imports what HOST_IMPORTS lists.
IMPORT_MODULE = "env"
RUNTIME_IMPORT_EVAL = "gen_eval"
IMPORT_ABORT = "opa_abort"
IMPORT_PRINTLN = "opa_println"
IMPORT_MEMORY = "memory"
HOST_BUILTIN_IMPORTS: tuple[str, ...] = tuple(f"opa_builtin{n}" for n in range(5))
MAX_BUILTIN_ARGS = len(HOST_BUILTIN_IMPORTS) - 1
# function imports the host provides: name -> (params, results); memory is the one other import
HOST_IMPORTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    IMPORT_ABORT: (("i32",), ()),  # (msg cstr)
    IMPORT_PRINTLN: (("i32",), ()),  # (msg cstr)
    # (builtin id, context, args...) -> result value
    **{name: (("i32",) * (2 + n), ("i32",)) for n, name in enumerate(HOST_BUILTIN_IMPORTS)},
}
RUNTIME_IMPORT_EVAL_TYPE: tuple[tuple[str, ...], tuple[str, ...]] = (("i32",), ("i32",))  # (ctx) -> status

HEAP_BASE_EXPORT = "__heap_base"
NATIVE_BUILTIN_PREFIX = "opa_bi_"
NATIVE_TRY_PREFIX = "opa_bi_try_"

# Value type tags (first byte of every value; opa.h's OPA_NULL..OPA_SET).
TAG_NULL, TAG_BOOLEAN, TAG_NUMBER, TAG_STRING, TAG_ARRAY, TAG_OBJECT, TAG_SET = range(1, 8)
TAGS: dict[str, int] = {"NULL": TAG_NULL, "BOOLEAN": TAG_BOOLEAN, "NUMBER": TAG_NUMBER, "STRING": TAG_STRING,
                        "ARRAY": TAG_ARRAY, "OBJECT": TAG_OBJECT, "SET": TAG_SET}

# Number representations (opa.h's OPA_NUMBER_REPR_*) and the layout of opa_number_t that
# static numbers in the data segment follow: {u8 type @0, u8 repr @1, i64 @8}.
NUMBER_REPR_INT, NUMBER_REPR_REF = 1, 2

MSG_VAR_CONFLICT = "var assignment conflict"
MSG_OBJECT_CONFLICT = "object insert conflict"
MSG_ILLEGAL_ENTRYPOINT = "internal: illegal entrypoint id"


def native_symbol(builtin: str) -> str:
    """Runtime export implementing a builtin natively: ``internal.member_2`` → ``opa_bi_internal_member_2``."""
    return NATIVE_BUILTIN_PREFIX + builtin.replace(".", "_")


def try_symbol(builtin: str) -> str:
    """Runtime export handling a host builtin's common cases natively (NULL = "ask the host"):
    ``sprintf`` → ``opa_bi_try_sprintf`` (opa.h, NATIVE BUILTINS WITH A HOST FALLBACK)."""
    return NATIVE_TRY_PREFIX + builtin.replace(".", "_")
