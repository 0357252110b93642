"""The statement walker: a tree-sitter-bash syntax tree -> commands in execution order.

In: a shell string, the state it starts in (cwd, variables, positional parameters,
functions) and the shared `Result`. Out: every simple command (including those inside
`$(..)`, loops, conditionals, functions called, and nested shells/scripts, which
`semantics` hands back to `run_string`) appended to the result with its effects.
State flows along `;`/`&&`/`||` and is merged (differences become unknown) where control
flow may or may not have run a part: branches of `if`/`case`, loop bodies, the left side of
`&&`/`||`. Pipeline stages and subshells run in copies. A syntax error makes the result
unparsed (everything opaque; the walk still reports what it recognised). Raises only
`Deadline`, which `analyze` turns into opacity.
"""

from __future__ import annotations

import os

from cupcake_py.shell import semantics
from cupcake_py.shell.model import KINDS, Cmd, Field
from cupcake_py.shell.outputs import static_output
from cupcake_py.shell.parse import REDIRECT_NODES, heredoc_tails, parse
from cupcake_py.shell.words import Expander, Scope, text, words_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node

    from cupcake_py.shell.model import Result

MAX_LOOP_VALUES = 64
MAX_LOOP_PASSES = 4  # walks of a loop body before its state is given up as unknown (Walker._repeat)
GLOB_OPTIONS = frozenset({"dotglob", "globstar", "nullglob", "failglob", "nocaseglob"})
SKIP = frozenset({"comment", ";", ";;", "&", "\n", "heredoc_body", "heredoc_end", "heredoc_start", "do", "done",
                  "then", "fi", "else", "elif", "if", "while", "until", "for", "in", "case", "esac", "{", "}",
                  "(", ")", "!", "&&", "||", "|", "|&", "function", "select"})


class State(Scope):
    """Shell state along a command line. `values`: name -> value (None: unset); names in
    `unknown` have a value only known at run time; names in neither come from `env`."""

    __slots__ = ("cwd", "values", "exported", "unknown", "env", "args", "functions", "dirstack", "made_dirs",
                 "walker", "cd_result", "aliases", "shopts", "arg0", "arrays", "path_dirs")

    def __init__(self, cwd: str | None, env: dict[str, str], args: list[str] | None, walker: Walker) -> None:
        self.cwd = cwd
        self.values: dict[str, str | None] = {}
        self.exported: set[str] = set()
        self.unknown: set[str] = set()
        self.env = env
        self.args = args
        self.functions: dict[str, tuple[Node, Walker]] = {}
        self.dirstack: list[str | None] = []
        self.made_dirs: set[str] = set()
        self.walker = walker
        self.cd_result: str | None = None  # "sure" | "unsure" after a cd (see Walker._cond)
        self.aliases: dict[str, str | None] = {}  # defined in this line (None: value not static)
        self.shopts: frozenset[str] | None = frozenset()  # glob options switched on; None: unknown
        self.arg0: str | None = None  # $0 (the script's path as run, or bash -c's NAME)
        self.arrays: dict[str, list[str]] = {}  # indexed arrays with static elements
        self.path_dirs: list[str] = []  # leading PATH entries this line sets (static part)

    def clear_cd(self) -> None:
        """Forget the last cd's outcome before a statement (its handler may set a new one)."""
        self.cd_result = None

    def copy(self) -> State:
        other = State(self.cwd, self.env, self.args, self.walker)
        other.values = dict(self.values)
        other.exported = set(self.exported)
        other.unknown = set(self.unknown)
        other.functions = dict(self.functions)
        other.aliases = dict(self.aliases)
        other.shopts = self.shopts
        other.arg0 = self.arg0
        other.arrays = dict(self.arrays)
        other.path_dirs = list(self.path_dirs)
        other.dirstack = list(self.dirstack)
        other.made_dirs = set(self.made_dirs)
        return other

    def child(self, walker: Walker, cwd: str | None, overlay: dict[str, str | None],
              args: list[str] | None) -> State:
        """The state a new shell process starts in: exported variables and the command's
        prefix assignments; everything else comes from the (unknown) environment."""
        env = dict(self.env)
        for name in self.exported:
            value = self.values.get(name)
            if value is not None and name not in self.unknown:
                env[name] = value
        new = State(cwd, env, args, walker)
        for name, value in overlay.items():
            if value is None:
                new.unknown.add(name)
            else:
                new.values[name] = value
            new.exported.add(name)
        new.unknown |= {n for n in self.exported if n in self.unknown}
        new.made_dirs = set(self.made_dirs)
        new.path_dirs = list(self.path_dirs)
        for var in ("BASHOPTS", "SHELLOPTS"):  # a child bash starts with these options on
            known, value = new.lookup(var)
            if var in new.unknown:
                new.shopts = None
            elif known and value and new.shopts is not None:
                on = set(value.split(":"))
                new.shopts = frozenset(on & GLOB_OPTIONS) | ({"noglob"} if "noglob" in on else set())
        return new

    def lookup(self, name: str) -> tuple[bool, str | None]:
        if name in self.unknown:
            return False, None
        if name in self.values:
            return True, self.values[name]
        if name == "PWD":
            return (self.cwd is not None), self.cwd
        if name in self.env:
            return True, self.env[name]
        return False, None

    def array(self, name: str) -> list[str] | None:
        """The elements of `name` as an array (a scalar is a one-element array); None: unknown."""
        if name in self.unknown:
            return None
        if name in self.arrays:
            return list(self.arrays[name])
        known, value = self.lookup(name)
        if not known:
            return None
        return [] if value is None else [value]

    def assign(self, name: str, value: str | None, *, export: bool = False) -> None:
        if value is None:
            self.unknown.add(name)
            self.values.pop(name, None)
        else:
            self.unknown.discard(name)
            self.values[name] = value
        if export:
            self.exported.add(name)

    def unset(self, name: str) -> None:
        self.unknown.discard(name)
        self.values[name] = None
        self.arrays.pop(name, None)

    def invalidate(self, name: str) -> None:
        self.assign(name, None)
        self.arrays.pop(name, None)

    def positional(self) -> list[str] | None:
        return self.args

    def program_name(self) -> str | None:
        return self.arg0

    def glob_options(self) -> frozenset[str] | None:
        return self.shopts

    def ifs(self) -> str | None:
        if "IFS" in self.unknown:
            return None
        value = self.values.get("IFS", " \t\n")
        return " \t\n" if value is None else value

    def substitute(self, node: Node) -> str | None:
        inner = self.copy()
        start = len(self.walker.result.commands)
        self.walker.sequence(node, inner)
        made = self.walker.result.commands[start:]
        if node.type != "command_substitution" or len(made) != 1 or made[0].redirects or made[0].wrappers:
            return None
        out = static_output(made[0], self.walker.result)
        return out.rstrip("\n") if out is not None else None

    def merge(self, others: list[State]) -> None:
        """After control flow that may have run any of `others` (or none): keep what agrees."""
        for other in others:
            if other.cwd != self.cwd:
                self.cwd = None
            names = set(self.values) | set(other.values) | self.unknown | other.unknown
            for name in names:
                if self.lookup(name) != other.lookup(name):
                    self.invalidate(name)
            self.exported |= other.exported
            self.functions.update(other.functions)
            self.aliases.update(other.aliases)
            for name in set(self.arrays) | set(other.arrays):
                if self.arrays.get(name) != other.arrays.get(name):
                    self.arrays.pop(name, None)
                    self.invalidate(name)
            if self.shopts != other.shopts:
                self.shopts = None
            if self.args != other.args:
                self.args = None
            if self.arg0 != other.arg0:
                self.arg0 = None
            if self.dirstack != other.dirstack:
                self.dirstack = [None] * max(len(self.dirstack), len(other.dirstack))
            self.path_dirs += [d for d in other.path_dirs if d not in self.path_dirs]
            self.made_dirs |= other.made_dirs

    def signature(self) -> tuple[object, ...]:
        """What later statements can read of this state: equal signatures, same analysis."""
        return (self.cwd, sorted(self.values.items(), key=lambda kv: kv[0]), sorted(self.unknown),
                None if self.args is None else tuple(self.args), self.arg0,
                sorted((k, tuple(v)) for k, v in self.arrays.items()), self.shopts, tuple(self.dirstack),
                tuple(self.path_dirs), sorted(self.exported))


class Ctx:
    """Per-statement context: where stdin comes from."""

    __slots__ = ("stdin",)

    def __init__(self, stdin: tuple[str, object] | None = None) -> None:
        self.stdin = stdin


class Walker:
    """Walks one parsed shell string (nested strings get their own walker)."""

    __slots__ = ("src", "result", "depth", "origin")

    def __init__(self, src: bytes, result: Result, depth: int, origin: str) -> None:
        self.src = src
        self.result = result
        self.depth = depth
        self.origin = origin

    # -- entry points ---------------------------------------------------------------------------
    def run(self, root: Node, state: State) -> None:
        if root.has_error:
            self.result.parsed = self.result.parsed and self.depth > 0
            reason = "the command line does not parse" if self.depth == 0 else \
                f"nested shell code ({self.origin}) does not parse"
            for kind in ("command", "reads", "writes", "deletes", "links", "executes"):
                self.result.mark(kind, reason, None)
        self.sequence(root, state)

    def run_string(self, code: str, state: State, origin: str) -> None:
        """Analyse nested shell code at depth + 1 in `state` (a child state for new shells,
        the same state for eval/source)."""
        tree = parse(code.encode("utf-8", "surrogatepass"))
        walker = Walker(code.encode("utf-8", "surrogatepass"), self.result, self.depth + 1, origin)
        old = state.walker
        state.walker = walker
        try:
            walker.run(tree, state)
        finally:
            state.walker = old

    def expander(self, state: State) -> Expander:
        return Expander(self.src, state, self.result)

    # -- statements -----------------------------------------------------------------------------
    def sequence(self, node: Node, state: State, ctx: Ctx | None = None) -> None:
        for child in node.children:
            if child.type not in SKIP and child.is_named:
                before = state.cwd
                state.clear_cd()
                self.statement(child, state, ctx or Ctx())
                if state.cd_result == "unsure" and state.cwd != before:
                    state.cwd = None  # `cd d; …`: what follows runs whether cd succeeded or not

    def statement(self, node: Node, state: State, ctx: Ctx) -> None:
        self.result.check()
        handler = STATEMENTS.get(node.type)
        if handler is not None:
            handler(self, node, state, ctx)
        else:
            self._other(node, state, ctx)

    def _other(self, node: Node, state: State, ctx: Ctx) -> None:
        """Anything else (test commands, arithmetic, errors): its substitutions still run."""
        if node.type == "ERROR":
            self.result.parsed = False
        for child in node.children:
            if child.type in STATEMENTS:
                self.statement(child, state, ctx)
            elif child.type in ("command_substitution", "process_substitution"):
                state.substitute(child)
            elif child.type in ("arithmetic_expansion", "expansion"):
                self.expander(state).chunks([child])
            elif child.child_count:
                self._other(child, state, ctx)

    def _list(self, node: Node, state: State, ctx: Ctx) -> None:
        ok, fail = self._cond(node, state, ctx)
        _replace_state(state, _merge(ok, fail) or state)

    def _cond(self, node: Node, state: State, ctx: Ctx) -> tuple[State | None, State | None]:
        """(state when `node` succeeded, state when it failed); None: that outcome cannot
        happen (a cd into an existing directory does not fail)."""
        parts = [c for c in node.children if c.is_named and c.type != "comment"]
        ops = [c.type for c in node.children if c.type in ("&&", "||")]
        if node.type == "list" and len(parts) == 2 and len(ops) == 1:
            before = state.copy()
            ok_l, fail_l = self._cond(parts[0], state, ctx)
            if ops[0] == "&&":
                if ok_l is None:
                    return None, fail_l
                ok_r, fail_r = self._cond(parts[1], ok_l, ctx)
                return ok_r, _merge(fail_l, fail_r)
            if fail_l is None:  # still report what the right side would do (the left may fail after all)
                self._cond(parts[1], before, ctx)
                return ok_l, None
            ok_r, fail_r = self._cond(parts[1], fail_l, ctx)
            return _merge(ok_l, ok_r), fail_r
        if node.type == "negated_command" and len(parts) == 1:
            ok, fail = self._cond(parts[0], state, ctx)
            return fail, ok
        before = state.copy()
        state.clear_cd()
        self.statement(node, state, ctx)
        if state.cd_result == "sure":
            return state, None
        if state.cd_result == "unsure":
            return state, before
        if node.type in ("command", "redirected_statement", "pipeline", "subshell", "declaration_command",
                         "variable_assignment"):
            return state, state.copy()
        return state, _merge(before, state)

    def _pipeline(self, node: Node, state: State, ctx: Ctx) -> None:
        stages = [c for c in node.children if c.is_named and c.type != "comment"]
        stdin = ctx.stdin
        for stage in stages:
            start = len(self.result.commands)
            self.statement(stage, state.copy(), Ctx(stdin))
            made = [c for c in self.result.commands[start:] if c.depth == self.depth]
            stdin = ("cmd", made[-1]) if len(made) == 1 else ("opaque", "output of a compound pipeline stage")

    def _subshell(self, node: Node, state: State, ctx: Ctx) -> None:
        self.sequence(node, state.copy(), ctx)

    def _group(self, node: Node, state: State, ctx: Ctx) -> None:
        self.sequence(node, state, ctx)

    def _if(self, node: Node, state: State, ctx: Ctx) -> None:
        branches: list[State] = []
        cur: State | None = None
        for child in node.children:
            if child.type == "then":
                cur = state.copy()
                branches.append(cur)
            elif child.type in ("elif_clause", "else_clause"):
                branch = state.copy()
                self.sequence(child, branch, ctx)
                branches.append(branch)
            elif child.is_named and child.type not in SKIP:
                self.statement(child, state if cur is None else cur, ctx)
        if not any(c.type == "else_clause" for c in node.children):
            branches.append(state.copy())
        merged = branches[0]
        merged.merge(branches[1:])
        _replace_state(state, merged)

    def _loop(self, node: Node, state: State, ctx: Ctx) -> None:
        if node.type == "while_statement" and self._read_loop(node, state, ctx):
            return
        self._repeat(lambda st: self.sequence(node, st, ctx), state)

    def _repeat(self, once: Callable[[State], None], state: State) -> None:
        """A loop whose iterations are not listed one by one: the body (with its condition) is
        walked from the state before it, then again from the merge of every state seen so far,
        until a pass changes nothing (`x=a; while :; do rm $x; x=secrets; done` deletes secrets
        on the second pass; a merge makes what differs unknown). A loop that has not settled
        after MAX_LOOP_PASSES passes leaves every variable, the arguments and the directory unknown."""
        for _ in range(MAX_LOOP_PASSES):
            before = state.copy()
            once(state)
            state.merge([before])
            if state.signature() == before.signature():
                return
        for name in set(state.values) | set(state.arrays):
            state.invalidate(name)
        state.args = None
        state.cwd = None
        for kind in ("command", *KINDS):
            self.result.mark(kind, "a loop's state did not settle: what its later iterations do is not known", None)

    def _read_loop(self, node: Node, state: State, ctx: Ctx) -> bool:
        """`while [IFS=] read [-r] NAME; do …; done < FILE` (or from a here-document, a static
        `echo`/`cat FILE` stage): the body once per line, NAME bound to it. False: not this
        form or the input is not static (then the loop is analysed once with NAME unknown)."""
        conditions = [c for c in node.children_by_field_name("condition") if c.is_named]
        body = node.child_by_field_name("body")
        if len(conditions) != 1 or conditions[0].type != "command" or body is None:
            return False
        cond = conditions[0]
        name_node = cond.child_by_field_name("name")
        words = [text(self.src, c) for c in cond.children_by_field_name("argument")]
        prefix = [text(self.src, c) for c in cond.children if c.type == "variable_assignment"]
        if name_node is None or text(self.src, name_node) != "read" or prefix not in ([], ["IFS="]):
            return False
        raw = "-r" in words
        names = [w for w in words if w != "-r"]
        if len(names) != 1 or not names[0].isidentifier():
            return False
        lines = loop_input(ctx.stdin, self.result)
        if lines is None or len(lines) > MAX_LOOP_VALUES or (not raw and any("\\" in ln for ln in lines)):
            return False
        self.statement(cond, state.copy(), ctx)  # `read` itself (listed once)
        for line in lines:
            state.assign(names[0], line if prefix else line.strip(" \t"))
            self.sequence(body, state, Ctx())
        return True

    def _for(self, node: Node, state: State, ctx: Ctx) -> None:
        var = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values_nodes = [c for c in node.children_by_field_name("value")]
        name = text(self.src, var) if var is not None else ""
        if values_nodes:
            fields: list[Field] = []
            for group in words_of(values_nodes):
                fields.extend(self.expander(state).fields(group))
        else:
            fields = [Field(a) for a in (state.args or [])] if state.args is not None else \
                [Field(None, reason="for without `in` iterates over unknown positional parameters")]
        if body is None:
            return
        static = all(f.value is not None for f in fields) and len(fields) <= MAX_LOOP_VALUES
        if not static:
            def once(st: State) -> None:
                st.invalidate(name)
                self.sequence(body, st, ctx)

            self._repeat(once, state)
            return
        for f in fields:
            state.assign(name, f.value)
            self.sequence(body, state, ctx)

    def _c_for(self, node: Node, state: State, ctx: Ctx) -> None:
        for child in node.children:
            if child.type == "variable_assignment":
                n = child.child_by_field_name("name")
                if n is not None:
                    state.invalidate(text(self.src, n))
        body = node.child_by_field_name("body")
        if body is not None:
            self._repeat(lambda st: self.sequence(body, st, ctx), state)

    def _case(self, node: Node, state: State, ctx: Ctx) -> None:
        value = node.child_by_field_name("value")
        if value is not None:
            self.expander(state).fields([value], glob=False)
        branches = []
        for item in node.children:
            if item.type != "case_item":
                continue
            branch = state.copy()
            for child in item.children:
                if child.type in STATEMENTS:
                    self.statement(child, branch, ctx)
            branches.append(branch)
        state.merge(branches)

    def _function(self, node: Node, state: State, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is not None and body is not None:
            state.functions[text(self.src, name)] = (body, self)
            if text(self.src, name) == "command_not_found_handle":  # bash calls it for unknown commands
                self.call_function("command_not_found_handle", state, None, None)

    def _negated(self, node: Node, state: State, ctx: Ctx) -> None:
        self.sequence(node, state, ctx)

    def _assignment(self, node: Node, state: State, ctx: Ctx) -> None:
        name, value = self.assignment(node, state)
        if name is not None:
            state.assign(name, value, export=name in state.exported)

    def assignment(self, node: Node, state: State) -> tuple[str | None, str | None]:
        """(name, static value or None) of `name=value`; arrays and `+=` of unknowns are opaque."""
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return None, None
        append = b"+=" in self.src[node.start_byte:node.end_byte].split(b"=", 1)[0] + b"="
        if name_node.type == "subscript":  # a[i]=v
            inner = name_node.child_by_field_name("name")
            index = name_node.child_by_field_name("index")
            element = self.expander(state).single([value_node]).value if value_node is not None else ""
            array_name = text(self.src, inner) if inner is not None else None
            if array_name is None:
                return None, None
            items = state.array(array_name)
            idx = text(self.src, index) if index is not None else ""
            if items is None or not idx.isdigit() or int(idx) > len(items) or element is None or append:
                state.arrays.pop(array_name, None)
                return array_name, None
            items = items + [""] * (int(idx) + 1 - len(items))
            items[int(idx)] = element
            state.arrays[array_name] = items
            return array_name, items[0]
        name = text(self.src, name_node)
        old_items = state.array(name) if append else []
        state.arrays.pop(name, None)
        if value_node is None:
            value: str | None = ""
        elif value_node.type == "array":  # a=(x y *.py): elements expanded like arguments
            elements: list[Field] = []
            exp = self.expander(state)
            for group in words_of([c for c in value_node.children if c.is_named]):
                elements.extend(exp.fields(group))
            if old_items is None or any(f.value is None for f in elements):
                return name, None
            items = old_items + [f.value or "" for f in elements]
            state.arrays[name] = items
            return name, items[0] if items else ""
        else:
            field = self.expander(state).single([value_node])
            value = field.value
            if name == "PATH":  # directories searched first for command names (see semantics)
                leading = value if value is not None else field.prefix.rpartition(":")[0]
                state.path_dirs = leading.split(":") if leading or value == "" else []
        if append and value is not None:
            known, old = state.lookup(name)
            value = (old or "") + value if known else None
        return name, value

    def _declaration(self, node: Node, state: State, ctx: Ctx) -> None:
        semantics.declaration(self, node, state)

    def _unset(self, node: Node, state: State, ctx: Ctx) -> None:
        exp = self.expander(state)
        for child in node.children[1:]:
            if child.is_named:
                for f in exp.fields([child], glob=False):
                    if f.value is not None and not f.value.startswith("-"):
                        state.unset(f.value)
                    elif f.value is None:
                        self.result.mark("command", "unset of a name known only at run time", None)

    def _redirected(self, node: Node, state: State, ctx: Ctx) -> None:
        body = node.child_by_field_name("body")
        redirects, tails = heredoc_tails([c for c in node.children if c.type in REDIRECT_NODES])
        before = state.cwd
        records, stdin = semantics.redirects(self, redirects, state, None)
        start = len(self.result.commands)
        if body is not None:
            self.statement(body, state, Ctx(stdin or ctx.stdin))
        if body is not None and body.type == "list" and state.cwd != before:
            # `cd d && cmd > f`: the redirection belongs to the list's last command, which runs
            # in the directory the list changed to; resolve the targets again there.
            records, _ = semantics.redirects(self, redirects, state, None)
            if stdin is not None and stdin[0] == "file":
                self.result.mark("command", "input redirection after a directory change in the same list "
                                 "(which file feeds the command is not certain)", None)
        made = [c for c in self.result.commands[start:] if c.depth == self.depth]
        targets = made[-1:] if body is not None and body.type in ("list", "pipeline") else made
        for cmd in targets:
            cmd.redirects.extend(records)
        self.run_tails(tails, state, made[-1] if made else None)

    def run_tails(self, tails: list[Node], state: State, last: Cmd | None) -> None:
        """What the grammar hangs onto a here-document's first line: `| next stage` or
        `&& / || next command` (the here-document belongs to the command before)."""
        for tail in tails:
            if tail.type == "pipeline":
                stdin: tuple[str, object] | None = ("cmd", last) if last is not None else None
                for stage in tail.children:
                    if stage.is_named and stage.type != "comment":
                        start = len(self.result.commands)
                        self.statement(stage, state.copy(), Ctx(stdin))
                        made = [c for c in self.result.commands[start:] if c.depth == self.depth]
                        stdin = ("cmd", made[-1]) if len(made) == 1 else ("opaque", "output of a pipeline stage")
            else:
                self.statement(tail, state, Ctx())

    def _command(self, node: Node, state: State, ctx: Ctx) -> None:
        semantics.simple_command(self, node, state, ctx)

    def call_function(self, name: str, state: State, args: list[str] | None, cmd: Cmd | None) -> bool:
        found = state.functions.get(name)
        if found is None:
            return False
        body, walker = found
        if self.depth + 1 > self.result.budget.max_depth:
            self.result.mark("command", f"function {name} nested deeper than the analysis budget", cmd)
            return True
        inner = Walker(walker.src, self.result, self.depth + 1, f"function:{name}")
        saved_args, saved_walker = state.args, state.walker
        state.args, state.walker = args, inner
        try:
            inner.statement(body, state, Ctx())
        finally:
            state.args, state.walker = saved_args, saved_walker
        return True


def loop_input(stdin: tuple[str, object] | None, result: Result) -> list[str] | None:
    """The lines a `while read` loop reads, when its input is static: a here-document or
    here-string, a regular file within the byte budget, or a static pipeline stage."""
    if stdin is None:
        return None
    kind, value = stdin
    content: str | None = None
    if kind == "text" and isinstance(value, str):
        content = value
    elif kind == "cmd" and isinstance(value, Cmd) and not value.redirects:
        content = static_output(value)
        words = [f.value for f in value.fields[1:]]
        if content is None and value.name == "cat" and len(words) == 1 and words[0] and value.cwd:
            kind, value = "file", os.path.join(value.cwd, words[0])
    if kind == "file" and isinstance(value, str):
        path = os.path.realpath(value)
        if not os.path.isfile(path) or os.path.getsize(path) > result.budget.max_bytes - result.bytes_read or \
                path in result.effects["writes"]:
            return None
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None  # unreadable: the loop stays opaque (its variable is unknown)
        result.bytes_read += len(data)
        if b"\0" in data:
            return None
        content = data.decode("utf-8", "replace")
    if content is None:
        return None
    return content.split("\n")[:-1] if content.endswith("\n") else content.split("\n")


def _merge(a: State | None, b: State | None) -> State | None:
    if a is None:
        return b
    if b is None:
        return a
    out = a.copy()
    out.merge([b])
    return out


def _replace_state(target: State, source: State) -> None:
    for slot in State.__slots__:
        setattr(target, slot, getattr(source, slot))



STATEMENTS: dict[str, Callable[[Walker, Node, State, Ctx], None]] = {
    "program": Walker.sequence,
    "list": Walker._list,
    "pipeline": Walker._pipeline,
    "subshell": Walker._subshell,
    "compound_statement": Walker._group,
    "do_group": Walker._group,
    "if_statement": Walker._if,
    "while_statement": Walker._loop,
    "until_statement": Walker._loop,
    "for_statement": Walker._for,
    "select_statement": Walker._for,
    "c_style_for_statement": Walker._c_for,
    "case_statement": Walker._case,
    "function_definition": Walker._function,
    "negated_command": Walker._negated,
    "variable_assignment": Walker._assignment,
    "variable_assignments": Walker._group,
    "declaration_command": Walker._declaration,
    "unset_command": Walker._unset,
    "redirected_statement": Walker._redirected,
    "command": Walker._command,
}


def initial_state(walker: Walker, cwd: str, env: dict[str, str]) -> State:
    state = State(os.path.normpath(cwd), env, [], walker)
    return state
