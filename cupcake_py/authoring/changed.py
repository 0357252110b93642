"""`cupcake validate --changed [--base REF]`: lint only what a change can break.

In: the validate targets (directories inside one git work tree) and a git ref. Out: the
validate Report over the .rego files changed since REF (committed since it, staged,
unstaged, untracked) plus every policy under the targets that imports one of them,
transitively (Rego `import data.<package>` graph); findings are kept only for those files.
Uses GitPython (never imported by `cupcake eval`). Fails (ValidateError, exit 2) when a
target is not in a git work tree or REF does not resolve; a changed file that no longer
exists (deleted) is dropped; a policy that does not parse is still linted (its parse error
is the finding) but cannot contribute import edges."""

from __future__ import annotations

from pathlib import Path

from cupcake_py.authoring.validate import Report, ValidateError, collect_files, validate_paths


def changed_files(repo_dir: Path, base: str) -> set[Path]:
    """Absolute paths of the files that differ from `base` in the work tree (plus untracked)."""
    import git

    try:
        repo = git.Repo(repo_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ValidateError(f"--changed: {repo_dir} is not inside a git repository") from None
    root = Path(repo.working_tree_dir or repo_dir)
    try:
        commit = repo.commit(base)
    except (git.BadName, ValueError, git.GitCommandError):
        raise ValidateError(f"--changed: --base {base!r} is not a commit of {root} "
                            "(fetch it first, e.g. `git fetch origin main`, or pass another ref)") from None
    names = {d.b_path or d.a_path for d in commit.diff(None)}  # base -> work tree (staged + unstaged)
    names |= set(repo.untracked_files)
    return {(root / n).resolve() for n in names if n}


def _imports(path: Path) -> set[str]:
    """The `data.` packages a Rego file imports (empty when it does not parse)."""
    from cupcake_py.rego import parse_module, read_source
    from cupcake_py.rego.errors import RegoErrors

    try:
        module = parse_module(read_source(path), str(path))
    except RegoErrors:
        return set()
    from cupcake_py.rego import ast as A

    out = set()
    for imp in module.imports:
        dotted = imp.path.value.dotted() if isinstance(imp.path.value, A.Ref) else None
        if dotted and dotted.startswith("data."):
            out.add(dotted[len("data."):])
    return out


def _package(path: Path) -> str | None:
    from cupcake_py.rego import parse_module, read_source
    from cupcake_py.rego.errors import RegoErrors

    try:
        return parse_module(read_source(path), str(path)).package.dotted()
    except RegoErrors:
        return None


def affected(files: list[Path], changed: set[Path]) -> set[Path]:
    """The changed files among `files` plus their importers, transitively."""
    resolved = {f.resolve(): f for f in files}
    hit = {r for r in resolved if r in changed}
    packages = {r: _package(r) for r in resolved}
    imports = {r: _imports(r) for r in resolved}
    while True:
        pkgs = {p for r in hit if (p := packages[r])}
        more = {r for r in resolved if r not in hit
                and any(i == p or i.startswith(p + ".") or p.startswith(i + ".") for i in imports[r] for p in pkgs)}
        if not more:
            return {resolved[r] for r in hit}
        hit |= more


def validate_changed(targets: list[Path], base: str) -> Report:
    groups = collect_files(targets)
    files = [f for fs in groups.values() for f in fs]
    if not targets:
        return Report()
    anchor = targets[0] if targets[0].is_dir() else targets[0].parent
    chosen = affected(files, changed_files(anchor, base))
    if not chosen:
        return Report()
    # Compile-check each project whole (imports must resolve); lint and report only the chosen files.
    keep = {str(f) for f in chosen}
    whole = validate_paths(targets, only=keep)
    whole.findings = [f for f in whole.findings if f.file in keep]
    whole.files = [f for f in whole.files if f in keep]
    whole.sources = {k: v for k, v in whole.sources.items() if k in keep}
    return whole
