"""The contract between generated code, the C runtime (runtime.wasm) and the host.

``RUNTIME_CALLS``: runtime exports the generated code calls, with their parameter types and
whether the generated code uses the result (a function whose result is unused may return
one; it is dropped). ``ABI_EXPORTS``: runtime functions re-exported unchanged under OPA ABI
1.3 names. The linker checks the runtime against both tables.
"""

from __future__ import annotations

from cupcake_py.wasm.module import I32, I64

ABI_VERSION = 1
ABI_MINOR_VERSION = 3

# name -> (params, result used)
RUNTIME_CALLS: dict[str, tuple[tuple[int, ...], bool]] = {
    "opa_rt_init": ((I32, I32, I32), False),  # (heap_base, mapping_ptr, mapping_len)
    "opa_memoize_init": ((), False),
    "opa_memoize_push": ((), False),
    "opa_memoize_pop": ((), False),
    "opa_memoize_get": ((I32,), True),
    "opa_memoize_insert": ((I32, I32), False),
    "opa_runtime_error": ((I32, I32, I32, I32), False),  # (file cstr, row, col, msg cstr)
    "opa_mapping_lookup": ((I32,), True),
    "opa_value_compare": ((I32, I32), True),
    "opa_value_get": ((I32, I32), True),
    "opa_value_iter": ((I32, I32), True),
    "opa_value_type": ((I32,), True),
    "opa_value_length": ((I32,), True),
    "opa_value_merge": ((I32, I32), True),
    "opa_value_shallow_copy": ((I32,), True),
    "opa_value_number_set_int": ((I32, I64), False),
    "opa_number_size": ((I32,), True),
    "opa_number_int": ((I64,), True),
    "opa_number_ref": ((I32, I32), True),
    "opa_null": ((), True),
    "opa_array_with_cap": ((I32,), True),
    "opa_object": ((), True),
    "opa_set": ((), True),
    "opa_array_append": ((I32, I32), False),
    "opa_set_add": ((I32, I32), False),
    "opa_object_insert": ((I32, I32, I32), False),
    "opa_regex_vm_match": ((I32, I32), True),  # (program, subject); see wasm/regex_call.py
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

# Imports of the runtime module and of the final module (module "env").
RUNTIME_IMPORT_EVAL = "gen_eval"
IMPORT_ABORT = "opa_abort"
IMPORT_PRINTLN = "opa_println"
IMPORT_MEMORY = "memory"
HOST_BUILTIN_IMPORTS: tuple[str, ...] = tuple(f"opa_builtin{n}" for n in range(5))
MAX_BUILTIN_ARGS = len(HOST_BUILTIN_IMPORTS) - 1

HEAP_BASE_EXPORT = "__heap_base"
NATIVE_BUILTIN_PREFIX = "opa_bi_"
NATIVE_TRY_PREFIX = "opa_bi_try_"

# Value type tags (first byte of every value).
TAG_NULL, TAG_BOOLEAN, TAG_NUMBER, TAG_STRING, TAG_ARRAY, TAG_OBJECT, TAG_SET = range(1, 8)

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
