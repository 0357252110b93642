"""A hand-written OPA-ABI module (WAT) for host tests, independent of the compiler.

Values are records {u32 text_ptr, u32 text_len} holding JSON text verbatim; parse copies
the text, dump NUL-terminates it. Entrypoints exercise each host behaviour:
echo (result = input), builtin (result = host builtin `id` applied to input), loop
(runs forever), alloc (mallocs 96 MiB), abort (a located runtime error), data (result =
data), trap (unreachable), recurse (stack overflow).
"""

from __future__ import annotations

import json

import wasmtime

ENTRYPOINTS = {"echo": 0, "builtin": 1, "loop": 2, "alloc": 3, "abort": 4, "data": 5, "trap": 6, "recurse": 7}
ABORT_MESSAGE = "policy.rego:3:5: var assignment conflict"


def _wat_bytes(s: str) -> str:
    return "".join(f"\\{b:02x}" for b in s.encode())


def mock_wat(builtins: dict[str, int] | None = None, major: int = 1, minor: int = 3, fast_path: bool = True,
             memory_min: int = 2, extra_import: str = "") -> str:
    builtins = builtins or {}
    bid = next(iter(builtins.values()), 0)
    ep_json, bi_json = json.dumps(ENTRYPOINTS), json.dumps(builtins)
    fast = "" if not fast_path else """
  (func (export "opa_eval") (param $res i32) (param $ep i32) (param $data i32) (param $ip i32)
        (param $il i32) (param $heap i32) (param $fmt i32) (result i32)
    (local $c i32)
    (if (local.get $res) (then (call $abort (i32.const 3300)) (unreachable)))
    (global.set $heap (local.get $heap))
    (local.set $c (call $ctx_new))
    (i32.store offset=12 (local.get $c) (local.get $ep))
    (i32.store offset=4 (local.get $c) (local.get $data))
    (if (local.get $il) (then (i32.store (local.get $c) (call $parse (local.get $ip) (local.get $il)))))
    (drop (call $eval (local.get $c)))
    (call $dump (i32.load offset=8 (local.get $c))))"""
    return f"""
(module
  (import "env" "memory" (memory {memory_min}))
  (import "env" "opa_abort" (func $abort (param i32)))
  (import "env" "opa_builtin1" (func $bi1 (param i32 i32 i32) (result i32)))
  {extra_import}
  (global (export "opa_wasm_abi_version") i32 (i32.const {major}))
  (global (export "opa_wasm_abi_minor_version") i32 (i32.const {minor}))
  (global $heap (mut i32) (i32.const {memory_min * 65536}))
  (data (i32.const 1024) "{_wat_bytes(ep_json)}")
  (data (i32.const 2048) "{_wat_bytes(bi_json)}")
  (data (i32.const 3072) "[{{\\"result\\":")
  (data (i32.const 3100) "}}]")
  (data (i32.const 3110) "[]")
  (data (i32.const 3120) "out of memory\\00")
  (data (i32.const 3140) "{_wat_bytes(ABORT_MESSAGE)}\\00")
  (data (i32.const 3200) "internal: illegal entrypoint id\\00")
  (data (i32.const 3300) "invalid reserved argument\\00")
  (func $init
    (i32.store (i32.const 4000) (i32.const 1024)) (i32.store (i32.const 4004) (i32.const {len(ep_json)}))
    (i32.store (i32.const 4008) (i32.const 2048)) (i32.store (i32.const 4012) (i32.const {len(bi_json)})))
  (start $init)
  (func $malloc (export "opa_malloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (if (i32.lt_u (local.get $end) (local.get $p)) (then (call $abort (i32.const 3120)) (unreachable)))
    (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then (if (i32.eq (memory.grow (i32.sub (i32.shr_u (i32.add (local.get $end) (i32.const 65535))
                                                         (i32.const 16)) (memory.size)))
                        (i32.const -1))
              (then (call $abort (i32.const 3120)) (unreachable)))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "opa_heap_ptr_get") (result i32) (global.get $heap))
  (func (export "opa_heap_ptr_set") (param i32) (global.set $heap (local.get 0)))
  (func $mkval (param $p i32) (param $n i32) (result i32)
    (local $buf i32) (local $rec i32)
    (local.set $buf (call $malloc (local.get $n)))
    (memory.copy (local.get $buf) (local.get $p) (local.get $n))
    (local.set $rec (call $malloc (i32.const 8)))
    (i32.store (local.get $rec) (local.get $buf))
    (i32.store offset=4 (local.get $rec) (local.get $n))
    (local.get $rec))
  (func $parse (param i32 i32) (result i32) (call $mkval (local.get 0) (local.get 1)))
  (export "opa_json_parse" (func $parse))
  (export "opa_value_parse" (func $parse))
  (func $dump (param $v i32) (result i32)
    (local $n i32) (local $out i32)
    (local.set $n (i32.load offset=4 (local.get $v)))
    (local.set $out (call $malloc (i32.add (local.get $n) (i32.const 1))))
    (memory.copy (local.get $out) (i32.load (local.get $v)) (local.get $n))
    (i32.store8 (i32.add (local.get $out) (local.get $n)) (i32.const 0))
    (local.get $out))
  (export "opa_json_dump" (func $dump))
  (export "opa_value_dump" (func $dump))
  (func $result_of (param $v i32) (result i32)
    (local $vn i32) (local $buf i32)
    (if (i32.eqz (local.get $v)) (then (return (call $mkval (i32.const 3110) (i32.const 2)))))
    (local.set $vn (i32.load offset=4 (local.get $v)))
    (local.set $buf (call $malloc (i32.add (local.get $vn) (i32.const 13))))
    (memory.copy (local.get $buf) (i32.const 3072) (i32.const 11))
    (memory.copy (i32.add (local.get $buf) (i32.const 11)) (i32.load (local.get $v)) (local.get $vn))
    (memory.copy (i32.add (i32.add (local.get $buf) (i32.const 11)) (local.get $vn)) (i32.const 3100) (i32.const 2))
    (call $mkval (local.get $buf) (i32.add (local.get $vn) (i32.const 13))))
  (func $ctx_new (export "opa_eval_ctx_new") (result i32)
    (local $c i32)
    (local.set $c (call $malloc (i32.const 16)))
    (i32.store (local.get $c) (i32.const 0)) (i32.store offset=4 (local.get $c) (i32.const 0))
    (i32.store offset=8 (local.get $c) (i32.const 0)) (i32.store offset=12 (local.get $c) (i32.const 0))
    (local.get $c))
  (func (export "opa_eval_ctx_set_input") (param i32 i32) (i32.store (local.get 0) (local.get 1)))
  (func (export "opa_eval_ctx_set_data") (param i32 i32) (i32.store offset=4 (local.get 0) (local.get 1)))
  (func (export "opa_eval_ctx_set_entrypoint") (param i32 i32) (i32.store offset=12 (local.get 0) (local.get 1)))
  (func (export "opa_eval_ctx_get_result") (param i32) (result i32) (i32.load offset=8 (local.get 0)))
  (func $recurse (param i32) (result i32) (call $recurse (i32.add (local.get 0) (i32.const 1))))
  (func $eval (export "eval") (param $c i32) (result i32)
    (local $ep i32) (local $r i32)
    (local.set $ep (i32.load offset=12 (local.get $c)))
    (block $done
      (if (i32.eq (local.get $ep) (i32.const 0))
        (then (local.set $r (call $result_of (i32.load (local.get $c)))) (br $done)))
      (if (i32.eq (local.get $ep) (i32.const 1))
        (then (local.set $r (call $result_of
                (if (result i32) (i32.load (local.get $c))
                  (then (call $bi1 (i32.const {bid}) (i32.const 0) (i32.load (local.get $c))))
                  (else (i32.const 0)))))
              (br $done)))
      (if (i32.eq (local.get $ep) (i32.const 2)) (then (loop $l (br $l))))
      (if (i32.eq (local.get $ep) (i32.const 3))
        (then (drop (call $malloc (i32.const 0x6000000))) (local.set $r (call $result_of (i32.const 0))) (br $done)))
      (if (i32.eq (local.get $ep) (i32.const 4)) (then (call $abort (i32.const 3140)) (unreachable)))
      (if (i32.eq (local.get $ep) (i32.const 5))
        (then (local.set $r (call $result_of (i32.load offset=4 (local.get $c)))) (br $done)))
      (if (i32.eq (local.get $ep) (i32.const 6)) (then (unreachable)))
      (if (i32.eq (local.get $ep) (i32.const 7)) (then (drop (call $recurse (i32.const 0)))))
      (call $abort (i32.const 3200)) (unreachable))
    (i32.store offset=8 (local.get $c) (local.get $r))
    (i32.const 0))
  {fast}
  (func (export "entrypoints") (result i32) (i32.const 4000))
  (func (export "builtins") (result i32) (i32.const 4008))
)
"""


def mock_module(**kw: object) -> bytes:
    return bytes(wasmtime.wat2wasm(mock_wat(**kw)))  # type: ignore[arg-type]
