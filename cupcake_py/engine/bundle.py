"""One compiled bundle per configuration directory (project or global) and harness.

A bundle holds everything an evaluation needs: the WASM module built by our compiler
(entrypoint `cupcake/system/evaluate`), the routing table, the signals, the injected
builtin configuration, the rulebook options and the governance (audit/history) settings. It is cached on disk under
`$XDG_CACHE_HOME/cupcake-py/bundles/<key>.bundle`, where the key is the sha256 of every
source that can go into it (policies, shipped system and builtin policies, rulebook,
signal files), the harness, the cupcake-py version, the compiler's own files, and $HOME /
the global config dir (builtin configuration expands `~` when the bundle is built). A
cache hit reads one file: no YAML, no pydantic, no Rego parsing or compiling. Entries are
written to a temp file and renamed into place, so concurrent `cupcake eval` processes
never see a partial entry.

File format: MAGIC, 8-byte big-endian header length, header JSON, MAC of header JSON + WASM
(keyed by the per-user secret of `cupcake_py.core.cache_mac`), WASM bytes (empty when no policy
needs compiling). Any mismatch (truncation, bit flips, a rewritten entry, another version's
layout) is never loaded: the bundle is rebuilt, the entry replaced and a warning printed on
stderr. Without a usable key the cache is neither read nor written.

A configuration that cannot be read whole (an unreadable policies subdirectory, a file where
a directory belongs, an unreadable rulebook or policy file) raises BundleError: the
evaluation fails closed with a configuration error, it never continues without the part it
could not read.
"""

from __future__ import annotations

import os

from cupcake_py import __version__
from cupcake_py.core import cache_mac, jsonio
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.core.record import Record
from cupcake_py.core.userdirs import (
    atomic_write,
    global_config_dir,
    home_dir,
    private_dir,
    user_cache_dir,
    warn,
)
from cupcake_py.engine.project import (
    PACKAGE_DIR,
    ConfigDir,
    ProjectError,
    path_order,
    rego_paths,
    shipped_policies_path,
    signal_paths,
    stem,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same constructor, as typeshed describes it (the private modules have no stubs)
    from hashlib import sha256 as sha256

    from cupcake_py.engine.bundle_index import BundleIndex
else:
    try:  # the builtin sha256 (hashlib's OpenSSL binding costs more to load than a bundle to check)
        from _sha2 import sha256  # CPython 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # CPython 3.11
        except ImportError:
            from hashlib import sha256

if TYPE_CHECKING:
    from typing import Any

log = LazyLogger(__name__)

MAGIC = b"CUPCAKE-BUNDLE-5\n"
ENTRYPOINT = "cupcake/system/evaluate"
_COMPILER_PARTS = ("core", "ir", "rego", "rego/compile", "plan", "wasm", "wasm/runtime", "engine", "governance")  # (core: the nodes' classes)


class BuildPending(CupcakeError):
    """A cache miss whose build (by the detached worker of engine/build_worker.py, engine/build_wait.py) was not ready
    at the evaluation's deadline; the evaluation fails closed saying so."""


class BundleError(CupcakeError):
    pass


GUARDRAILS = "rulebook_security_guardrails"


class Bundle(Record):
    __slots__ = ("key", "scope", "routing", "policies", "signals", "builtin_config", "telemetry", "script_inspection",
                 "sources", "host_builtins", "custom_builtins", "require_project_config", "governance", "sandbox", "wasm", "index")
    key: str
    scope: str
    routing: dict[str, list[str]]
    policies: dict[str, dict[str, Any]]
    signals: dict[str, dict[str, Any]]
    builtin_config: dict[str, Any]
    telemetry: dict[str, Any]
    script_inspection: bool
    sources: list[str]
    host_builtins: list[str]  # builtins the module calls on the host
    custom_builtins: list[str]  # modules providing custom builtins (cupcake_py.extensions.builtins) at build time
    require_project_config: bool  # global rulebook: deny where no project .cupcake/ exists
    governance: dict[str, Any]  # audit/history settings (cupcake_py/governance/settings.py)
    sandbox: dict[str, Any]  # the rulebook's `sandbox:` section ({} when absent; engine/sandbox_floor.py)
    wasm: bytes
    index: BundleIndex  # derived from policies + signals at construction (never in the header)

    def __init__(self, key: str, scope: str, routing: dict[str, list[str]] | None = None,
                 policies: dict[str, dict[str, Any]] | None = None, signals: dict[str, dict[str, Any]] | None = None,
                 builtin_config: dict[str, Any] | None = None, telemetry: dict[str, Any] | None = None,
                 script_inspection: bool = True, sources: list[str] | None = None,
                 host_builtins: list[str] | None = None, custom_builtins: list[str] | None = None,
                 require_project_config: bool = False, governance: dict[str, Any] | None = None,
                 sandbox: dict[str, Any] | None = None, wasm: bytes = b"", index: BundleIndex | None = None) -> None:
        policies = {} if policies is None else policies
        signals = {} if signals is None else signals
        routing = {} if routing is None else routing
        if index is None:  # (imported here: `cupcake test` uses this module's cache keys, never a Bundle)
            from cupcake_py.engine.bundle_index import index as bundle_index

            index = bundle_index(routing, policies, signals)
        self._fill(key, scope, routing, policies, signals,
                   {} if builtin_config is None else builtin_config,
                   {} if telemetry is None else telemetry, script_inspection, [] if sources is None else sources,
                   [] if host_builtins is None else host_builtins, [] if custom_builtins is None else custom_builtins,
                   require_project_config, {} if governance is None else governance,
                   {} if sandbox is None else sandbox, wasm, index)

    def header(self) -> dict[str, Any]:
        return {"key": self.key, "scope": self.scope, "routing": self.routing,
                "policies": self.policies, "signals": self.signals, "builtin_config": self.builtin_config,
                "telemetry": self.telemetry, "script_inspection": self.script_inspection, "sources": self.sources,
                "host_builtins": self.host_builtins, "custom_builtins": self.custom_builtins,
                "require_project_config": self.require_project_config,
                "governance": self.governance, "sandbox": self.sandbox}

    @property
    def guardrails_disabled(self) -> bool:
        """The rulebook switched the rulebook security guardrails off (they are on by default)."""
        return GUARDRAILS not in self.builtin_config


# ----------------------------------------------------------------------------- sources


def _system_files(cfg: ConfigDir) -> list[str]:
    own = rego_paths(cfg.system_path)
    if os.path.join(cfg.system_path, "evaluate.rego") in own:
        return own
    return rego_paths(os.path.join(shipped_policies_path(), "system")) + own


def _in_builtin_policies_dir(p: str) -> bool:
    return os.path.basename(os.path.dirname(p)) == "builtins"


def _candidate_builtin_policies(cfg: ConfigDir) -> dict[str, str]:
    """Builtin policy per name: the project's policies/<harness>/builtins/<name>.rego, else
    the shipped policies/builtins/<name>.rego."""
    found = {stem(os.path.basename(p)): p for p in rego_paths(os.path.join(shipped_policies_path(), "builtins"))}
    found.update({stem(os.path.basename(p)): p for p in rego_paths(os.path.join(cfg.policies_path, "builtins"))
                  if _in_builtin_policies_dir(p)})
    return found


def _user_files(cfg: ConfigDir) -> list[str]:
    return [p for p in rego_paths(cfg.policies_path) if not _in_builtin_policies_dir(p)]


def compiler_fingerprint() -> str:
    """Version plus (name, size, mtime) of the compiler's files, so a changed compiler
    never serves a stale bundle."""
    h = sha256(f"cupcake-py {__version__}".encode())
    for part in _COMPILER_PARTS:
        d = os.path.join(PACKAGE_DIR, part)
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except FileNotFoundError:  # a part this installation does not have
            continue
        for e in entries:
            if e.name.endswith((".py", ".wasm", ".json", ".rego")) and e.is_file():
                st = e.stat()
                h.update(f"{part}/{e.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _relative(p: str, base: str) -> str | None:
    """`p` relative to the directory `base`, None when it is not below it."""
    prefix = base.rstrip("/") + "/"
    return p[len(prefix):] if p.startswith(prefix) else None


def _tagged(p: str, cfg: ConfigDir) -> str:
    """A file's name relative to where it comes from, so bundles do not depend on where the
    project lives (copies of one configuration share one cache entry)."""
    for tag, base in (("project", cfg.cupcake_path), ("shipped", shipped_policies_path())):
        rel = _relative(p, base)
        if rel is not None:
            return f"{tag}:{rel}"
    return f"abs:{p}"


def cache_key(cfg: ConfigDir, builtins: list[str] | None = None) -> str:
    """sha256 over everything a bundle is built from (files read, not parsed); `builtins`: the
    custom builtin modules of `--custom-builtins` (those of the rulebook are in its text)."""
    h = sha256()
    h.update(f"harness={cfg.harness}\nscope={cfg.scope}\n".encode())
    if builtins:
        h.update(f"custom builtins={','.join(builtins)}\n".encode())
    # builtin_config expands `~` and names the global config dir at build time.
    h.update(f"home={home_dir()}\nglobal={global_config_dir()}/\n".encode())
    h.update(compiler_fingerprint().encode())
    files = _system_files(cfg) + sorted(_candidate_builtin_policies(cfg).values(), key=path_order) + _user_files(cfg)
    for p in files:
        h.update(f"\nfile {_tagged(p, cfg)}\n".encode())
        h.update(sha256(_read(p)).digest())
    try:
        h.update(b"\nrulebook\n" + _read(cfg.rulebook_path))
    except FileNotFoundError:
        if os.path.lexists(cfg.rulebook_path):
            raise ProjectError(f"{cfg.rulebook_path}: a dangling symbolic link (the rulebook cannot be read)") from None
        h.update(b"\nno rulebook\n")
    for name, p in signal_paths(cfg.signals_path).items():
        h.update(f"\nsignal {name} {os.path.basename(p)}\n".encode())
    return h.hexdigest()


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# ----------------------------------------------------------------------------- cache


def cache_dir() -> str:
    return user_cache_dir("bundles")


_HEADER_TYPES: dict[str, type] = {"key": str, "scope": str, "routing": dict, "policies": dict, "signals": dict,
                                  "builtin_config": dict, "telemetry": dict, "script_inspection": bool,
                                  "sources": list, "host_builtins": list, "custom_builtins": list,
                                  "require_project_config": bool, "governance": dict, "sandbox": dict}


def encode(bundle: Bundle, key: bytes) -> bytes:
    header = jsonio.dumps(bundle.header())
    mac = cache_mac.tag(key, header, bundle.wasm)
    return MAGIC + len(header).to_bytes(8, "big") + header + mac + bundle.wasm


def decode(blob: bytes, key: bytes) -> Bundle | None:
    """The bundle in `blob`, None when it is truncated, corrupt, not MACed with `key` or of
    another layout."""
    if not blob.startswith(MAGIC):
        return None
    at = len(MAGIC)
    n = int.from_bytes(blob[at:at + 8], "big")
    header_end = at + 8 + n
    if len(blob) < header_end + 32:
        return None
    raw_header, wasm = blob[at + 8:header_end], blob[header_end + 32:]
    if not cache_mac.same(cache_mac.tag(key, raw_header, wasm), blob[header_end:header_end + 32]):
        return None
    try:
        header = jsonio.loads(raw_header)
    except jsonio.JSONError:
        return None
    if not isinstance(header, dict) or set(header) != set(_HEADER_TYPES) or \
            any(not isinstance(header[k], t) for k, t in _HEADER_TYPES.items()):
        return None
    return Bundle(wasm=wasm, **header)


def read_cached(key: str, mac_key: bytes) -> Bundle | None:
    """The cached bundle for `key`; None on a miss. An entry that exists but fails the MAC
    (or any other check) is never loaded: a warning, and the caller rebuilds it."""
    name = f"{key}.bundle"
    path = os.path.join(cache_dir(), name)
    try:
        blob = _read(path)
    except FileNotFoundError:
        return None
    except OSError as e:  # unreadable entry: rebuilt and replaced like a corrupt one
        warn(f"bundle cache entry {path} cannot be read ({e.strerror}); rebuilding it")
        return None
    bundle = decode(blob, mac_key)
    if bundle is None or bundle.key != key:
        warn(f"bundle cache entry {path} is corrupt, was modified, or was written under another cache key than "
             f"{cache_mac.key_path()} (MAC mismatch); not loading it, rebuilding")
        return None
    return bundle


def write_cached(bundle: Bundle, mac_key: bytes) -> None:
    d = cache_dir()
    if not private_dir(d, "bundle cache"):
        return
    try:
        atomic_write(d, f"{bundle.key}.bundle", (encode(bundle, mac_key),), ".bundle")
    except OSError as e:  # the bundle was built and is used; only the cache entry is missing
        log.debug("bundle cache write failed: %s", e)


# ----------------------------------------------------------------------------- build


def _parse(files: list[str], versions: Any = None) -> list[tuple[Any, str]]:
    """Parse `files`; a file under the versions' root (the .cupcake directory) is read with its
    rulebook `rego_version`, every other file (the shipped policies) as v1."""
    from cupcake_py.rego import RegoErrors, parse_module, read_source

    out: list[tuple[Any, str]] = []
    errors: list[str] = []
    root = os.path.join(versions.root, "") if versions is not None and versions.root else None
    for p in files:
        version = versions.of(p) if root is not None and os.path.abspath(p).startswith(root) else "v1"
        try:
            out.append((parse_module(read_source(p), p, version), p))
        except RegoErrors as e:
            errors.extend(str(x) for x in e.errors)
    if errors:
        raise BundleError("policy does not parse:\n  " + "\n  ".join(errors[:10]))
    return out


def resolve_specs(cupcake_path: str, listed: list[str]) -> list[str]:
    """A rulebook's `custom_builtins` entries with `.py` paths made relative to the config dir."""
    return [os.path.join(cupcake_path, s) if s.endswith(".py") and not os.path.isabs(s) else s for s in listed]


def rulebook_builtins(cupcake_path: str) -> list[str]:
    """The custom builtin modules a configuration directory's rulebook lists (none without one)."""
    from pathlib import Path

    from cupcake_py.engine.rulebook import load_rulebook

    rulebook = Path(cupcake_path) / "rulebook.yml"
    return resolve_specs(cupcake_path, load_rulebook(rulebook).custom_builtins) if rulebook.is_file() else []


def _custom_builtins(cfg: ConfigDir, listed: list[str], extra: list[str]) -> Any:
    """The custom builtins of the rulebook (`.py` paths relative to the config dir) and of
    `--custom-builtins`; None when there are none. Installed entry points are NOT scanned here: an
    evaluation runs only the code its configuration names (a package the agent installs must
    not be able to add code to the policy engine)."""
    from cupcake_py.extensions.builtins import CustomBuiltinError, load

    specs = resolve_specs(cfg.cupcake_path, listed)
    try:
        found = load(specs + list(extra), entry_points=False)
    except CustomBuiltinError as e:
        raise BundleError(f"{cfg.rulebook_path}: {e}") from None
    return found or None


def build(cfg: ConfigDir, key: str, builtins: list[str] | None = None) -> Bundle:
    """Parse, check, route and compile a configuration directory (cache miss). The cyclic
    garbage collector is paused meanwhile: the AST, IR and code generator allocate millions of
    long-lived objects, and its repeated full passes over them took a third of the compile time
    of a 20,000-rule policy (measured); the garbage left is freed when the process exits or at
    the next collection."""
    from cupcake_py.core.gc_pause import gc_paused

    with gc_paused():
        return _build(cfg, key, builtins)


def _build(cfg: ConfigDir, key: str, builtins: list[str] | None) -> Bundle:
    from cupcake_py.engine import native_signals
    from cupcake_py.engine.builtin_policy_config import generated_signals, policy_config, scope_errors
    from cupcake_py.engine.routing import merge_routes, route_of_module, routing_table
    from cupcake_py.engine.rulebook import load_rulebook
    from cupcake_py.governance.settings import bundle_settings

    rulebook = load_rulebook(cfg.rulebook)
    enabled = rulebook.builtins.enabled()
    misplaced = scope_errors(enabled, cfg.scope)
    if rulebook.require_project_config and cfg.scope not in ("global", "org"):
        misplaced.append("require_project_config can only be set in the global rulebook")
    if misplaced:
        raise BundleError(f"{cfg.rulebook_path}: " + "; ".join(misplaced))
    candidates = _candidate_builtin_policies(cfg)
    missing = sorted(n for n in enabled if n not in candidates)
    if missing:
        raise BundleError(f"{cfg.rulebook_path}: builtin(s) {', '.join(missing)} enabled but no policy file "
                          f"{os.path.join(shipped_policies_path(), 'builtins')}/<name>.rego exists")
    system = _system_files(cfg)
    policy_files = [candidates[n] for n in sorted(enabled)] + _user_files(cfg)
    parsed = _parse(system + policy_files, rulebook.rego_versions(os.path.abspath(cfg.cupcake_path)))
    routes = []
    for module, file in parsed:
        r = route_of_module(module, file)
        if r is not None:
            routes.append(r)
    by_pkg = merge_routes(routes)
    sources = [_tagged(f, cfg) for _, f in parsed]
    modules = [m for m, _ in parsed]
    del parsed  # compile_modules frees the AST once planned: nothing else may hold it

    signals: dict[str, dict[str, Any]] = {}
    for name, path in signal_paths(cfg.signals_path).items():
        signals[name] = {"file": _relative(path, cfg.cupcake_path), "timeout_seconds": 5.0}
    for name, spec in rulebook.signals.items():
        signals[name] = spec.model_dump(mode="json")
    for name, b in enabled.items():
        signals.update(generated_signals(name, b))
    for pkg, r in by_pkg.items():
        unknown = [s for s in r.signals if s not in signals and not native_signals.provides(s)]
        if unknown:
            raise BundleError(f"{r.file}: policy {pkg} requires signal(s) {', '.join(unknown)} that are neither "
                              f"in {cfg.rulebook_path} (signals:), nor files in {cfg.signals_path}, nor native signals")

    wasm = b""
    host_builtins: list[str] = []
    custom = _custom_builtins(cfg, rulebook.custom_builtins, builtins or [])
    if by_pkg:
        entrypoints = [ENTRYPOINT]
        if os.path.join(cfg.system_path, "evaluate.rego") not in system:
            # the shipped aggregator: the generated one replaces it (same decision set, only routed
            # packages evaluated; planning one entrypoint instead of two also keeps builds fast)
            from cupcake_py.engine import routed_aggregator as routed
            from cupcake_py.rego import parse_module

            modules.append(parse_module(routed.source(modules, by_pkg), routed.FILE, "v1"))
            entrypoints = [routed.ROUTED_ENTRYPOINT]
        if custom is None:
            wasm = compile_modules(modules, entrypoints)
        else:
            with custom.declared():
                wasm = compile_modules(modules, entrypoints)
        # wasmtime compiles with the compiler's AST and IR freed (peak memory of large builds)
        from cupcake_py.host import PolicyModule

        host_builtins = sorted(PolicyModule.load(wasm).summary().builtins.values())
    bundle = Bundle(
        key=key, scope=cfg.scope,
        routing=routing_table(by_pkg),
        policies={pkg: {**r.to_json(), "file": _tagged(r.file, cfg)} for pkg, r in sorted(by_pkg.items())},
        signals=signals,
        builtin_config={name: policy_config(name, b) for name, b in enabled.items()},
        telemetry=rulebook.telemetry.model_dump(mode="json"),
        script_inspection=rulebook.preprocessing.script_inspection,
        sources=sources,
        host_builtins=host_builtins,
        custom_builtins=list(custom.sources) if custom is not None else [],
        require_project_config=rulebook.require_project_config,
        governance=bundle_settings(rulebook, any("history" in r.signals for r in by_pkg.values())),
        sandbox={} if rulebook.sandbox is None else rulebook.sandbox.model_dump(mode="json"),
        wasm=wasm,
    )
    return bundle


def compile_modules(modules: list[Any], entrypoints: list[str] | None = None) -> bytes:
    """Our compiler: compile checks → planner (entrypoints: cupcake/system/evaluate unless
    given) → WASM. `modules` is emptied once they are planned, so that (with no other reference
    left) their AST and the compiled form are freed before code generation: a 10,000-policy
    build otherwise held both until the end."""
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego import RegoErrors
    from cupcake_py.wasm import CodegenError, compile_policy

    try:
        policy = compile_entrypoints(modules, entrypoints or [ENTRYPOINT])
        modules.clear()
        return compile_policy(policy)
    except RegoErrors as e:
        raise BundleError("policies do not compile:\n  " + "\n  ".join(str(x) for x in e.errors[:10])) from None
    except CodegenError as e:
        raise BundleError(f"policies could not be compiled to WebAssembly: {e}") from None


def load(cfg: ConfigDir, *, use_cache: bool = True, builtins: list[str] | None = None,
         deadline: float | None = None) -> tuple[Bundle, bool]:
    """(bundle, cache_hit) for a configuration directory (`builtins`: --custom-builtins modules).
    Anything of the configuration that cannot be read is a BundleError naming the path (never
    skipped, never a bare OSError). With a `deadline` (time.monotonic(); `cupcake eval` and
    `cupcake serve`) a cache miss is built by a detached worker process and waited for until
    then (engine/build_wait.py: BuildPending when it is not ready); without one, or when the
    cache cannot be used, the build runs in this process."""
    try:
        key = cache_key(cfg, builtins)
        mac_key = cache_mac.key() if use_cache else None
        if mac_key is not None:
            cached = read_cached(key, mac_key)
            if cached is not None:
                return cached, True
            if deadline is not None and private_dir(cache_dir(), "bundle cache"):
                from cupcake_py.engine import build_wait

                try:
                    return build_wait.wait_for(cfg, key, list(builtins or []), deadline, cache_dir(),
                                               lambda: read_cached(key, mac_key)), False
                except build_wait.InProcess:
                    pass  # no worker can deliver it (the entry cannot be written): build here, under the hard alarm
                except build_wait.Failed as e:
                    raise BundleError(str(e)) from None
                except build_wait.Pending:
                    files = len(_system_files(cfg)) + len(_user_files(cfg))
                    raise BuildPending(f"the {cfg.scope} policies in {cfg.cupcake_path} are being compiled ({files} "
                                       "files) and were not ready within the evaluation deadline; blocked until the "
                                       "build finishes (it goes on in the background: retry shortly)") from None
        bundle = build(cfg, key, builtins)
    except OSError as e:
        raise BundleError(f"configuration error: cannot read {e.filename or cfg.cupcake_path}: "
                          f"{e.strerror or e}") from None
    except ProjectError as e:
        raise BundleError(f"configuration error: {e}") from None
    if mac_key is not None:
        write_cached(bundle, mac_key)
    return bundle, False
