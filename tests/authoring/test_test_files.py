"""authoring/testing/files.py and data.data_files find, name and order the files of a `cupcake
test` run exactly as pathlib does (what they replaced on the start-up of a cached run): compared
with `Path.rglob` / `rego.find_rego_files` on generated trees with nested directories, hidden
files, names that sort differently as strings and as parts (`a-b` vs `a/b`), data files,
symbolic links to files and to directories (not entered), dangling links, an unreadable
directory (skipped), and paths written with `./`, `//` and a trailing slash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cupcake_py.authoring.testing import files
from cupcake_py.authoring.testing.cases import TestSetupError
from cupcake_py.authoring.testing.data import data_files
from cupcake_py.rego import find_rego_files

NAMES = st.sampled_from(["a", "a-b", "b", ".h", "x.rego", "y_test.rego", ".rego", "d.json", "e.yaml", "f.yml",
                         ".json", "g.rego.json", "z.REGO", "sub"])
TREES = st.lists(st.tuples(st.lists(NAMES, min_size=0, max_size=3), NAMES, st.sampled_from(["file", "dir"])),
                 max_size=12)


def _pathlib_rego(paths: list[str]) -> list[str]:
    return [str(f) for f in find_rego_files(paths) if f.suffix not in files.DATA_SUFFIXES]


def _pathlib_data(paths: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    out: list[tuple[str, tuple[str, ...]]] = []
    seen: set[Path] = set()
    for raw in paths:
        root = Path(raw)
        if root.is_dir():
            found = sorted(f for f in root.rglob("*") if f.suffix in files.DATA_SUFFIXES and f.is_file())
            items = [(f, f.parent.relative_to(root).parts) for f in found]
        elif root.suffix in files.DATA_SUFFIXES and root.is_file():
            items = [(root, ())]
        else:
            items = []
        for f, mount in items:
            if f not in seen:
                seen.add(f)
                out.append((str(f), mount))
    return out


def _build(root: Path, tree: list[tuple[list[str], str, str]]) -> None:
    for dirs, name, kind in tree:
        parent = root.joinpath(*dirs)
        try:
            parent.mkdir(parents=True, exist_ok=True)
            target = parent / name
            if kind == "dir":
                target.mkdir(exist_ok=True)
            elif not target.exists():
                target.write_text("package p\n")
        except (FileExistsError, NotADirectoryError):
            continue  # a name already taken by the other kind


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=TREES, spelling=st.sampled_from(["{}", "./{}", "{}/", ".//{}//", "{}/."]))
@example(tree=[(["a"], "x.rego", "file"), (["a-b"], "x.rego", "file"), (["a", "sub"], "d.json", "file"),
               (["a-b"], "d.json", "file"), ([], ".h", "dir"), ([".h"], "x.rego", "file")], spelling="./{}")
def test_files_are_found_named_and_ordered_as_pathlib(tmp_path: Path, tree: list[tuple[list[str], str, str]],
                                                       spelling: str) -> None:
    root = tmp_path / os.urandom(4).hex()
    root.mkdir()
    _build(root / "t", tree)
    (root / "t").mkdir(exist_ok=True)
    (root / "t" / "linked").symlink_to(root / "t", target_is_directory=True)  # a loop, never entered
    (root / "t" / "dangling.rego").symlink_to(root / "nowhere.rego")
    if (root / "t" / "x.rego").is_file():
        (root / "t" / "link.rego").symlink_to(root / "t" / "x.rego")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        paths = [spelling.format("t"), "t/d.json"] if (root / "t/d.json").is_file() else [spelling.format("t")]
        paths.append("t")  # named twice: no duplicates
        assert files.rego_files(paths) == _pathlib_rego(paths)
        assert data_files(paths) == _pathlib_data(paths)
    finally:
        os.chdir(cwd)


def test_an_unreadable_directory_is_skipped_as_pathlib_skips_it(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.rego").write_text("package a\n")
    closed = tmp_path / "ok" / "closed"
    closed.mkdir()
    (closed / "b.rego").write_text("package b\n")
    closed.chmod(0)
    try:
        if os.access(closed, os.R_OK):
            pytest.skip("running as a user that reads any directory (root)")
        assert files.rego_files([str(tmp_path / "ok")]) == _pathlib_rego([str(tmp_path / "ok")])
    finally:
        closed.chmod(0o700)


@pytest.mark.parametrize("raw", ["", ".", "./", "a", "a/", "./a//b/", "/", "//", "///x", "//x/y", "a/./b/.", "../a"])
def test_paths_are_written_as_pathlib_writes_them(raw: str) -> None:
    assert files.norm(raw) == str(Path(raw))


@pytest.mark.parametrize("name", ["a.rego", ".rego", "a.", "a", "a.b.json", ".json", "..json", "x.yml", "a..b"])
def test_suffix_is_pathlibs(name: str) -> None:
    assert files.suffix(name) == Path(name).suffix


def test_a_missing_path_is_the_loaders_error(tmp_path: Path) -> None:
    with pytest.raises(TestSetupError, match="no such file or directory"):
        files.rego_files([str(tmp_path / "nope")])
