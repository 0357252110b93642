"""The installed custom-builtin entry points (extensions/entry_points.py) are read without
importing importlib.metadata (~25 ms of every `cupcake test` process): the answer must be the
one importlib.metadata gives, on this environment and on made-up site directories with the
corners it handles (the first distribution of a name wins across sys.path entries and within
one, names compared normalised, comments, several sections, `=` inside values, egg-info
folders and files, a file that is not UTF-8); a zip archive on sys.path is read by
importlib.metadata itself."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.extensions import entry_points as ep

GROUP = ep.ENTRY_POINT_GROUP


def _dist(site: Path, folder: str, text: str | bytes | None) -> None:
    d = site / folder
    d.mkdir(parents=True)
    (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {folder.partition('-')[0]}\nVersion: 1.0\n")
    if isinstance(text, bytes):
        (d / "entry_points.txt").write_bytes(text)
    elif text is not None:
        (d / "entry_points.txt").write_text(text)


def _both(monkeypatch: pytest.MonkeyPatch, *sites: Path) -> tuple[list[str], list[str]]:
    for s in reversed(sites):
        monkeypatch.syspath_prepend(str(s))
    return ep.entry_point_specs(), ep.scan_with_importlib_metadata()


def test_this_environment_reads_the_same() -> None:
    assert ep.entry_point_specs() == ep.scan_with_importlib_metadata()


def test_the_corners_importlib_metadata_handles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _dist(a, "acme_rego-1.0.dist-info", f"# a comment\n[console_scripts]\nacme = acme.cli:main\n\n"
                                        f"[{GROUP}]\n  acme = acme_rego.builtins:table  \nx=y=z\n")
    _dist(b, "Acme.Rego-2.0.dist-info", f"[{GROUP}]\nshadowed = shadowed_mod\n")  # same name: a's wins
    _dist(b, "other-3.0.egg-info", f"[{GROUP}]\nother = other_mod\n[{GROUP}.extra]\nno = not_this\n")
    _dist(b, "again-1.0.dist-info", f"[{GROUP}]\ntwice = other_mod\n")
    _dist(b, "plain-1.0.dist-info", None)
    (b / "single-1.0.egg-info").write_text("Metadata-Version: 1.0\nName: single\n")  # a PKG-INFO file
    (b / "not-a-dist.txt").write_text(f"[{GROUP}]\nno = nope\n")
    ours, theirs = _both(monkeypatch, a, b)
    assert ours == theirs
    assert ours == ["acme_rego.builtins:table", "other_mod", "y=z"]


def test_a_file_that_is_not_utf8_raises_as_in_importlib_metadata(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "broken-1.0.dist-info", b"[" + GROUP.encode() + b"]\nbad = \xff\xfe\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnicodeDecodeError):
        ep.scan_with_importlib_metadata()
    with pytest.raises(UnicodeDecodeError):
        ep.entry_point_specs()


def test_a_zip_archive_on_sys_path_is_read_by_importlib_metadata(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "site.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 1.0\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nz = zipped_mod\n")
    ours, theirs = _both(monkeypatch, archive)
    assert ours == theirs and "zipped_mod" in ours


NAMES = st.sampled_from(["acme", "Acme", "acme_rego", "acme-rego", "ACME.rego", "other", "o__x", "o-x"])
LINES = st.lists(st.one_of(
    st.sampled_from([f"[{GROUP}]", "[console_scripts]", f"[{GROUP}x]", "# note", "", "   "]),
    st.builds(lambda k, v: f" {k} = {v} ", st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
              st.from_regex(r"[a-z][a-z0-9_.]{0,8}(:[a-z]{1,4})?", fullmatch=True))), max_size=8)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), NAMES, st.sampled_from(["dist-info", "egg-info"]), LINES),
                max_size=5))
def test_made_up_sites_read_the_same(tmp_path_factory: pytest.TempPathFactory,
                                     dists: list[tuple[int, str, str, list[str]]]) -> None:
    root = tmp_path_factory.mktemp("sites")
    sites = [root / "s0", root / "s1"]
    for s in sites:
        s.mkdir()
    for n, (where, name, kind, lines) in enumerate(dists):
        _dist(sites[where], f"{name}-{n}.{kind}", "\n".join(lines))
    saved = sys.path[:]
    sys.path[:0] = [str(s) for s in sites]
    try:
        assert ep.entry_point_specs() == ep.scan_with_importlib_metadata()
    finally:
        sys.path[:] = saved


def test_another_finder_that_lists_distributions_is_left_to_importlib_metadata(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A meta-path finder other than CPython's path finder may list distributions the directory
    listing cannot see: then the scan is importlib.metadata's own."""
    from importlib.metadata import DistributionFinder, PathDistribution

    site = tmp_path / "hidden"
    _dist(site, "hidden_rego-1.0.dist-info", f"[{GROUP}]\nh = hidden_mod\n")

    class Hidden(DistributionFinder):
        def find_spec(self, *args: object) -> None:
            return None

        def find_distributions(self, context: DistributionFinder.Context = DistributionFinder.Context()
                               ) -> list[PathDistribution]:
            return [PathDistribution(site / "hidden_rego-1.0.dist-info")]

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Hidden()])
    assert ep.entry_point_specs() == ep.scan_with_importlib_metadata()
    assert "hidden_mod" in ep.entry_point_specs()


def test_an_egg_or_a_path_object_on_sys_path_is_left_to_importlib_metadata(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    egg = tmp_path / "old-1.0.egg"
    (egg / "EGG-INFO").mkdir(parents=True)
    (egg / "EGG-INFO" / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: old\nVersion: 1.0\n")
    (egg / "EGG-INFO" / "entry_points.txt").write_text(f"[{GROUP}]\no = old_mod\n")
    ours, theirs = _both(monkeypatch, egg)
    assert ours == theirs
    monkeypatch.setattr(sys, "path", [tmp_path, *sys.path])  # (a Path object: some tools append them)
    assert not ep._plain_paths() and ep.entry_point_specs() == ep.scan_with_importlib_metadata()
