"""A redirection on the last command of a list resolves in the directory the list changed to."""

from __future__ import annotations

from cupcake_py.shell import analyze


def test_redirect_after_cd_in_a_list_resolves_in_the_new_directory(tmp_path) -> None:
    (tmp_path / "d").mkdir()
    r = analyze("cd d && echo x > out.txt", str(tmp_path))
    assert str(tmp_path / "d" / "out.txt") in r["effects"]["writes"]
    assert r["commands"][-1]["redirects"][0]["target"] == str(tmp_path / "d" / "out.txt")


def test_redirect_without_cd_is_unchanged(tmp_path) -> None:
    r = analyze("true && echo x > out.txt", str(tmp_path))
    assert r["effects"]["writes"] == [str(tmp_path / "out.txt")]
    assert r["opaque"] == []


def test_input_redirect_after_cd_is_uncertain(tmp_path) -> None:
    (tmp_path / "d").mkdir()
    r = analyze("cd d && bash < s.sh", str(tmp_path))
    assert any(o["kind"] == "command" and "directory change" in o["reason"] for o in r["opaque"])
