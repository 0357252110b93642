"""`cupcake inspect`: every policy of a configuration with its package, routing (events,
tools, signals), title and origin (custom, builtin, system). Builtins are listed whether
enabled or not; `enabled` says what the rulebook does with them. For a project, the global
config's enabled protections and policies are listed too (scope `global`): eval enforces them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from cupcake_py.authoring.lint_context import ModuleInfo
from cupcake_py.engine.project import ConfigDir, rego_files, shipped_policies_dir
from cupcake_py.rego import RegoErrors, parse_module, read_source


@dataclass
class PolicyRow:
    package: str
    kind: str  # custom | builtin | system | test
    enabled: bool
    events: list[str]
    tools: list[str]
    signals: list[str]
    verbs: list[str]
    title: str
    file: str
    error: str = ""
    scope: str = "project"  # project | global (a global config's protections apply to every project)


def _row(path: Path, kind: str, enabled: bool) -> PolicyRow:
    try:
        text = read_source(path)
        mi = ModuleInfo(parse_module(text, str(path)), str(path), text)
    except RegoErrors as e:
        return PolicyRow("?", kind, enabled, [], [], [], [], "", str(path), str(e.errors[0]))
    title = next((a.title for a in mi.module.annotations if a.title), "") or ""
    if mi.is_test:
        kind = "test"
    return PolicyRow(mi.package, kind, enabled, mi.events, mi.tools, mi.signals, mi.verb_names, title, str(path))


def global_rows(global_cfg: ConfigDir) -> list[PolicyRow]:
    """The builtin policies the global config enables and its own policies (scope global): what
    `cupcake eval` enforces in every project on top of the project's configuration."""
    from cupcake_py.engine.rulebook import load_rulebook

    enabled = set(load_rulebook(global_cfg.rulebook).builtins.enabled())
    shipped = {p.stem: p for p in rego_files(shipped_policies_dir() / "builtins")}
    shipped.update({p.stem: p for p in rego_files(global_cfg.policies_dir / "builtins") if p.parent.name == "builtins"})
    rows = [_row(p, "builtin", True) for stem, p in sorted(shipped.items()) if stem in enabled]
    rows += [_row(p, "custom", True) for p in rego_files(global_cfg.policies_dir) if p.parent.name != "builtins"]
    for r in rows:
        r.scope = "global"
    return rows


def inspect_config(cfg: ConfigDir | None) -> list[PolicyRow]:
    """Rows for a configuration directory (None: only the shipped policies)."""
    from cupcake_py.engine.rulebook import load_rulebook

    enabled: set[str] = set()
    shipped_builtin_policies = {p.stem: p for p in rego_files(shipped_policies_dir() / "builtins")}
    rows: list[PolicyRow] = []
    if cfg is not None:
        enabled = set(load_rulebook(cfg.rulebook).builtins.enabled())
        shipped_builtin_policies.update({p.stem: p for p in rego_files(cfg.policies_dir / "builtins")
                                 if p.parent.name == "builtins"})
        own_system = rego_files(cfg.system_dir)
        system = own_system if (cfg.system_dir / "evaluate.rego").is_file() else \
            rego_files(shipped_policies_dir() / "system") + own_system
        rows += [_row(p, "custom", True) for p in rego_files(cfg.policies_dir) if p.parent.name != "builtins"]
    else:
        system = rego_files(shipped_policies_dir() / "system")
    rows += [_row(p, "builtin", stem in enabled) for stem, p in sorted(shipped_builtin_policies.items())
             if not stem.endswith("_test")]
    rows += [_row(p, "system", True) for p in system]
    return rows


def table(rows: list[PolicyRow]) -> str:
    cols = ("package", "kind", "scope", "on", "events", "tools", "signals", "title")
    data = [(r.package, r.kind, r.scope, "yes" if r.enabled else "no", ",".join(r.events) or "-", ",".join(r.tools) or "*",
             ",".join(r.signals) or "-", r.title or r.error or "-") for r in rows]
    widths = [max(len(c), *(len(d[i]) for d in data)) if data else len(c) for i, c in enumerate(cols)]
    widths[-1] = len(cols[-1])
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*cols).rstrip(), fmt.format(*("-" * w for w in widths)).rstrip()]
    lines += [fmt.format(*d).rstrip() for d in data]
    n_custom = sum(r.kind == "custom" for r in rows)
    n_builtin = sum(r.kind == "builtin" for r in rows)
    n_global = sum(r.scope == "global" for r in rows)
    lines.append(f"{n_custom} custom, {n_builtin} builtin ({sum(r.kind == 'builtin' and r.enabled for r in rows)} "
                 f"enabled), {sum(r.kind == 'system' for r in rows)} system"
                 + (f"; {n_global} of them from the global config (enforced in every project)" if n_global else ""))
    return "\n".join(lines) + "\n"


def json_rows(rows: list[PolicyRow]) -> str:
    return orjson.dumps({"policies": [asdict(r) for r in rows]}, option=orjson.OPT_INDENT_2).decode() + "\n"
