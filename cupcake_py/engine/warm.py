"""Warm bundles and policy instances for `cupcake serve` (a `BundleSource`).

In: configuration directories (project or global) and the server's memory cap. Out: the
bundle of each directory and a reusable policy instance per bundle.

- Re-validation per request: while the inotify watch over the config dir and the shipped
  policies (engine/watch.py) saw nothing, the bundle stands (no syscall but one read). Else
  (any event, or no inotify) a stat walk (`signature`): the config dir, rulebook.yml,
  system/, policies/<harness>/ (every directory and *.rego), signals/ and the shipped
  policies, as (inode, size, mtime, ctime). When it differs from the last request the
  bundle is loaded again through `bundle.load` (full content key, disk cache, rebuild on a
  miss); an unchanged content key keeps the compiled module. Watches are made before the
  files are read, so a change during a load is seen by the next request.
- Instances are reused and reset (re-instantiated from the compiled module) after
  `MAX_USES` evaluations, when their linear memory grew past `MAX_RESIDENT_BYTES`, or after
  any failure, so the server's memory stays flat however many requests it answers.
- At most `MAX_CONFIGS` directories are kept (least recently used dropped).
- The state paths' resolver (engine/state_paths.py `Resolver`) keeps its link-free answers while
  its `EntryWatch` is quiet (checked when an evaluation asks for it); else, or past
  `MAX_RESOLVED` paths, a new one starts.
- The JSON text of a bundle's builtin_config (with this evaluation's state paths) is reused while
  the value is equal to the one it was made from (compared in full, every request, against a
  decoded copy of that text: a changed state path, PATH or rulebook is encoded afresh).
- Custom builtin modules (--custom-builtins, rulebook custom_builtins) are imported once per process:
  a change to their Python code needs a new server (a change to the rulebook is seen as usual).
Nothing here decides: a failed load raises (the request fails closed) and leaves no entry.
"""

from __future__ import annotations

import os

from cupcake_py.core import jsonio
from cupcake_py.core.record import Record
from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.evaluator import BundleSource, custom_implementations
from cupcake_py.engine.project import ConfigDir, shipped_policies_path
from cupcake_py.engine.state_paths import Resolver
from cupcake_py.engine.watch import EntryWatch, TreeWatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.host.policy import PolicyInstance, PolicyModule

MAX_USES = 2000  # evaluations per instance before it is rebuilt
MAX_RESIDENT_BYTES = 16 * 1024 * 1024  # linear memory an idle instance may keep
MAX_CONFIGS = 32  # configuration directories kept warm
MAX_MODULES = 2 * MAX_CONFIGS  # compiled modules kept (a config dir being edited has an old and a new one)
MAX_RESOLVED = 16384  # link-free paths the state paths' resolver keeps

Signature = tuple[tuple[str, int, int, int, int], ...]


def _stat(path: str, out: list[tuple[str, int, int, int, int]]) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        out.append((path, -1, -1, -1, -1))
        return None
    out.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return st


def _walk(directory: str, out: list[tuple[str, int, int, int, int]]) -> None:
    """Every directory below `directory` (its mtime changes when entries come or go) and every
    .rego file (its own stat changes when it is written or replaced)."""
    if _stat(directory, out) is None:
        return
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            # recorded, never skipped: the fingerprint changes, so the next request reloads the
            # bundle, whose load fails closed on an unreadable configuration directory
            out.append((current, -1, -1, -1, -1))
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                _stat(e.path, out)
                pending.append(e.path)
            elif e.name.endswith(".rego"):
                _stat(e.path, out)


def signature(cfg: ConfigDir) -> Signature:
    """What a cheap re-validation compares: stats of everything `bundle.cache_key` reads."""
    out: list[tuple[str, int, int, int, int]] = []
    _stat(cfg.cupcake_path, out)
    _stat(cfg.rulebook_path, out)
    _stat(cfg.signals_path, out)
    _walk(cfg.system_path, out)
    _walk(cfg.policies_path, out)
    _walk(shipped_policies_path(), out)
    return tuple(sorted(out))


class _Config(Record):
    __slots__ = ("signature", "bundle", "watch")
    signature: Signature
    bundle: bundles.Bundle
    watch: TreeWatch

    def __init__(self, signature: Signature, bundle: bundles.Bundle, watch: TreeWatch) -> None:
        self._fill(signature, bundle, watch)


def _watch(cfg: ConfigDir) -> TreeWatch:
    return TreeWatch([cfg.cupcake_path, shipped_policies_path()])


class _Warm(Record):
    __slots__ = ("module", "instance", "uses")
    module: PolicyModule
    instance: PolicyInstance | None
    uses: int

    def __init__(self, module: PolicyModule) -> None:
        self._fill(module, None, 0)


class WarmSource(BundleSource):
    """Bundles per configuration directory and one reusable instance per bundle."""

    def __init__(self, memory_limit: int) -> None:
        self.memory_limit = memory_limit
        self._configs: dict[tuple[str, str], _Config] = {}
        self._modules: dict[str, _Warm] = {}  # by bundle key
        self._config_json: dict[str, tuple[Any, bytes]] = {}  # by bundle key: (decoded text, text)
        self._resolver: Resolver | None = None
        self.resolvers = 0  # state path resolvers started (observable by tests)
        self.reloads = 0  # bundles (re)loaded after a signature change (observable by tests)
        self.resets = 0  # instances rebuilt

    def load(self, cfg: ConfigDir, use_cache: bool, builtins: list[str],
             deadline: float | None = None) -> tuple[bundles.Bundle, bool]:
        where = (cfg.scope, cfg.cupcake_path)
        known = self._configs.pop(where, None)
        if known is not None and use_cache and known.watch.quiet():
            self._configs[where] = known  # most recently used last
            return known.bundle, True
        watch = _watch(cfg)  # before anything is read: a change from now on is seen next time
        sig = signature(cfg)
        if known is not None:
            known.watch.close()
            if known.signature == sig and use_cache:
                self._configs[where] = _Config(sig, known.bundle, watch)
                return known.bundle, True
        try:
            b, hit = bundles.load(cfg, use_cache=use_cache, builtins=builtins, deadline=deadline)
        except BaseException:
            watch.close()
            raise
        self.reloads += 1
        self._configs[where] = _Config(sig, b, watch)
        while len(self._configs) > MAX_CONFIGS:
            self._configs.pop(next(iter(self._configs))).watch.close()
        return b, hit

    def instance(self, b: bundles.Bundle, deadline: float, memory_limit: int) -> PolicyInstance:
        from cupcake_py.host import HostOptions, PolicyModule

        warm = self._modules.pop(b.key, None)
        if warm is None or warm.module.options.memory_limit != memory_limit:
            warm = _Warm(PolicyModule.load(b.wasm, HostOptions(deadline=deadline, memory_limit=memory_limit)))
        self._modules[b.key] = warm
        while len(self._modules) > MAX_MODULES:
            dropped = self._modules.pop(next(iter(self._modules)))
            if dropped.instance is not None:
                dropped.instance.close()
        inst = warm.instance
        if inst is None:
            inst = warm.module.instantiate(builtins=custom_implementations(b))
            warm.instance, warm.uses = inst, 0
        inst.set_deadline(deadline)
        warm.instance = None  # held by the evaluation until `evaluated` gives it back
        return inst

    def evaluated(self, b: bundles.Bundle, inst: PolicyInstance) -> None:
        warm = self._modules.get(b.key)
        if warm is None:
            return
        warm.uses += 1
        if inst.poisoned or warm.uses >= MAX_USES or inst.memory_bytes > MAX_RESIDENT_BYTES:
            self.resets += 1
            warm.uses = 0
            inst.close()  # its memory freed now (not when the cyclic GC finds it)
            return  # dropped: the next request instantiates afresh
        warm.instance = inst

    def config_json(self, b: bundles.Bundle, config: dict[str, Any]) -> bytes:
        known = self._config_json.pop(b.key, None)
        if known is None or known[0] != config:
            text = jsonio.dumps(config)
            known = (jsonio.loads(text), text)  # a copy: nothing the evaluation holds can change it
        self._config_json[b.key] = known
        while len(self._config_json) > MAX_MODULES:
            del self._config_json[next(iter(self._config_json))]
        return known[1]

    def path_resolver(self) -> Resolver:
        r = self._resolver
        if r is None or r.watch is None or not r.watch.quiet() or r.size() > MAX_RESOLVED:
            if r is not None and r.watch is not None:
                r.watch.close()
            r = self._resolver = Resolver(EntryWatch())
            self.resolvers += 1
        r.begin()
        return r

    def forget(self) -> None:
        """Drop every warm instance (after an interrupted request their state is not trusted)."""
        for warm in self._modules.values():
            if warm.instance is not None:
                warm.instance.close()
            warm.instance = None
