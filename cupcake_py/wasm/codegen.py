"""IR → WebAssembly function bodies (OPA's lowering, ABI doc section 8.4).

Every IR local is an i32 wasm local holding a value address, 0 = undefined. Every IR block
is a wasm ``block`` (a Scan body is the ``loop`` itself, so leaving it continues with the
next element); "undefined" branches to the end of the innermost IR block and ``Break n``
to the end of the n-th enclosing one. Branch depths are computed from the IR block stack,
so helper blocks the generator adds never shift the IR's break indices.

Output: ``Generated`` — generated functions (bodies with symbolic call/type references),
the data segment and the CallDynamic table; ``linker`` turns it into a module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from cupcake_py import ir
from cupcake_py.core import jsonio
from cupcake_py.core.slotted import dataclass, field
from cupcake_py.wasm import abi, const_member, regex_call, static_numbers
from cupcake_py.wasm.asm import DROP, ELSE, I32_ADD, I32_EQ, I32_EQZ, I32_NE, RETURN, UNREACHABLE, Asm, Part
from cupcake_py.wasm.data import DataBuilder, align
from cupcake_py.wasm.errors import CodegenError
from cupcake_py.wasm.module import I32, FuncType
from cupcake_py.wasm.native_first import native_then_host

DYNAMIC_TYPE = FuncType((I32, I32), (I32,))
# Levels a CallDynamic's undefined result leaves: the planner puts the call in block 0 of a
# two-block BlockStmt (block 1 = base-data alternative) nested twice more; leaving 4 levels
# makes the surrounding expression undefined (OPA's compiler emits `br 3` here).
DYNAMIC_UNDEFINED_BREAK = 3

EVAL, BUILTINS, ENTRYPOINTS, START, FIRST_IR_FUNC = range(5)


@dataclass(frozen=True, slots=True)
class RuntimeInfo:
    """What code generation needs to know about the runtime module."""

    exports: Mapping[str, FuncType]  # exported runtime functions
    data_base: int  # first free address (aligned ``__heap_base``)
    table_base: int  # first free table slot (>= 1; slot 0 means "not found")


# wasmtime (wasmparser) refuses a module with a function of more than 50,000 locals (parameters
# included); the planner splits large rule groups (plan/rules.py) and the routed aggregator its
# per-package list (engine/routed_aggregator.py), so no generated function comes near it
MAX_LOCALS = 50_000


@dataclass(slots=True)
class GenFunc:
    name: str
    params: int
    result: bool
    locals: int  # extra i32 locals
    body: list[Part]

    @property
    def type(self) -> FuncType:
        return FuncType((I32,) * self.params, (I32,) if self.result else ())


@dataclass(slots=True)
class Generated:
    funcs: list[GenFunc]  # symbol "gen:<i>"; see EVAL/BUILTINS/ENTRYPOINTS/START
    data_base: int
    data: bytes
    heap_start: int
    table: list[int] = field(default_factory=list)  # gen function for slot table_base + k
    host_builtins: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Level:
    label: int
    kind: str  # "block" | "scan" | "not" | "with"


class _Fn:
    """State of one wasm function being generated."""

    def __init__(self, nparams: int, params: tuple[int, ...] = ()) -> None:
        self.asm = Asm()
        self.nparams = nparams
        self.locals: dict[int, int] = {p: i for i, p in enumerate(params)}
        self.next = nparams
        self.free: list[int] = []
        self.levels: list[_Level] = []
        self.result_set: int | None = None
        self.memo_key: int | None = None

    def local(self, n: int) -> int:
        idx = self.locals.get(n)
        if idx is None:
            idx = self.locals[n] = self.next
            self.next += 1
        return idx

    def temp(self) -> int:
        if self.free:
            return self.free.pop()
        self.next += 1
        return self.next - 1

    def release(self, *temps: int) -> None:
        self.free.extend(reversed(temps))

    def finish(self, name: str, result: bool) -> GenFunc:
        if self.next > MAX_LOCALS:  # a clear error here, not wasmtime's refusal of the whole module
            raise CodegenError(f"function {name} needs {self.next:,} locals; wasmtime accepts at most "
                               f"{MAX_LOCALS:,} in one function")
        return GenFunc(name, self.nparams, result, self.next - self.nparams, self.asm.finish())


class _Codegen:
    def __init__(self, policy: ir.Policy, rt: RuntimeInfo) -> None:
        self.policy = policy
        self.rt = rt
        self.data = DataBuilder(rt.data_base)
        self.funcs: dict[str, int] = {}
        for k, f in enumerate(policy.funcs):
            if f.name in self.funcs:
                raise CodegenError(f"duplicate function {f.name!r} in the plan")
            self.funcs[f.name] = k
        self.builtins = {b.name: b for b in policy.static.builtin_funcs}
        self.builtin_id = {name: i for i, name in enumerate(sorted(self.builtins))}
        self.host = {n: i for n, i in self.builtin_id.items() if abi.native_symbol(n) not in rt.exports}
        self.try_first = {n for n in self.host if abi.try_symbol(n) in rt.exports}
        self.table: list[int] = []
        self.table_slot: dict[int, int] = {}
        self._loc: ir.Stmt | None = None
        self.fused_members = const_member.fusible(policy)
        self.static_numbers = static_numbers.allowed(policy)

    # ---------------------------------------------------------------- helpers

    def fail(self, msg: str) -> CodegenError:
        s = self._loc
        return CodegenError(f"{self.file_name(s.file)}:{s.row}:{s.col}: {msg}" if s else msg)

    def file_name(self, i: int) -> str:
        files = self.policy.static.files
        return files[i] if 0 <= i < len(files) else f"<file {i}>"

    def call_rt(self, fn: _Fn, name: str, want_result: bool) -> None:
        fn.asm.call("rt:" + name)
        returns = bool(self.rt.exports[name].results)
        if returns and not want_result:
            fn.asm.op(DROP)

    def operand(self, fn: _Fn, o: ir.Operand) -> None:
        if isinstance(o, ir.Local):
            fn.asm.get(fn.local(o.value))
        elif isinstance(o, ir.Bool):
            fn.asm.i32(self.data.boolean(o.value))
        else:
            strings = self.policy.static.strings
            if not 0 <= o.value < len(strings):
                raise self.fail(f"string index {o.value} out of range")
            fn.asm.i32(self.data.string(strings[o.value]))

    def undefined_if(self, fn: _Fn) -> None:
        """Pop an i32; if non-zero, the current IR block is undefined."""
        fn.asm.br_if_to(fn.levels[-1].label)

    def undefined(self, fn: _Fn) -> None:
        fn.asm.br_to(fn.levels[-1].label)

    def break_label(self, fn: _Fn, index: int) -> int:
        if not 0 <= index < len(fn.levels):
            raise self.fail(f"break {index} leaves more blocks than are open ({len(fn.levels)})")
        if index and any(lv.kind == "with" for lv in fn.levels[-index:]):
            raise self.fail(f"break {index} leaves a with body without restoring it")
        return fn.levels[-1 - index].label

    def nested(self, fn: _Fn, block: ir.Block, kind: str = "block") -> None:
        """A wasm block holding one IR block."""
        label = fn.asm.block()
        self.block_body(fn, block, label, kind)
        fn.asm.end()

    def block_body(self, fn: _Fn, block: ir.Block, label: int, kind: str) -> None:
        fn.levels.append(_Level(label, kind))
        stmts, i = block.stmts, 0
        while i < len(stmts):
            s = stmts[i]
            self._loc = s
            if id(s) in self.fused_members:
                i += const_member.emit(self, fn, stmts, i)
                continue
            handler = _HANDLERS.get(type(s))
            if handler is None:
                raise self.fail(f"unsupported statement {type(s).__name__}")
            handler(self, fn, s)
            i += 1
        fn.levels.pop()

    def runtime_error(self, fn: _Fn, s: ir.Stmt, msg: str) -> None:
        a = fn.asm
        a.i32(self.data.cstr(self.file_name(s.file)))
        a.i32(s.row)
        a.i32(s.col)
        a.i32(self.data.cstr(msg))
        self.call_rt(fn, "opa_runtime_error", False)
        a.op(UNREACHABLE)

    # ---------------------------------------------------------------- statements

    def s_assign_var(self, fn: _Fn, s: ir.AssignVarStmt) -> None:
        self.operand(fn, s.source)
        fn.asm.set(fn.local(s.target))

    def fail_on_conflict(self, fn: _Fn, s: ir.Stmt, current: int, new: ir.Operand, msg: str) -> None:
        """A runtime error `msg` unless local `current` is undefined (0) or equals operand `new`."""
        a = fn.asm
        ok = a.block()
        a.get(current)
        a.op(I32_EQZ)
        a.br_if_to(ok)
        a.get(current)
        self.operand(fn, new)
        self.call_rt(fn, "opa_value_compare", True)
        a.op(I32_EQZ)
        a.br_if_to(ok)
        self.runtime_error(fn, s, msg)
        a.end()

    def s_assign_var_once(self, fn: _Fn, s: ir.AssignVarOnceStmt) -> None:
        t = fn.local(s.target)
        self.fail_on_conflict(fn, s, t, s.source, abi.MSG_VAR_CONFLICT)
        self.operand(fn, s.source)
        fn.asm.set(t)

    def s_assign_int(self, fn: _Fn, s: ir.AssignIntStmt) -> None:
        fn.asm.get(fn.local(s.target))
        fn.asm.i64(s.value)
        self.call_rt(fn, "opa_value_number_set_int", False)

    def s_reset_local(self, fn: _Fn, s: ir.ResetLocalStmt) -> None:
        fn.asm.i32(0)
        fn.asm.set(fn.local(s.target))

    def s_block(self, fn: _Fn, s: ir.BlockStmt) -> None:
        for b in s.blocks:
            self.nested(fn, b)

    def s_break(self, fn: _Fn, s: ir.BreakStmt) -> None:
        fn.asm.br_to(self.break_label(fn, s.index))

    def s_nop(self, fn: _Fn, s: ir.NopStmt) -> None:
        pass

    def s_not(self, fn: _Fn, s: ir.NotStmt) -> None:
        outer = fn.levels[-1].label
        label = fn.asm.block()
        self.block_body(fn, s.block, label, "not")
        fn.asm.br_to(outer)  # body reached its end: the not is undefined
        fn.asm.end()

    def s_scan(self, fn: _Fn, s: ir.ScanStmt) -> None:
        """Walk the source by position (opa_value_key_at / opa_value_value_at): the order of
        opa_value_iter, without looking each key up again to find its value."""
        a = fn.asm
        src, pos, key = fn.local(s.source), fn.temp(), fn.temp()
        a.i32(0)
        a.set(pos)
        done = a.block()
        a.get(src)
        a.op(I32_EQZ)
        a.br_if_to(done)
        loop = a.loop()
        a.get(src)
        a.get(pos)
        self.call_rt(fn, "opa_value_key_at", True)
        a.tee(key)
        a.op(I32_EQZ)
        a.br_if_to(done)  # past the end: the key local keeps the last key, as before
        a.get(key)
        a.set(fn.local(s.key))
        a.get(src)
        a.get(pos)
        self.call_rt(fn, "opa_value_value_at", True)
        a.set(fn.local(s.value))
        a.get(pos)
        a.i32(1)
        a.op(I32_ADD)
        a.set(pos)
        self.block_body(fn, s.block, loop, "scan")
        a.br_to(loop)
        a.end()
        a.end()
        fn.release(pos, key)

    def s_with(self, fn: _Fn, s: ir.WithStmt) -> None:
        a, target = fn.asm, fn.local(s.local)
        saved = fn.temp()
        a.get(target)
        a.set(saved)
        self.call_rt(fn, "opa_memoize_push", False)
        if not s.path:
            self.operand(fn, s.value)
            a.set(target)
        else:
            self.upsert(fn, target, s.path, s.value)

        def restore() -> None:
            a.get(saved)
            a.set(target)
            self.call_rt(fn, "opa_memoize_pop", False)

        outer = fn.levels[-1].label
        done = a.block()
        body = a.block()
        self.block_body(fn, s.block, body, "with")
        restore()
        a.br_to(done)
        a.end()
        restore()  # the body was left early: the with is undefined
        a.br_to(outer)
        a.end()
        fn.release(saved)

    def upsert(self, fn: _Fn, target: int, path: tuple[int, ...], value: ir.Operand) -> None:
        """target := shallow copy of target with ``value`` at ``path``; missing or non-object
        nodes along the path become new objects."""
        a = fn.asm
        strings = self.policy.static.strings
        cur, child = fn.temp(), fn.temp()

        def copy_or_new(node: int) -> None:  # node := object copy of node, or a new object
            a.get(node)
            a.if_()
            a.get(node)
            self.call_rt(fn, "opa_value_type", True)
            a.i32(abi.TAG_OBJECT)
            a.op(I32_EQ)
            a.if_()
            a.get(node)
            self.call_rt(fn, "opa_value_shallow_copy", True)
            a.set(node)
            a.op(ELSE)
            a.i32(0)
            a.set(node)
            a.end()
            a.end()
            a.get(node)
            a.op(I32_EQZ)
            a.if_()
            self.call_rt(fn, "opa_object", True)
            a.set(node)
            a.end()

        for i in path:
            if not 0 <= i < len(strings):
                raise self.fail(f"with path string index {i} out of range")
        a.get(target)
        a.set(cur)
        copy_or_new(cur)
        a.get(cur)
        a.set(target)
        for i in path[:-1]:
            key = self.data.string(strings[i])
            a.get(cur)
            a.i32(key)
            self.call_rt(fn, "opa_value_get", True)
            a.set(child)
            copy_or_new(child)
            a.get(cur)
            a.i32(key)
            a.get(child)
            self.call_rt(fn, "opa_object_insert", False)
            a.get(child)
            a.set(cur)
        a.get(cur)
        a.i32(self.data.string(strings[path[-1]]))
        self.operand(fn, value)
        self.call_rt(fn, "opa_object_insert", False)
        fn.release(cur, child)

    def s_dot(self, fn: _Fn, s: ir.DotStmt) -> None:
        a = fn.asm
        if not isinstance(s.source, ir.Local):
            self.undefined(fn)
            return
        src = fn.local(s.source.value)
        a.get(src)
        a.op(I32_EQZ)
        self.undefined_if(fn)
        a.get(src)
        self.operand(fn, s.key)
        self.call_rt(fn, "opa_value_get", True)
        a.tee(fn.local(s.target))
        a.op(I32_EQZ)
        self.undefined_if(fn)

    def compare(self, fn: _Fn, s: ir.EqualStmt | ir.NotEqualStmt, equal: bool) -> None:
        pair = (s.a, s.b) if isinstance(s.b, ir.Bool) else (s.b, s.a)
        if isinstance(pair[0], ir.Local) and isinstance(pair[1], ir.Bool):
            self.compare_bool(fn, pair[0].value, pair[1].value, equal)
            return
        self.operand(fn, s.a)
        self.operand(fn, s.b)
        self.call_rt(fn, "opa_value_compare", True)
        if not equal:
            fn.asm.op(I32_EQZ)
        self.undefined_if(fn)

    def compare_bool(self, fn: _Fn, local: int, b: bool, equal: bool) -> None:
        """`local == b` (equal) or `local != b` inline, as opa_value_compare decides it: equal only
        when the local is defined and is the boolean b. A value's first two bytes are its type
        tag and, for a boolean, its 0/1 byte (opa.h), so one 16-bit load tells."""
        a, x = fn.asm, fn.local(local)
        pattern = abi.TAG_BOOLEAN | int(b) << 8
        if equal:  # undefined unless defined and the boolean b
            a.get(x)
            a.op(I32_EQZ)
            self.undefined_if(fn)
            a.get(x)
            a.load16_u(0)
            a.i32(pattern)
            a.op(I32_NE)
            self.undefined_if(fn)
            return
        skip = a.block()  # an undefined local is not equal to b: the statement holds
        a.get(x)
        a.op(I32_EQZ)
        a.br_if_to(skip)
        a.get(x)
        a.load16_u(0)
        a.i32(pattern)
        a.op(I32_EQ)
        a.br_if_to(fn.levels[-1].label)
        a.end()

    def type_check(self, fn: _Fn, source: ir.Operand, tag: int) -> None:
        a = fn.asm
        if not isinstance(source, ir.Local):
            self.undefined(fn)  # constants are strings or booleans
            return
        x = fn.local(source.value)
        a.get(x)
        a.op(I32_EQZ)
        self.undefined_if(fn)
        a.get(x)
        self.call_rt(fn, "opa_value_type", True)
        a.i32(tag)
        a.op(I32_NE)
        self.undefined_if(fn)

    def s_is_defined(self, fn: _Fn, s: ir.IsDefinedStmt) -> None:
        fn.asm.get(fn.local(s.source))
        fn.asm.op(I32_EQZ)
        self.undefined_if(fn)

    def s_is_undefined(self, fn: _Fn, s: ir.IsUndefinedStmt) -> None:
        fn.asm.get(fn.local(s.source))
        self.undefined_if(fn)

    def s_len(self, fn: _Fn, s: ir.LenStmt) -> None:
        a = fn.asm
        if isinstance(s.source, ir.Local):
            a.get(fn.local(s.source.value))
            a.op(I32_EQZ)
            self.undefined_if(fn)
        self.operand(fn, s.source)
        self.call_rt(fn, "opa_value_length", True)
        self.call_rt(fn, "opa_number_size", True)
        a.set(fn.local(s.target))

    def make(self, fn: _Fn, target: int, rt_name: str) -> None:
        self.call_rt(fn, rt_name, True)
        fn.asm.set(fn.local(target))

    def s_make_array(self, fn: _Fn, s: ir.MakeArrayStmt) -> None:
        fn.asm.i32(max(s.capacity, 0))
        self.make(fn, s.target, "opa_array_with_cap")

    def static_number(self, fn: _Fn, target: int, value: int | None) -> bool:
        """target := a static int number (wasm/static_numbers.py) when allowed; False if not."""
        if value is None or not self.static_numbers:
            return False
        fn.asm.i32(self.data.integer(value))
        fn.asm.set(fn.local(target))
        return True

    def s_make_number_int(self, fn: _Fn, s: ir.MakeNumberIntStmt) -> None:
        if self.static_number(fn, s.target, static_numbers.int_value(s.value)):
            return
        fn.asm.i64(s.value)
        self.make(fn, s.target, "opa_number_int")

    def s_make_number_ref(self, fn: _Fn, s: ir.MakeNumberRefStmt) -> None:
        strings = self.policy.static.strings
        if not 0 <= s.index < len(strings):
            raise self.fail(f"number string index {s.index} out of range")
        if self.static_number(fn, s.target, static_numbers.int_text(strings[s.index])):
            return
        ptr, n = self.data.text(strings[s.index])
        fn.asm.i32(ptr)
        fn.asm.i32(n)
        self.make(fn, s.target, "opa_number_ref")

    def s_array_append(self, fn: _Fn, s: ir.ArrayAppendStmt) -> None:
        fn.asm.get(fn.local(s.array))
        self.operand(fn, s.value)
        self.call_rt(fn, "opa_array_append", False)

    def s_set_add(self, fn: _Fn, s: ir.SetAddStmt) -> None:
        fn.asm.get(fn.local(s.set))
        self.operand(fn, s.value)
        self.call_rt(fn, "opa_set_add", False)

    def s_object_insert(self, fn: _Fn, s: ir.ObjectInsertStmt | ir.ObjectInsertOnceStmt) -> None:
        fn.asm.get(fn.local(s.object))
        self.operand(fn, s.key)
        self.operand(fn, s.value)
        self.call_rt(fn, "opa_object_insert", False)

    def s_object_insert_once(self, fn: _Fn, s: ir.ObjectInsertOnceStmt) -> None:
        a, cur = fn.asm, fn.temp()
        a.get(fn.local(s.object))
        self.operand(fn, s.key)
        self.call_rt(fn, "opa_value_get", True)
        a.set(cur)
        self.fail_on_conflict(fn, s, cur, s.value, abi.MSG_OBJECT_CONFLICT)
        fn.release(cur)
        self.s_object_insert(fn, s)  # same fields

    def s_object_merge(self, fn: _Fn, s: ir.ObjectMergeStmt) -> None:
        fn.asm.get(fn.local(s.a))
        fn.asm.get(fn.local(s.b))
        self.make(fn, s.target, "opa_value_merge")

    def s_result_set_add(self, fn: _Fn, s: ir.ResultSetAddStmt) -> None:
        if fn.result_set is None:
            raise self.fail("ResultSetAddStmt outside a plan")
        fn.asm.get(fn.result_set)
        fn.asm.get(fn.local(s.value))
        self.call_rt(fn, "opa_set_add", False)

    def s_return_local(self, fn: _Fn, s: ir.ReturnLocalStmt) -> None:
        if fn.result_set is not None:
            raise self.fail("ReturnLocalStmt inside a plan")
        src = fn.local(s.source)
        if fn.memo_key is not None:
            fn.asm.i32(fn.memo_key)
            fn.asm.get(src)
            self.call_rt(fn, "opa_memoize_insert", False)
        fn.asm.get(src)
        fn.asm.op(RETURN)

    def s_call(self, fn: _Fn, s: ir.CallStmt) -> None:
        a = fn.asm
        k = self.funcs.get(s.func)
        if k is not None:
            f = self.policy.funcs[k]
            if len(s.args) != len(f.params):
                raise self.fail(f"{s.func} takes {len(f.params)} arguments, called with {len(s.args)}")
            for o in s.args:
                self.operand(fn, o)
            a.call(f"gen:{FIRST_IR_FUNC + k}")
            has_result = True
        elif s.func in self.builtins:
            b = self.builtins[s.func]
            has_result = b.has_result
            if s.func in self.try_first and has_result:
                self.native_then_host(fn, s)
            elif s.func in self.host:
                prog = regex_call.native_program(s.func, s.args, self.policy.static.strings)
                if prog is not None:
                    regex_call.emit_match(self, fn, s, prog)
                else:
                    self.host_call(fn, s, has_result)
            else:
                sym = abi.native_symbol(s.func)
                t = self.rt.exports[sym]
                want = FuncType((I32,) * len(s.args), (I32,) if has_result else t.results)
                if t != want or len(t.results) > 1 or t.results not in ((), (I32,)):
                    raise self.fail(f"runtime export {sym} has type {t}, expected {want}")
                for o in s.args:
                    self.operand(fn, o)
                self.call_rt(fn, sym, has_result)
        else:
            raise self.fail(f"call of unknown function or builtin {s.func!r}")
        if has_result:
            a.tee(fn.local(s.result))
            a.op(I32_EQZ)
            self.undefined_if(fn)

    def host_call(self, fn: _Fn, s: ir.CallStmt, has_result: bool) -> None:
        """Call the host builtin ``s.func``; leaves its result on the stack if ``has_result``."""
        a = fn.asm
        if len(s.args) > abi.MAX_BUILTIN_ARGS:
            raise self.fail(f"too many built-in call arguments: {s.func} with {len(s.args)}")
        a.i32(self.host[s.func])
        a.i32(0)
        for o in s.args:
            self.operand(fn, o)
        a.call(f"imp:{abi.HOST_BUILTIN_IMPORTS[len(s.args)]}")
        if not has_result:
            a.op(DROP)

    def native_then_host(self, fn: _Fn, s: ir.CallStmt) -> None:
        """The runtime's ``opa_bi_try_*`` first, the host builtin when it answers 0 (native_first.py)."""
        sym = abi.try_symbol(s.func)
        want = FuncType((I32,) * len(s.args), (I32,))
        if self.rt.exports[sym] != want:
            raise self.fail(f"runtime export {sym} has type {self.rt.exports[sym]}, expected {want}")

        def push_args() -> None:
            for o in s.args:
                self.operand(fn, o)

        scratch = fn.temp()
        native_then_host(fn.asm, push_args, "rt:" + sym, lambda: self.host_call(fn, s, True), scratch)
        fn.release(scratch)

    def s_call_dynamic(self, fn: _Fn, s: ir.CallDynamicStmt) -> None:
        a = fn.asm
        if len(s.args) != 2:
            raise self.fail(f"CallDynamicStmt with {len(s.args)} arguments (expected input and data)")
        undefined_label = self.break_label(fn, DYNAMIC_UNDEFINED_BREAK)
        self.dynamic_table()
        arr, idx = fn.temp(), fn.temp()
        a.i32(len(s.path))
        self.call_rt(fn, "opa_array_with_cap", True)
        a.set(arr)
        for o in s.path:
            a.get(arr)
            self.operand(fn, o)
            self.call_rt(fn, "opa_array_append", False)
        a.get(arr)
        self.call_rt(fn, "opa_mapping_lookup", True)
        a.tee(idx)
        a.op(I32_EQZ)
        self.undefined_if(fn)  # not a rule: the planner's next block looks in base data
        for x in s.args:
            a.get(fn.local(x))
        a.get(idx)
        a.call_indirect(DYNAMIC_TYPE)
        a.tee(fn.local(s.result))
        a.op(I32_EQZ)
        a.br_if_to(undefined_label)
        fn.release(arr, idx)

    # ---------------------------------------------------------------- functions

    def dynamic_table(self) -> None:
        """Table slots for every rule Func that can be called dynamically (2 params)."""
        if self.table:
            return
        for k, f in enumerate(self.policy.funcs):
            if len(f.params) == 2 and f.path:
                self.table_slot[k] = self.rt.table_base + len(self.table)
                self.table.append(FIRST_IR_FUNC + k)

    def mapping_json(self) -> bytes:
        root: dict[str, object] = {}
        for k, slot in self.table_slot.items():
            f = self.policy.funcs[k]
            node = root
            for part in f.path[:-1]:
                nxt = node.setdefault(part, {})
                if not isinstance(nxt, dict):
                    raise CodegenError(f"function path {'.'.join(f.path)} conflicts with another rule")
                node = nxt
            if f.path[-1] in node:
                raise CodegenError(f"function path {'.'.join(f.path)} conflicts with another rule")
            node[f.path[-1]] = slot
        return jsonio.dumps(root)  # compact UTF-8, key order kept (json.dumps with "," ":" separators)

    def gen_func(self, k: int, f: ir.Func) -> GenFunc:
        fn = _Fn(len(f.params), f.params)
        a = fn.asm
        if len(set(f.params)) != len(f.params):
            raise CodegenError(f"function {f.name}: repeated parameter local")
        if len(f.params) == 2:
            fn.memo_key = k
            memo = fn.temp()
            a.i32(k)
            self.call_rt(fn, "opa_memoize_get", True)
            a.tee(memo)
            a.if_()
            a.get(memo)
            a.op(RETURN)
            a.end()
            fn.release(memo)
        for b in f.blocks:
            self.nested(fn, b)
        a.get(fn.local(f.return_))
        return fn.finish(f.name, True)

    def gen_eval(self) -> GenFunc:
        fn = _Fn(1)
        a, ctx = fn.asm, 0
        a.i32(len(self.policy.funcs))  # memo keys are function indexes (gen_func)
        self.call_rt(fn, "opa_memoize_init", False)
        for ir_local, offset in ((0, 0), (1, 4)):
            a.get(ctx)
            a.load(offset)
            a.set(fn.local(ir_local))
        fn.result_set, entry = fn.temp(), fn.temp()
        a.get(ctx)
        self.call_rt(fn, "opa_set", True)
        a.tee(fn.result_set)
        a.store(8)
        a.get(ctx)
        a.load(12)
        a.set(entry)
        for i, plan in enumerate(self.policy.plans):
            skip = a.block()
            a.get(entry)
            a.i32(i)
            a.op(I32_NE)
            a.br_if_to(skip)
            for b in plan.blocks:
                self.nested(fn, b)
            a.i32(0)
            a.op(RETURN)
            a.end()
        self._loc = None
        a.i32(self.data.cstr(abi.MSG_ILLEGAL_ENTRYPOINT))
        a.call("imp:" + abi.IMPORT_ABORT)
        a.op(UNREACHABLE)
        return fn.finish("eval", True)

    def gen_name_object(self, name: str, entries: list[tuple[str, int]]) -> GenFunc:
        fn = _Fn(0)
        a, obj = fn.asm, fn.temp()
        self.call_rt(fn, "opa_object", True)
        a.set(obj)
        for key, value in entries:
            a.get(obj)
            a.i32(self.data.string(key))
            a.i64(value)
            self.call_rt(fn, "opa_number_int", True)
            self.call_rt(fn, "opa_object_insert", False)
        a.get(obj)
        return fn.finish(name, True)

    def generate(self) -> Generated:
        if _has_dynamic_calls(self.policy):
            self.dynamic_table()
        funcs = [
            self.gen_eval(),
            self.gen_name_object("builtins", sorted(self.host.items(), key=lambda kv: kv[1])),
            self.gen_name_object("entrypoints", [(p.name, i) for i, p in enumerate(self.policy.plans)]),
            GenFunc("start", 0, False, 0, []),  # filled below, once the data is complete
        ]
        funcs += [self.gen_func(k, f) for k, f in enumerate(self.policy.funcs)]
        mapping = self.mapping_json()
        map_addr = self.data.blob(mapping)
        heap_start = align(self.data.end, 16)
        start = _Fn(0)
        start.asm.i32(heap_start)
        start.asm.i32(map_addr)
        start.asm.i32(len(mapping))
        self.call_rt(start, "opa_rt_init", False)
        funcs[START] = start.finish("start", False)
        return Generated(
            funcs=funcs,
            data_base=self.data.base,
            data=bytes(self.data.buf),
            heap_start=heap_start,
            table=list(self.table),
            host_builtins=dict(self.host),
        )


def _walk(blocks: tuple[ir.Block, ...]) -> Iterator[ir.Stmt]:
    for b in blocks:
        for s in b.stmts:
            yield s
            if isinstance(s, ir.BlockStmt):
                yield from _walk(s.blocks)
            elif isinstance(s, ir.ScanStmt | ir.NotStmt | ir.WithStmt):
                yield from _walk((s.block,))


def _has_dynamic_calls(policy: ir.Policy) -> bool:
    bodies = [p.blocks for p in policy.plans] + [f.blocks for f in policy.funcs]
    return any(isinstance(s, ir.CallDynamicStmt) for blocks in bodies for s in _walk(blocks))


TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import TypeVar

    _S = TypeVar("_S", bound=ir.Stmt)
_Handler = Callable[[_Codegen, _Fn, ir.Stmt], None]


def _on(cls: type[_S], handler: Callable[[_Codegen, _Fn, _S], None]) -> tuple[type[ir.Stmt], _Handler]:
    """One dispatch entry. ``block_body`` looks a handler up by ``type(s)``, so ``handler`` only ever
    receives instances of ``cls``: the pairing is checked here, the table's value type cannot say it."""
    return cls, handler  # type: ignore[return-value]


_HANDLERS: dict[type[ir.Stmt], _Handler] = dict(
    [
        _on(ir.ArrayAppendStmt, _Codegen.s_array_append),
        _on(ir.AssignIntStmt, _Codegen.s_assign_int),
        _on(ir.AssignVarOnceStmt, _Codegen.s_assign_var_once),
        _on(ir.AssignVarStmt, _Codegen.s_assign_var),
        _on(ir.BlockStmt, _Codegen.s_block),
        _on(ir.BreakStmt, _Codegen.s_break),
        _on(ir.CallDynamicStmt, _Codegen.s_call_dynamic),
        _on(ir.CallStmt, _Codegen.s_call),
        _on(ir.DotStmt, _Codegen.s_dot),
        _on(ir.EqualStmt, lambda g, f, s: g.compare(f, s, True)),
        _on(ir.NotEqualStmt, lambda g, f, s: g.compare(f, s, False)),
        _on(ir.IsArrayStmt, lambda g, f, s: g.type_check(f, s.source, abi.TAG_ARRAY)),
        _on(ir.IsObjectStmt, lambda g, f, s: g.type_check(f, s.source, abi.TAG_OBJECT)),
        _on(ir.IsSetStmt, lambda g, f, s: g.type_check(f, s.source, abi.TAG_SET)),
        _on(ir.IsDefinedStmt, _Codegen.s_is_defined),
        _on(ir.IsUndefinedStmt, _Codegen.s_is_undefined),
        _on(ir.LenStmt, _Codegen.s_len),
        _on(ir.MakeArrayStmt, _Codegen.s_make_array),
        _on(ir.MakeNullStmt, lambda g, f, s: g.make(f, s.target, "opa_null")),
        _on(ir.MakeNumberIntStmt, _Codegen.s_make_number_int),
        _on(ir.MakeNumberRefStmt, _Codegen.s_make_number_ref),
        _on(ir.MakeObjectStmt, lambda g, f, s: g.make(f, s.target, "opa_object")),
        _on(ir.MakeSetStmt, lambda g, f, s: g.make(f, s.target, "opa_set")),
        _on(ir.NopStmt, _Codegen.s_nop),
        _on(ir.NotStmt, _Codegen.s_not),
        _on(ir.ObjectInsertStmt, _Codegen.s_object_insert),
        _on(ir.ObjectInsertOnceStmt, _Codegen.s_object_insert_once),
        _on(ir.ObjectMergeStmt, _Codegen.s_object_merge),
        _on(ir.ResetLocalStmt, _Codegen.s_reset_local),
        _on(ir.ResultSetAddStmt, _Codegen.s_result_set_add),
        _on(ir.ReturnLocalStmt, _Codegen.s_return_local),
        _on(ir.ScanStmt, _Codegen.s_scan),
        _on(ir.SetAddStmt, _Codegen.s_set_add),
        _on(ir.WithStmt, _Codegen.s_with),
    ]
)
assert set(_HANDLERS) == set(ir.STATEMENTS)


def generate(policy: ir.Policy, rt: RuntimeInfo) -> Generated:
    """Generate the functions and data of ``policy`` for a runtime described by ``rt``."""
    return _Codegen(policy, rt).generate()
