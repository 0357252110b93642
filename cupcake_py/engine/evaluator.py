"""One evaluation: event → (org phases, global phase, project phase) → final decision.

The org tier (engine/fleet_active.py, docs/fleet.md) comes first: the org directory and the
activated bundles of its sources, each a phase whose halt/deny/block answer is final, as the
global one's is. A source without a verified, activated bundle fails the evaluation closed.

Per configuration directory: load the bundle (cache or build) → route (event, tool) →
nothing routed: no decisions (no preprocessing, signals or WASM) → preprocess → signals
required by the routed policies → WASM (`cupcake/system/evaluate`) under wasmtime →
decisions of the routed packages. The global phase runs first; its halt/deny/block
answer is final. Otherwise its decisions join the project's and one synthesis decides.
The deadline (--timeout) starts with the evaluation (`started`: `cupcake eval`'s start, a
`cupcake serve` request's arrival) and covers everything: reading, the bundle (a cache miss is
built by a detached worker and waited for until the deadline, engine/build_worker.py), routing,
preprocessing, signals and WASM.

Where bundles and policy instances come from is a `BundleSource`: the default one reads the
disk cache and instantiates a fresh module per evaluation (one-shot `cupcake eval`);
`engine/warm.py` keeps them in memory for `cupcake serve`. Both run this one evaluation path.
"""

from __future__ import annotations

import os
import time

from cupcake_py.core import jsonio
from cupcake_py.core.errors import CupcakeError, EventError
from cupcake_py.core.userdirs import warn
from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.fleet_active import FleetError, org_configs
from cupcake_py.engine.observe import Trace
from cupcake_py.engine.options import EvalOptions
from cupcake_py.engine.project import ConfigDir, find_global, find_project
from cupcake_py.engine.routed_aggregator import ROUTED_INPUT
from cupcake_py.engine.routed_aggregator import entrypoint as aggregator
from cupcake_py.engine.synthesis import STOPPING, DecisionSet, FinalDecision, parse_decision_set, synthesize
from cupcake_py.governance.settings import merge as merge_governance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from cupcake_py.engine.bundle_index import BundleIndex, Route
    from cupcake_py.engine.harness_api import Harness
    from cupcake_py.engine.sandbox_floor import Floor
    from cupcake_py.engine.state_paths import Resolver
    from cupcake_py.host.policy import PolicyInstance


_ABSENT = object()
SANDBOX_OFF = {"enabled": False, "available": False, "applies": False, "reason": "the rulebook does not enable the "
               "sandbox (sandbox: {enabled: true})"}


class EngineError(CupcakeError):
    pass


class DeadlineError(EngineError):
    pass


def parse_event(raw: bytes | list[bytes], max_bytes: int) -> Any:
    """The decoded JSON value of the event (the harness validates it). Given as a one-item list
    the bytes are taken out of it (the caller's last reference) and dropped once decoded, so
    the event's bytes, its text and its value are never all in memory at once."""
    data = raw.pop() if isinstance(raw, list) else raw
    if len(data) > max_bytes:
        raise EventError(f"the event is larger than {max_bytes} bytes (see --max-input-bytes)")
    if not data or data.isspace():
        raise EventError("no event on stdin (expected one JSON object)")
    try:
        text = jsonio.decode(data)
        del data
        return jsonio.loads(text)
    except jsonio.JSONError as e:
        raise EventError(f"the event is not valid JSON: {e}") from None


class BundleSource:
    """Bundles and policy instances for one-shot evaluations: the bundle from the disk cache
    (built on a miss), a fresh module instance per evaluation."""

    module_cache = "in memory"  # native-code cache state of the last module loaded (--trace bundle)

    def load(self, cfg: ConfigDir, use_cache: bool, builtins: list[str],
             deadline: float | None = None) -> tuple[bundles.Bundle, bool]:
        """(bundle, cache hit); `builtins`: the --custom-builtins modules; a miss is built by a
        worker and waited for until `deadline` (engine/bundle.load)."""
        return bundles.load(cfg, use_cache=use_cache, builtins=builtins, deadline=deadline)

    def instance(self, b: bundles.Bundle, deadline: float, memory_limit: int) -> PolicyInstance:
        from cupcake_py.host import HostOptions, PolicyModule

        module = PolicyModule.load(b.wasm, HostOptions(deadline=deadline, memory_limit=memory_limit))
        self.module_cache = module.load_stats.cache
        return module.instantiate(builtins=custom_implementations(b))

    def evaluated(self, b: bundles.Bundle, inst: PolicyInstance) -> None:
        """Called after each evaluation of `inst` (trapped or not); one-shot instances are dropped."""

    def config_json(self, b: bundles.Bundle, config: dict[str, Any]) -> bytes:
        """`config` (the bundle's builtin_config of this evaluation) as JSON text."""
        return jsonio.dumps(config)

    def path_resolver(self) -> Resolver | None:
        """The state paths' resolver for this evaluation (None: a new one)."""
        return None


ONE_SHOT = BundleSource()


_ROUTED_KEY = jsonio.dumps(ROUTED_INPUT) + b":"
_FLOOR_BUDGET = 4096  # values `fits_memory` looks at (a bound, so a cost per evaluation that does not grow)
_ENGINE_FIELDS = frozenset({"history", "signals", "builtin_config", "sandbox", ROUTED_INPUT})  # set by `phase`


class Evaluation:
    def __init__(self, opts: EvalOptions, trace: Trace, harness: Harness, source: BundleSource = ONE_SHOT,
                 start: str | None = None, started: float | None = None) -> None:
        self.opts = opts
        self.trace = trace
        self.harness = harness
        self.source = source
        self.start = start  # where project discovery starts (None: the process working directory)
        self.event: dict[str, Any] | None = None  # the validated event (for the harness's answer)
        self.decoded: Any = None  # the decoded JSON, valid or not (a failure answer may use its event name)
        self.deadline = (time.monotonic() if started is None else started) + opts.timeout  # the whole evaluation
        self._enriched: dict[bool, dict[str, Any]] = {}
        self._enriched_json: tuple[dict[str, Any], bytes, int] | None = None  # (enriched event, its JSON, size)
        self.telemetry_path: str | None = None  # set when the project rulebook enables telemetry
        self.debug_dir: str | None = None  # default for --debug-files: <project>/.cupcake/debug
        self.configs: tuple[ConfigDir | None, ConfigDir | None] = (None, None)  # (project, global)
        self._guardrails: dict[str, Any] | None = None
        self._resolver: Resolver | None = None  # realpath of the state paths and the sandbox profile's paths
        self.custom_code: list[str] = []  # custom builtin modules named by a .py path (state paths)
        # governance (audit log, input.history): merged settings of the loaded bundles, None when off
        self.governance: dict[str, Any] | None = None
        self.bundle_keys: list[str] = []
        self.project_root: str | None = None
        self.now = time.time()  # the evaluation's wall-clock time (history windows, audit record)
        self.floor: Floor | None = None  # the kernel floor of this call (engine/sandbox_floor.py), when enabled
        self.oversized: int | None = None  # the data size of an event denied as too large (`fits_memory`)

    # -- steps -------------------------------------------------------------------

    def remaining(self, what: str) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineError(f"the evaluation deadline of {self.opts.timeout:g}s passed before {what}")
        return left

    def enriched(self, event: dict[str, Any], script_inspection: bool) -> dict[str, Any]:
        if script_inspection not in self._enriched:
            with self.trace.phase("preprocess"):
                enriched = self.harness.preprocess(event, script_inspection=script_inspection)
                _add_project_file_path(enriched, self.project_root)
                self._enriched[script_inspection] = enriched
        return self._enriched[script_inspection]

    def signals(self, cfg: ConfigDir, b: bundles.Bundle, routed: Sequence[str], enriched: dict[str, Any], cwd: str,
                ph: dict[str, Any]) -> dict[str, Any]:
        wanted = wanted_signals(b.index, routed, enriched)
        if not wanted:
            return {}
        shell = {n: _shell_spec(b.signals[n], cfg) for n in wanted if n in b.signals}
        native = [n for n in wanted if n not in b.signals and n != "history"]
        values: dict[str, Any] = {}
        with self.trace.phase("signals"):
            self.remaining("signals")
            t0 = time.perf_counter()
            if native:
                from cupcake_py.engine import native_signals

                values.update(native_signals.gather(native, enriched, cwd, self.deadline, self.inside_floor()))
                ph.setdefault("signals", []).extend(
                    {"name": n, "ok": n in values, "ms": round((time.perf_counter() - t0) * 1000, 3), "native": True}
                    for n in native)
            if "history" in wanted:
                values["history"] = self.history(enriched, cwd)
                ph.setdefault("signals", []).append(
                    {"name": "history", "ok": True, "ms": round((time.perf_counter() - t0) * 1000, 3), "native": True})
            if shell:  # the shell runner (subprocess, selectors, signal) loads only for shell signals
                from cupcake_py.engine.signals import run_signals

                if self.floor is not None:  # signals run project files too: inside the kernel floor
                    from cupcake_py.sandbox.bwrap import SandboxError

                    try:
                        shell = {n: {**spec, "command": self.floor.signal_command(spec["command"])}
                                 for n, spec in shell.items()}
                    except SandboxError as e:
                        raise EngineError(f"the signals cannot run sandboxed: {e}") from None

                for r in run_signals(shell, jsonio.dumps(enriched), cwd, self.deadline):
                    values[r.name] = r.value
                    ph.setdefault("signals", []).append(
                        {"name": r.name, "ok": r.ok, "ms": round(r.seconds * 1000, 3), "value": r.value})
        return values

    def inside_floor(self) -> Callable[[list[str]], list[str]] | None:
        """How a native signal runs a program inside the kernel floor (when it is enabled)."""
        floor = self.floor
        if floor is None:
            return None

        def inside(argv: list[str]) -> list[str]:
            import shlex

            from cupcake_py.sandbox.bwrap import SandboxError

            command = shlex.join(argv)
            try:
                line = floor.signal_command(command)
            except SandboxError as e:
                raise EngineError(f"the signals cannot run sandboxed: {e}") from None
            return argv if line == command else ["/bin/bash", "-c", line]

        return inside

    def history(self, enriched: dict[str, Any], cwd: str) -> dict[str, Any]:
        """input.history from the governance database; any failure fails the evaluation closed."""
        from cupcake_py.governance import history, store

        settings = self.governance
        if settings is None:  # a routed policy reads history, so its bundle records (settings.bundle_settings)
            raise EngineError("a policy requires the history signal but no bundle records evaluations")
        try:
            conn = store.connect(None, settings["write_budget_ms"] / 1000.0)
            return history.gather(conn, settings, enriched, cwd, self.now)
        except store.StoreError as e:
            raise EngineError(f"the history signal is unavailable: {e}") from None
        except Exception as e:  # sqlite3.Error and anything else: fail closed, naming the signal
            raise EngineError(f"the history signal failed: {type(e).__name__}: {e}") from None

    def audit_event(self) -> dict[str, Any] | None:
        """The event an audit record describes: preprocessed when a policy was routed, else the
        validated event with its policy-facing tool_name; None when the event was invalid. An event
        denied as too large (`fits_memory`) is described by its short scalar fields only, its
        arguments replaced by a note of their size (recording them would cost what was refused)."""
        raw = self.trace.notes.get("event")
        if self.oversized is not None and isinstance(raw, dict):
            kept = {k: v for k, v in raw.items() if not isinstance(v, dict | list) and len(str(v)) <= 4096}
            note = {"cupcake_omitted": f"at least {self.oversized} bytes of data: too large to evaluate"}
            return {**kept, "tool_name": self.harness.tool_name(raw), "tool_input": note}
        for enriched in self._enriched.values():
            return enriched
        if not isinstance(raw, dict):
            return None
        return {**raw, "tool_name": self.harness.tool_name(raw)}

    def input_json(self, b: bundles.Bundle, policy_input: dict[str, Any]) -> bytes:
        """The policy input as JSON text (`jsonio.dumps` output: strict JSON). Its builtin_config
        (most of the text, the same from one evaluation to the next) is encoded by the bundle
        source, which may reuse the text; the enriched event's fields, when the input holds every
        one of them as the very object the enriched event holds, are encoded once per evaluation
        (the global and the project phase share them); `input.cupcake_routed`, when it is a
        memoised route's flags tuple, is that route's JSON text. Key order: as in the input, then
        cupcake_routed, builtin_config last."""
        shared = self._shared_json(policy_input)
        flags = b.index.flags_json(policy_input.get(ROUTED_INPUT, _ABSENT))
        spliced = ("builtin_config",) if flags is None else ("builtin_config", ROUTED_INPUT)
        if shared is None:
            parts = [jsonio.dumps({k: v for k, v in policy_input.items() if k not in spliced})[1:-1]]
        else:
            extra = {k: v for k, v in policy_input.items() if k not in shared[0] and k not in spliced}
            parts = [shared[1], jsonio.dumps(extra)[1:-1]]
        if flags is not None:
            parts.append(_ROUTED_KEY + flags)
        if "builtin_config" in policy_input:
            parts.append(b'"builtin_config":' + self.source.config_json(b, policy_input["builtin_config"]))
        return b"{" + b",".join(p for p in parts if p) + b"}"

    def _shared_json(self, policy_input: dict[str, Any]) -> tuple[dict[str, Any], bytes] | None:
        """(enriched event, its fields as JSON text without the braces) when `policy_input` holds
        each of its fields as the same object; None otherwise (then nothing is shared)."""
        for enriched in self._enriched.values():
            if "builtin_config" in enriched or any(policy_input.get(k, _ABSENT) is not v
                                                   for k, v in enriched.items()):
                continue
            known = self._enriched_json
            if known is None or known[0] is not enriched or known[2] != len(enriched):
                known = self._enriched_json = (enriched, jsonio.dumps(enriched)[1:-1], len(enriched))
            return known[0], known[1]
        return None

    def fits_memory(self, event: dict[str, Any], what: str) -> None:
        """EngineError (fail closed) when `event` (the event, or the enriched one) holds more data
        than the policy module's memory cap (--wasm-max-memory) can take: the policy input holds it,
        so it could not be evaluated. Checked before anything is encoded or run, so a huge event is
        denied at once, without its preprocessing, its JSON text (several copies) or an instance that
        would run out of memory. The fields the engine sets itself are not counted."""
        limit = self.opts.wasm_max_memory
        floor = jsonio.size_floor({k: v for k, v in event.items() if k not in _ENGINE_FIELDS}, _FLOOR_BUDGET)
        if floor > limit:
            self.oversized = floor
            raise EngineError(f"the {what} holds at least {floor} bytes of data, more than the policy memory cap "
                              f"({limit} bytes, --wasm-max-memory): too large to evaluate")

    def wasm(self, b: bundles.Bundle, policy_input: dict[str, Any]) -> Any:
        from cupcake_py.host.errors import HostError

        with self.trace.phase("wasm"):
            input_json = self.input_json(b, policy_input)
            if len(input_json) > self.opts.wasm_max_memory:  # it is copied into the module's memory: cannot fit
                raise EngineError(f"the policy input ({len(input_json)} bytes) does not fit in the policy memory cap "
                                  f"({self.opts.wasm_max_memory} bytes, --wasm-max-memory)")
            left = self.remaining("the policy evaluation")
            inst = None
            try:
                inst = self.source.instance(b, left, self.opts.wasm_max_memory)
                self.trace.phases[-1]["module_cache"] = self.source.module_cache
                # the generated aggregator evaluates only the routed packages (engine/routed_aggregator.py)
                raw = inst.eval_raw(aggregator(inst.entrypoints), input_json=input_json, input_encoded=True)
            except HostError as e:
                raise EngineError(f"policy evaluation failed ({b.scope} policies): {e}") from None
            finally:
                if inst is not None:
                    self.source.evaluated(b, inst)
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
                self._guardrails = guardrails_input(*self.configs, self.harness.cwd(event), self.custom_code,
                                                    self.path_resolver())
        return {**b.builtin_config, bundles.GUARDRAILS: {**cfg, **self._guardrails}}

    def path_resolver(self) -> Resolver:
        """One resolver for this evaluation (the source's, or a new one): each directory of the state
        paths and of the sandbox profile is resolved once."""
        if self._resolver is None:
            from cupcake_py.engine.state_paths import Resolver

            self._resolver = self.source.path_resolver() or Resolver()
        return self._resolver

    def phase(self, cfg: ConfigDir, b: bundles.Bundle, hit: bool, route: Route, event: dict[str, Any],
              cwd: str) -> DecisionSet:
        ph: dict[str, Any] = {"scope": cfg.scope, "cupcake_dir": cfg.cupcake_path, "bundle_cache": "hit" if hit
                              else "miss", "routed_policies": route.packages}
        self.trace.phases.append(ph)
        if not route.packages:
            return DecisionSet()
        enriched = self.enriched(event, b.script_inspection)
        self.fits_memory(enriched, "enriched event")
        signals = self.signals(cfg, b, route.signal_users, enriched, cwd, ph)
        policy_input = dict(enriched)
        if "history" in signals:
            policy_input["history"] = signals.pop("history")
        policy_input["signals"] = signals
        policy_input["builtin_config"] = self.builtin_config(b, event)
        policy_input["sandbox"] = self.floor.status() if self.floor is not None else SANDBOX_OFF
        from cupcake_py.enrich import for_policies

        for_policies(policy_input)
        policy_input[ROUTED_INPUT] = route.flags  # last: the engine's value wins
        if self.opts.debug_files:
            self.trace.notes.setdefault(f"{cfg.scope} policy input", policy_input)
        result = self.wasm(b, policy_input)
        ph["decision_set"] = result
        with self.trace.phase("synthesis"):
            ds = parse_decision_set(result, route.names)
        return ds

    def run(self, raw: bytes | list[bytes]) -> FinalDecision:
        """Evaluate one event given as JSON text (a one-item list: the bytes are taken out and
        freed once decoded, see `parse_event`)."""
        with self.trace.phase("validate"):
            self.decoded = parse_event(raw, self.opts.max_input_bytes)
            event = self.harness.validate(self.decoded)
        return self.decide(event)

    def decide(self, event: dict[str, Any]) -> FinalDecision:
        """Evaluate one event that the harness's `validate` accepted."""
        self.event = event
        self.trace.notes["event"] = event
        with self.trace.phase("discover"):
            name = self.harness.name
            project = find_project(self.opts.policy_dir, self.start, harness=name)
            glob = None if self.opts.no_global else find_global(self.opts.global_config, harness=name)
            try:
                orgs = org_configs(name)
            except FleetError as e:
                raise EngineError(f"configuration error: {e}") from None
            if project is None and glob is None and not orgs:
                where = os.getcwd() if self.start is None else self.start
                raise EngineError(f"no .cupcake directory in {where} or its parents, and no global config "
                                  "(create .cupcake/ or pass --policy-dir)")
        self.configs = (project, glob)
        configs = orgs + [c for c in (glob, project) if c is not None]
        if project is not None:
            self.debug_dir = os.path.join(project.cupcake_path, "debug")
        loaded = []
        with self.trace.phase("bundle"):
            for cfg in configs:
                self.remaining("loading the policies")
                b, hit = self.source.load(cfg, not self.opts.no_cache, self.opts.builtins, self.deadline)
                loaded.append((cfg, b, hit))
                if cfg.scope == "project" and b.telemetry.get("enabled"):
                    self.telemetry_path = os.path.join(cfg.root_path, b.telemetry["destination"])
                if b.guardrails_disabled:
                    warn(f"the rulebook security guardrails are DISABLED in {cfg.rulebook_path} "
                         "(builtins.rulebook_security_guardrails.enabled: false): the agent can read and change "
                         "cupcake's configuration, caches and plugin, and so switch every policy off")
                if b.require_project_config and project is None:
                    raise EngineError(f"configuration error: the {cfg.scope} rulebook {cfg.rulebook_path} sets "
                                      f"require_project_config: true and there is no .cupcake directory in "
                                      f"{os.getcwd()} or its parents (run `cupcake init --harness {self.harness.name}`)")
        self.custom_code = sorted({s for _, b, _ in loaded for s in b.custom_builtins if s.endswith(".py")})
        self.bundle_keys = [b.key for _, b, _ in loaded]
        self.project_root = project.root_path if project is not None else self.harness.cwd(event)
        self.governance = merge_governance([b.governance for _, b, _ in loaded])
        with self.trace.phase("route"):
            tool_name = self.harness.tool_name(event)
            event_name = self.harness.event_name(event)
            routes = [b.index.route(event_name, tool_name) for _, b, _ in loaded]
        if any(r.packages for r in routes):  # a policy will read it: it must fit in the module's memory
            self.fits_memory(event, "event")
        if any(b.sandbox.get("enabled") for _, b, _ in loaded):
            self.start_floor(loaded, event, event_name, tool_name)
        with self.trace.phase("warmup"):
            _warm_up([b for (_, b, _), r in zip(loaded, routes, strict=True) if r.packages])
        cwd = project.root_path if project is not None else self.harness.cwd(event)
        combined = DecisionSet()
        for (cfg, b, hit), route in zip(loaded, routes, strict=True):
            ds = self.phase(cfg, b, hit, route, event, cwd)
            if cfg.scope != "project":  # org and global: a stopping answer is final
                final = synthesize(ds)
                self.trace.phases[-1]["phase_decision"] = final.kind
                if final.kind in STOPPING:
                    return final
            combined.extend(ds)
        with self.trace.phase("synthesis"):
            final = synthesize(combined)
        if self.floor is None:
            return final
        with self.trace.phase("sandbox"):
            self.floor.extend(combined.sandbox)
            return self.floor.apply(final)

    def start_floor(self, loaded: list[tuple[ConfigDir, bundles.Bundle, bool]], event: dict[str, Any],
                    event_name: str, tool_name: str | None) -> None:
        """The kernel floor for this event (some rulebook enables the sandbox)."""
        from cupcake_py.engine.sandbox_floor import Floor, merge

        with self.trace.phase("sandbox"):
            settings = merge([(cfg.scope, b.sandbox) for cfg, b, _ in loaded])
            floor = self.floor = Floor(settings, self.harness, event, event_name, tool_name,
                                       self.project_root or self.harness.cwd(event))
        if settings is None:
            return
        if floor.command is not None and not floor.available:
            warn(f"the sandbox is enabled but cannot run: {floor.reason}. Shell commands run WITHOUT the kernel "
                 "floor; the policies decide alone (input.sandbox.applies is false)")

        def sources() -> Any:
            from cupcake_py.engine.state_paths import guardrails_input
            from cupcake_py.sandbox.bwrap import sandbox_dir
            from cupcake_py.sandbox.sources import Sources

            cwd = self.harness.cwd(event)
            resolver = self.path_resolver()
            if self._guardrails is None:
                self._guardrails = guardrails_input(*self.configs, cwd, self.custom_code, resolver)
            protected: list[str] = []
            sensitive: list[str] = []
            system: list[str] = []
            for _, b, _ in loaded:
                bc = b.builtin_config
                protected += bc.get("protected_paths", {}).get("paths", [])
                protected += bc.get(bundles.GUARDRAILS, {}).get("protected_paths", [])
                sensitive += bc.get("sensitive_data_protection", {}).get("additional_patterns", [])
                system += bc.get("system_protection", {}).get("additional_paths", [])
            return Sources(self._guardrails["state_paths"], self._guardrails["path_dirs"], self.project_root or cwd,
                           cwd, settings, protected, sensitive, system=system, memo_dir=sandbox_dir())

        floor.sources(sources)


def custom_implementations(b: bundles.Bundle) -> dict[str, Any] | None:
    """Host implementations of the custom builtins the bundle's module calls (their modules are
    imported only then); None when it calls none. A missing one fails closed."""
    if not b.custom_builtins:
        return None
    from cupcake_py.host.builtin_index import FAMILY_OF

    names = [n for n in b.host_builtins if n not in FAMILY_OF]
    if not names:
        return None
    from cupcake_py.extensions.builtins import CustomBuiltinError, implementations_for

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


def wanted_signals(index: BundleIndex, routed: Sequence[str], enriched: dict[str, Any]) -> list[str]:
    """The signals the routed packages ask for, in routed order (each package's declared signals,
    then its builtin-policy signals that apply to this event), without repeats. Only the bundle's
    signal users are looked at: nothing to do when it has none, however many packages are routed."""
    users = index.signal_users
    if not users:
        return []
    wanted: list[str] = []
    for pkg in [p for p in routed if p in users]:
        declared, builtin = users[pkg]
        wanted += [s for s in declared if s not in wanted]
        wanted += [s for s, spec in builtin if s not in wanted and _builtin_signal_applies(spec, enriched)]
    return wanted


def _builtin_signal_applies(spec: dict[str, Any], enriched: dict[str, Any]) -> bool:
    """Whether a builtin-policy signal (a generated `__builtin_<policy>_…` shell signal) is worth
    running for this event: post_edit_check signals (`extension`) only for edited files with
    that extension, git_pre_check signals (`command_pattern`) only for Bash commands the pattern
    finds (git commit/push/merge)."""
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


def _add_project_file_path(enriched: dict[str, Any], project_root: str | None) -> None:
    """`input.project_file_path`: a file tool's target (`resolved_file_path`: absolute, `..` and
    symlinks resolved) relative to the project root, `/`-separated (`migrations/0002.sql`), so
    `startswith(input.project_file_path, "migrations/")` holds however the agent spelled the path
    (absolute, `./migrations/x`, `src/../migrations/x`). Absent for a target outside the project."""
    resolved = enriched.get("resolved_file_path")
    if not isinstance(resolved, str) or not project_root:
        return
    root = os.path.realpath(project_root)
    rel = os.path.relpath(resolved, root) if os.path.isabs(resolved) else None
    if rel is not None and rel != ".." and not rel.startswith("../") and rel != ".":
        enriched["project_file_path"] = rel.replace(os.sep, "/")
