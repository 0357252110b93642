"""One evaluation: event → (global phase, project phase) → final decision.

Per configuration directory: load the bundle (cache or build) → route (event, tool) →
nothing routed: no decisions (no preprocessing, signals or WASM) → preprocess → signals
required by the routed policies → WASM (`cupcake/system/evaluate`) under wasmtime →
decisions of the routed packages. The global phase runs first; its halt/deny/block
answer is final. Otherwise its decisions join the project's and one synthesis decides.
The deadline (--timeout) starts once the bundles are loaded and covers routing,
preprocessing, signals and WASM.
"""

from __future__ import annotations

import os
import time

from cupcake_py import jsonio
from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.observe import Trace
from cupcake_py.engine.options import EvalOptions
from cupcake_py.engine.project import ConfigDir, find_global, find_project
from cupcake_py.engine.routing import lookup
from cupcake_py.engine.synthesis import STOPPING, DecisionSet, FinalDecision, parse_decision_set, synthesize
from cupcake_py.errors import CupcakeError
from cupcake_py.harness.opencode import data
from cupcake_py.harness.opencode.validate import EventError, validate_event
from cupcake_py.userdirs import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class EngineError(CupcakeError):
    pass


class DeadlineError(EngineError):
    pass


def parse_event(raw: bytes, max_bytes: int) -> dict[str, Any]:
    if len(raw) > max_bytes:
        raise EventError(f"the event is larger than {max_bytes} bytes (see --max-input-bytes)")
    if not raw.strip():
        raise EventError("no event on stdin (expected one JSON object)")
    try:
        value = jsonio.loads(raw)
    except jsonio.JSONError as e:
        raise EventError(f"the event is not valid JSON: {e}") from None
    return validate_event(value)


class Evaluation:
    def __init__(self, opts: EvalOptions, trace: Trace) -> None:
        self.opts = opts
        self.trace = trace
        self.deadline = time.monotonic() + opts.timeout
        self._enriched: dict[bool, dict[str, Any]] = {}
        self.telemetry_path: str | None = None  # set when the project rulebook enables telemetry
        self.debug_dir: str | None = None  # default for --debug-files: <project>/.cupcake/debug
        self.on_deadline: Callable[[float], None] | None = None  # called when the deadline clock starts
        self.configs: tuple[ConfigDir | None, ConfigDir | None] = (None, None)  # (project, global)
        self._guardrails: dict[str, Any] | None = None
        self.custom_code: list[str] = []  # custom builtin modules named by a .py path (state paths)

    # -- steps -------------------------------------------------------------------

    def remaining(self, what: str) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineError(f"the evaluation deadline of {self.opts.timeout:g}s passed before {what}")
        return left

    def enriched(self, event: dict[str, Any], script_inspection: bool) -> dict[str, Any]:
        if script_inspection not in self._enriched:
            from cupcake_py.harness.opencode.preprocess import preprocess

            with self.trace.phase("preprocess"):
                self._enriched[script_inspection] = preprocess(event, script_inspection=script_inspection)
        return self._enriched[script_inspection]

    def signals(self, cfg: ConfigDir, b: bundles.Bundle, routed: list[str], enriched: dict[str, Any], cwd: str,
                ph: dict[str, Any]) -> dict[str, Any]:
        wanted: list[str] = []
        for pkg in routed:
            info = b.policies[pkg]
            wanted += [s for s in info["signals"] if s not in wanted]
            name = info.get("builtin")
            if name:
                prefix = f"__builtin_{name}_"
                for s, spec in b.signals.items():
                    if s.startswith(prefix) and s not in wanted and _builtin_signal_applies(spec, enriched):
                        wanted.append(s)
        if not wanted:
            return {}
        from cupcake_py.engine import native_signals
        from cupcake_py.engine.signals import run_signals

        shell = {n: _shell_spec(b.signals[n], cfg) for n in wanted if n in b.signals}
        native = [n for n in wanted if n not in b.signals]
        stdin = jsonio.dumps(enriched)
        values: dict[str, Any] = {}
        with self.trace.phase("signals"):
            self.remaining("signals")
            t0 = time.perf_counter()
            if native:
                values.update(native_signals.gather(native, enriched, cwd, self.deadline))
                ph.setdefault("signals", []).extend(
                    {"name": n, "ok": n in values, "ms": round((time.perf_counter() - t0) * 1000, 3), "native": True}
                    for n in native)
            if shell:
                for r in run_signals(shell, stdin, cwd, self.deadline):
                    values[r.name] = r.value
                    ph.setdefault("signals", []).append(
                        {"name": r.name, "ok": r.ok, "ms": round(r.seconds * 1000, 3), "value": r.value})
        return values

    def wasm(self, b: bundles.Bundle, policy_input: dict[str, Any]) -> Any:
        from cupcake_py.host import HostOptions, PolicyModule
        from cupcake_py.host.errors import HostError

        with self.trace.phase("wasm"):
            left = self.remaining("the policy evaluation")
            try:
                module = PolicyModule.load(b.wasm, HostOptions(deadline=left, memory_limit=self.opts.wasm_max_memory))
                self.trace.phases[-1]["module_cache"] = module.load_stats.cache
                raw = module.instantiate(builtins=_custom_implementations(b)).eval_raw(
                    bundles.ENTRYPOINT, input_json=jsonio.dumps(policy_input))
            except HostError as e:
                raise EngineError(f"policy evaluation failed ({b.scope} policies): {e}") from None
        rows = jsonio.loads(raw)
        if not rows or "result" not in rows[0]:
            raise EngineError(f"{bundles.ENTRYPOINT} is undefined: the aggregator in system/evaluate.rego "
                              "produced no decision set")
        return rows[0]["result"]

    def builtin_config(self, b: bundles.Bundle, event: dict[str, Any]) -> dict[str, Any]:
        """The bundle's builtin configuration plus, for the rulebook security guardrails, this
        evaluation's state paths and PATH dirs (they depend on the environment, not the config)."""
        cfg = b.builtin_config.get(bundles.GUARDRAILS)
        if cfg is None:
            return b.builtin_config
        if self._guardrails is None:
            from cupcake_py.engine.state_paths import guardrails_input

            with self.trace.phase("state_paths"):
                self._guardrails = guardrails_input(*self.configs, event["cwd"], self.custom_code)
        return {**b.builtin_config, bundles.GUARDRAILS: {**cfg, **self._guardrails}}

    def phase(self, cfg: ConfigDir, b: bundles.Bundle, hit: bool, routed: list[str], event: dict[str, Any],
              cwd: str) -> DecisionSet:
        ph: dict[str, Any] = {"scope": cfg.scope, "cupcake_dir": cfg.cupcake_path, "bundle_cache": "hit" if hit
                              else "miss", "routed_policies": routed}
        self.trace.phases.append(ph)
        if not routed:
            return DecisionSet()
        enriched = self.enriched(event, b.script_inspection)
        signals = self.signals(cfg, b, routed, enriched, cwd, ph)
        policy_input = dict(enriched)
        policy_input["signals"] = signals
        policy_input["builtin_config"] = self.builtin_config(b, event)
        from cupcake_py.enrich import for_policies

        for_policies(policy_input)
        if self.opts.debug_files:
            self.trace.notes.setdefault(f"{cfg.scope} policy input", policy_input)
        result = self.wasm(b, policy_input)
        ph["decision_set"] = result
        with self.trace.phase("synthesis"):
            ds = parse_decision_set(result, set(routed))
        return ds

    def run(self, raw: bytes) -> FinalDecision:
        with self.trace.phase("validate"):
            event = parse_event(raw, self.opts.max_input_bytes)
        self.trace.notes["event"] = event
        with self.trace.phase("discover"):
            project = find_project(self.opts.policy_dir)
            glob = None if self.opts.no_global else find_global(self.opts.global_config)
            if project is None and glob is None:
                raise EngineError(f"no .cupcake directory in {os.getcwd()} or its parents, and no global config "
                                  "(create .cupcake/ or pass --policy-dir)")
        self.configs = (project, glob)
        configs = [c for c in (glob, project) if c is not None]
        if project is not None:
            self.debug_dir = os.path.join(project.cupcake_path, "debug")
        loaded = []
        with self.trace.phase("bundle"):
            for cfg in configs:
                b, hit = bundles.load(cfg, use_cache=not self.opts.no_cache, builtins=self.opts.builtins)
                loaded.append((cfg, b, hit))
                if cfg.scope == "project" and b.telemetry.get("enabled"):
                    self.telemetry_path = os.path.join(cfg.root_path, b.telemetry["destination"])
                if b.guardrails_disabled:
                    warn(f"the rulebook security guardrails are DISABLED in {cfg.rulebook_path} "
                         "(builtins.rulebook_security_guardrails.enabled: false): the agent can read and change "
                         "cupcake's configuration, caches and plugin, and so switch every policy off")
                if b.require_project_config and project is None:
                    raise EngineError(f"configuration error: the global rulebook {cfg.rulebook_path} sets "
                                      f"require_project_config: true and there is no .cupcake directory in "
                                      f"{os.getcwd()} or its parents (run `cupcake init --harness opencode`)")
        self.custom_code = sorted({s for _, b, _ in loaded for s in b.custom_builtins if s.endswith(".py")})
        with self.trace.phase("route"):
            tool_name = data.mapped_tool_name(event["tool"])
            routes = [lookup(b.routing, event["hook_event_name"], tool_name) for _, b, _ in loaded]
        with self.trace.phase("warmup"):
            _warm_up([b for (_, b, _), r in zip(loaded, routes, strict=True) if r])
        self.deadline = time.monotonic() + self.opts.timeout
        if self.on_deadline is not None:
            self.on_deadline(self.opts.timeout)
        cwd = project.root_path if project is not None else event["cwd"]
        combined = DecisionSet()
        for (cfg, b, hit), routed in zip(loaded, routes, strict=True):
            ds = self.phase(cfg, b, hit, routed, event, cwd)
            if cfg.scope == "global":
                final = synthesize(ds)
                self.trace.phases[-1]["phase_decision"] = final.kind
                if final.kind in STOPPING:
                    return final
            combined.extend(ds)
        with self.trace.phase("synthesis"):
            return synthesize(combined)


def _custom_implementations(b: bundles.Bundle) -> dict[str, Any] | None:
    """Host implementations of the custom builtins the bundle's module calls (their modules are
    imported only then); None when it calls none. A missing one fails closed."""
    if not b.custom_builtins:
        return None
    from cupcake_py.host.builtin_index import FAMILY_OF

    names = [n for n in b.host_builtins if n not in FAMILY_OF]
    if not names:
        return None
    from cupcake_py.custom_builtins import CustomBuiltinError, implementations_for

    try:
        return dict(implementations_for(names, b.custom_builtins))
    except CustomBuiltinError as e:
        raise EngineError(f"policy evaluation failed ({b.scope} policies): {e}") from None


def _warm_up(routed_bundles: list[bundles.Bundle]) -> None:
    """Import the host (and its builtin library when a module needs it) before the
    deadline clock starts: Python start-up work is not evaluation time."""
    if not routed_bundles:
        return
    import cupcake_py.host  # noqa: F401

    if any(b.host_builtins for b in routed_bundles):
        import cupcake_py.host.builtins  # noqa: F401


def _shell_spec(spec: dict[str, Any], cfg: ConfigDir) -> dict[str, Any]:
    """A bundle's signal spec with its command; auto-discovered signal files are stored
    relative to the config dir and run by their absolute path."""
    if "file" in spec:
        import shlex

        return {**spec, "command": shlex.quote(os.path.join(cfg.cupcake_path, spec["file"]))}
    return spec


def _builtin_signal_applies(spec: dict[str, Any], enriched: dict[str, Any]) -> bool:
    """Whether a generated builtin signal is worth running for this event: post_edit_check
    signals (`extension`) only for edited files with that extension, git_pre_check signals
    (`command_pattern`) only for Bash commands the pattern finds (git commit/push/merge)."""
    pattern = spec.get("command_pattern")
    shell = enriched.get("shell")
    if pattern is not None and isinstance(shell, dict) and isinstance(shell.get("git"), list):
        # the analysed git invocations (aliases, wrappers, nested shells): what the policy reads
        if not any(not isinstance(g.get("subcommand"), str) or g["subcommand"] in ("commit", "push", "merge")
                   for g in shell["git"] if isinstance(g, dict)):
            return False
    elif pattern is not None:
        import re

        command = (enriched.get("tool_input") or {}).get("command")
        if not isinstance(command, str) or re.search(pattern, command) is None:
            return False
    ext = spec.get("extension")
    if ext is None:
        return True
    paths = [enriched.get("resolved_file_path")] + list(enriched.get("affected_files") or [])
    return any(isinstance(p, str) and p.rsplit("/", 1)[-1].rpartition(".")[2] == ext and "." in p.rsplit("/", 1)[-1]
               for p in paths)
