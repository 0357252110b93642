"""What a project says about its lint findings: inline suppressions and the lint config file, in
Regal's shapes (`# regal ignore:rule` there, `# cupcake ignore:rule` here; `.regal/config.yaml`
there, `.cupcake/lint.yml` here).

Inline: a comment `# cupcake ignore:RULE[,RULE...]` on the line of a finding, or alone on the line
above it, drops that finding (`ignore:all` drops every rule there). Config file:

    rules:
      <category>:            # compile, cupcake, harness, hygiene (as `cupcake validate --explain`)
        <rule-id>:
          level: error | warning | info | ignore
          ignore:
            files: ["policies/opencode/legacy/*.rego"]   # globs, relative to the config's directory

In: a Report's findings and sources; the config's path (`--config`, else `<project>/.cupcake/lint.yml`
when it exists). Out: the findings that remain, with their configured severity. Fails with
LintConfigError (a CupcakeError, exit 2) on a config that is not this shape: an unknown category,
rule or level, or a rule under another category than its own, at file:row:col; a duplicate key too.
Compile errors (category `compile`) cannot be ignored or lowered: the engine refuses such policies.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from cupcake_py.authoring.findings import RULES, SEVERITY_ORDER, Finding, hint
from cupcake_py.core.errors import CupcakeError

CONFIG_NAME = "lint.yml"
LEVELS = ("error", "warning", "info", "ignore")
_IGNORE = re.compile(r"#\s*cupcake\s+ignore:\s*([A-Za-z0-9_,\- ]+)")


class LintConfigError(CupcakeError):
    pass


@dataclass
class LintConfig:
    path: Path | None = None
    levels: dict[str, str] = field(default_factory=dict)  # rule -> level
    ignore_files: dict[str, list[str]] = field(default_factory=dict)  # rule -> globs

    def apply(self, f: Finding) -> Finding | None:
        if RULES[f.rule].category == "compile":
            return f
        level = self.levels.get(f.rule)
        if level == "ignore" or self._ignored_file(f):
            return None
        return replace(f, severity=level) if level is not None else f  # type: ignore[arg-type]

    def _ignored_file(self, f: Finding) -> bool:
        globs = self.ignore_files.get(f.rule)
        if not globs:
            return False
        path = Path(f.file).absolute()
        base = self.path.parent.absolute() if self.path is not None else Path.cwd()
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            rel = path.as_posix()
        return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(path.as_posix(), g) for g in globs)


def load_config(path: Path) -> LintConfig:
    """The lint config at `path` (LintConfigError when it cannot be read or is not the documented shape)."""
    from cupcake_py.engine.yaml_source import YamlSourceError, load_yaml

    try:
        doc = load_yaml(path.read_text("utf-8"), path)
    except (OSError, UnicodeDecodeError) as e:
        raise LintConfigError(f"{path}: cannot read the lint config: {e}") from None
    except YamlSourceError as e:
        raise LintConfigError(str(e)) from None
    cfg = LintConfig(path)
    data = doc.data or {}

    def bad(loc: tuple[int | str, ...], message: str) -> LintConfigError:
        return LintConfigError(f"{doc.where(loc)}: {message}")

    if not isinstance(data, dict) or set(data) - {"rules"}:
        raise bad((), "the lint config is a mapping with one key, `rules` (rules: <category>: <rule>: {level})")
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise bad(("rules",), "`rules` maps categories to rules")
    categories = sorted({r.category for r in RULES.values()})
    for cat, by_rule in rules.items():
        if cat not in categories:
            raise bad(("rules", cat), f"unknown category {cat!r}{hint(str(cat), categories)} (one of "
                                      f"{', '.join(categories)})")
        for rule, settings in (by_rule or {}).items():
            where = ("rules", cat, rule)
            if rule not in RULES:
                raise bad(where, f"unknown rule {rule!r}{hint(str(rule), RULES)}")
            if RULES[rule].category != cat:
                raise bad(where, f"{rule} is in category {RULES[rule].category}, not {cat}")
            if cat == "compile":
                raise bad(where, f"{rule} is a compile error: the engine refuses the policy, so it cannot be "
                                 "ignored or lowered")
            if not isinstance(settings, dict) or set(settings) - {"level", "ignore"}:
                raise bad(where, "a rule's settings are `level` and `ignore: {files: [...]}`")
            level = settings.get("level")
            if level is not None:
                if level not in LEVELS:
                    raise bad((*where, "level"), f"level {level!r} is not one of {', '.join(LEVELS)}")
                cfg.levels[rule] = level
            ignore = settings.get("ignore")
            if ignore is not None:
                files = ignore.get("files") if isinstance(ignore, dict) else None
                if not isinstance(files, list) or not all(isinstance(g, str) for g in files):
                    raise bad((*where, "ignore"), "`ignore` is {files: [glob, ...]}")
                cfg.ignore_files[rule] = files
    return cfg


def find_config(explicit: Path | None, roots: list[Path]) -> LintConfig:
    """--config when given; else `lint.yml` of the first project among `roots` (a .cupcake
    directory, a path inside one, or a directory that has one) when it exists; else the empty config."""
    if explicit is not None:
        return load_config(explicit)
    for root in roots:
        a = root.absolute()
        for d in (a, *a.parents):
            if d.name == ".cupcake" or (d / ".cupcake").is_dir():
                candidate = (d if d.name == ".cupcake" else d / ".cupcake") / CONFIG_NAME
                if candidate.is_file():
                    return load_config(candidate)
                break
    return LintConfig()


def suppressed(f: Finding, sources: dict[str, str]) -> bool:
    """`# cupcake ignore:RULE` on the finding's line, or on a comment-only line just above it."""
    lines = sources.get(f.file, "").splitlines()
    for row in (f.row, f.row - 1):
        if not 0 < row <= len(lines):
            continue
        line = lines[row - 1]
        if row == f.row - 1 and not line.lstrip().startswith("#"):
            continue
        m = _IGNORE.search(line)
        if m and {r.strip() for r in m.group(1).split(",")} & {f.rule, "all"}:
            return RULES[f.rule].category != "compile"
    return False


def unknown_suppressions(sources: dict[str, str]) -> list[tuple[str, int, str]]:
    """(file, row, rule) for every `# cupcake ignore:` naming a rule that does not exist."""
    out: list[tuple[str, int, str]] = []
    for file, text in sources.items():
        for i, line in enumerate(text.splitlines(), 1):
            m = _IGNORE.search(line)
            if m:
                out.extend((file, i, r.strip()) for r in m.group(1).split(",")
                           if r.strip() and r.strip() != "all" and r.strip() not in RULES)
    return out


def apply(findings: list[Finding], sources: dict[str, str], config: LintConfig) -> list[Finding]:
    """The findings that remain after inline suppressions and the config, with configured levels."""
    out = []
    for f in findings:
        if suppressed(f, sources):
            continue
        kept = config.apply(f)
        if kept is not None:
            out.append(kept)
    return out


def fails(findings: list[Finding], fail_level: str) -> bool:
    """A finding at `fail_level` or more severe (error < warning < info in SEVERITY_ORDER)."""
    limit = SEVERITY_ORDER[fail_level]
    return any(SEVERITY_ORDER[f.severity] <= limit for f in findings)
