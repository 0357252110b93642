"""State along the command line: cd/pushd/popd, assignments, control flow, functions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import opaque_kinds


def test_cd_along_and(an: Any, project: Path) -> None:
    out = an("cd src && rm a.py")
    assert out["effects"]["deletes"] == [str(project / "src/a.py")]
    assert out["commands"][1]["cwd"] == str(project / "src")


def test_cd_to_missing_dir_makes_later_relative_paths_opaque(an: Any) -> None:
    out = an("cd nowhere; rm -rf .env")
    assert out["effects"]["deletes"] == []
    assert "deletes" in opaque_kinds(out)
    assert out["commands"][1]["cwd"] is None


def test_cd_to_dir_made_earlier(an: Any, project: Path) -> None:
    out = an("mkdir -p newdir && cd newdir && touch x")
    assert str(project / "newdir/x") in out["effects"]["writes"]


def test_cd_unknown_target(an: Any) -> None:
    out = an('cd "$(mktemp -d)" && rm -rf x')
    assert "deletes" in opaque_kinds(out)


def test_cd_absolute_paths_stay_known(an: Any) -> None:
    out = an("cd $(pwd)/nowhere; rm /tmp/abs")
    assert out["effects"]["deletes"] == ["/tmp/abs"]


def test_or_branch_runs_in_the_original_dir(an: Any, project: Path) -> None:
    out = an("cd src || rm .env")
    assert str(project / ".env") in out["effects"]["deletes"]


def test_cd_in_subshell_and_pipeline_does_not_leak(an: Any, project: Path) -> None:
    assert an("(cd src); rm a.py")["effects"]["deletes"] == [str(project / "a.py")]
    assert an("cd src | true; rm a.py")["effects"]["deletes"] == [str(project / "a.py")]


def test_pushd_popd(an: Any, project: Path) -> None:
    out = an("pushd src && popd && rm a.py")
    assert out["effects"]["deletes"] == [str(project / "a.py")]


def test_cd_dash_and_home(an: Any, project: Path) -> None:
    assert an("cd src; cd -; rm x")["effects"]["deletes"] == [str(project / "x")]
    assert an("cd; rm x")["effects"]["deletes"] == [str(project.parent / "x")]


def test_if_branches_merge_state(an: Any, project: Path) -> None:
    out = an("if test -f x; then d=.env; else d=README.md; fi; rm $d")
    assert "deletes" in opaque_kinds(out)
    out = an("if true; then d=.env; else d=.env; fi; rm $d")
    assert out["effects"]["deletes"] == [str(project / ".env")]


def test_loop_over_glob_binds_each_value(an: Any, project: Path) -> None:
    out = an('for f in src/*.py; do wc -l "$f"; done')
    assert out["effects"]["reads"] == [str(project / "src/a.py"), str(project / "src/b.py")]
    assert out["opaque"] == []


def test_loop_over_runtime_values_is_opaque(an: Any) -> None:
    out = an("for f in $(ls); do rm $f; done")
    assert "deletes" in opaque_kinds(out)


def test_while_read_variable_is_opaque(an: Any) -> None:
    out = an("ls | while read f; do rm \"$f\"; done")
    assert "deletes" in opaque_kinds(out)


def test_case_branches(an: Any, project: Path) -> None:
    out = an("case x in a) rm .env;; *) rm README.md;; esac")
    assert set(out["effects"]["deletes"]) == {str(project / ".env"), str(project / "README.md")}


def test_function_body_runs_at_call(an: Any, project: Path) -> None:
    out = an("f() { rm -rf \"$1\"; }; f secrets")
    assert out["effects"]["deletes"] == [str(project / "secrets")]
    assert out["commands"][1]["origin"] == "function:f"
    assert an("f() { rm -rf x; }")["effects"]["deletes"] == []


def test_prefix_assignment_is_not_a_shell_variable(an: Any) -> None:
    out = an("X=.env echo $X")
    assert out["commands"][0]["argv"] == ["echo", None]


def test_export_reaches_child_shells_plain_assignment_does_not(an: Any, project: Path) -> None:
    assert an("export d=.env; bash -c 'rm $d'")["effects"]["deletes"] == [str(project / ".env")]
    out = an("d=.env; bash -c 'rm $d'")
    assert "deletes" in opaque_kinds(out)
    assert an("d=.env bash -c 'rm $d'")["effects"]["deletes"] == [str(project / ".env")]


def test_substitution_commands_run_first(an: Any) -> None:
    out = an("echo $(rm -rf secrets)")
    assert [c["name"] for c in out["commands"]] == ["rm", "echo"]


def test_pwd_substitution_is_static(an: Any, project: Path) -> None:
    assert an('rm "$(pwd)/.env"')["effects"]["deletes"] == [str(project / ".env")]


def test_arithmetic_side_effects_invalidate(an: Any) -> None:
    out = an("i=1; : $((i++)); rm f$i")
    assert "deletes" in opaque_kinds(out)


def test_read_invalidates(an: Any) -> None:
    assert "deletes" in opaque_kinds(an("f=a; read f; rm $f"))


def test_set_positional(an: Any, project: Path) -> None:
    assert an("set -- .env; rm $1")["effects"]["deletes"] == [str(project / ".env")]


@pytest.mark.parametrize("command", [
    "sh -c '${00} -rf secrets' rm ls",  # ${00} is $0 (was read as the last argument: `ls`)
    "bash -c 'rm -rf ${01}' x secrets",  # leading zeros: ${01} is $1
    "sh -c '${010} -rf secrets' x 1 2 3 4 5 6 7 8 9 rm",  # ${010} is $10
    "bash -c 'shift 5; rm -rf \"$1\"' x secrets",  # too large a count: bash does not shift
    "bash -c 'shift foo; rm -rf \"$1\"' x secrets",  # not a number: bash does not shift
    "bash -c 'shift 01; rm -rf \"$1\"' x a secrets",
    "bash -c 'shift; rm -rf \"$1\"' x a secrets",
])
def test_positional_parameters_as_bash_reads_them(an: Any, project: Path, command: str) -> None:
    """Adversarial: each of these deletes secrets/ in bash; the analysis must say so."""
    assert an(command)["effects"]["deletes"] == [str(project / "secrets")], command


@pytest.mark.parametrize(("command", "deleted"), [
    ("""bash -c 'rm -rf "$@"' x a secrets""", ["a", "secrets"]),  # one word per parameter (was "a secrets")
    ("""bash -c 'rm -rf "${@}"' x a secrets""", ["a", "secrets"]),
    ("""bash -c 'rm -rf "a$@b"' x 1 secrets""", ["a1", "secretsb"]),
    ("""bash -c 'rm -rf $*' x a secrets""", ["a", "secrets"]),
    ("""bash -c 'rm -rf "$*"' x a b""", ["a b"]),  # one word
    ("""f() { rm -rf "$@"; }; f a secrets""", ["a", "secrets"]),
    ("""bash -c 'rm -rf ${#@}' x a b""", ["2"]),
])
def test_positional_lists_expand_as_bash_does(an: Any, project: Path, command: str, deleted: list[str]) -> None:
    assert an(command)["effects"]["deletes"] == sorted(str(project / d) for d in deleted), command


@pytest.mark.parametrize("command", ["""bash -c 'rm -rf "${@:1:1}"' x secrets""",
                                     """bash -c 'rm -rf "${@: -1}"' x a secrets""",
                                     """bash -c 'rm -rf "${@#x}"' x xa xsecrets""",
                                     """bash -c 'rm -rf ${*^^}' x secrets"""])
def test_operations_on_the_positional_list_are_unknown(an: Any, command: str) -> None:
    """Adversarial: each acts per parameter in bash (slices, per-word trims); the analysis read them
    as one joined string (`${@:1:1}` gave "e"). Now they are said to be unknown."""
    out = an(command)
    assert "deletes" in opaque_kinds(out) and out["effects"]["deletes"] == [], command


@pytest.mark.parametrize("command", [
    "x=a; while true; do rm -rf $x; x=secrets; done",  # the second iteration deletes secrets
    """bash -c 'while [ $# -gt 0 ]; do rm -rf "$1"; shift; done' x a secrets""",
    """bash -c 'until [ $# -eq 0 ]; do rm -rf "$1"; shift; done' x a secrets""",
    """bash -c 'while :; do rm -rf "$1"; set -- secrets; done' x a""",
    "z=a; y=a; x=a; while :; do rm -rf $x; x=$y; y=$z; z=secrets; done",  # a chain: three passes
    "a=1; b=1; c=1; d=1; e=1; while :; do rm -rf $a; a=$b; b=$c; c=$d; d=$e; e=secrets; done",  # never settles
    "for ((i=0; i<2; i++)); do rm -rf $x; x=secrets; done",
    """bash -c 'if [ -n "$X" ]; then shift; fi; rm -rf "$1"' x a secrets""",  # branches disagree on $1
])
def test_loops_and_branches_that_change_state_are_not_read_once(an: Any, command: str) -> None:
    """Adversarial: a loop body that changes variables or arguments was walked once, from the state
    before the loop, so later iterations were never seen. Now it is walked until its state settles
    (what differs becomes unknown), and branches that disagree on the arguments make them unknown."""
    out = an(command)
    assert "deletes" in opaque_kinds(out), command


@pytest.mark.parametrize(("command", "deleted"), [
    ("while true; do rm -rf a; done", ["a"]),
    ("x=a; while true; do rm -rf $x; done", ["a"]),
    ("x=a; while true; do rm -rf $x; x=a; done", ["a"]),
    ("for f in a b; do rm -rf $f; done", ["a", "b"]),
])
def test_loops_that_keep_their_state_stay_exact(an: Any, project: Path, command: str, deleted: list[str]) -> None:
    out = an(command)
    assert out["effects"]["deletes"] == sorted(str(project / d) for d in deleted) and out["opaque"] == [], command


def test_shift_by_an_unknown_count_leaves_the_arguments_unknown(an: Any) -> None:
    out = an("bash -c 'shift $N; rm -rf \"$1\"' x secrets other")
    assert "deletes" in opaque_kinds(out) and out["effects"]["deletes"] == []


@pytest.mark.parametrize("command", ["shift ² ; rm x", "echo ${a[²]}", "git apply -p² p.diff", "echo hi 2²>x",
                                     "GIT_CONFIG_COUNT=² git status", "set -- a; shift ٣; rm $1"])
def test_non_ascii_digits_are_not_numbers(an: Any, command: str) -> None:
    """No internal error (int() accepts digits bash does not): each is analysed or said to be unknown."""
    assert not [o for o in an(command)["opaque"] if o["reason"].startswith("internal analysis error")]


def test_a_huge_git_config_count_is_cheap(an: Any) -> None:
    """Adversarial: GIT_CONFIG_COUNT is the agent's number; the keys it names stop being known at
    the first missing one, so the analysis does not walk the whole count (it took 67 s at 10^8)."""
    out = an("GIT_CONFIG_COUNT=99999999999999 git -c core.hooksPath=x commit -m y")
    assert out["git"][0]["hooks_disabled"] is True


def test_cd_into_a_fresh_clone(an: Any, project: Path) -> None:
    out = an("git clone https://x.example/org/repo.git && cd repo && rm x")
    assert out["effects"]["deletes"] == [str(project / "repo/x")] and out["opaque"] == []


def test_arithmetic_and_typed_declarations_invalidate(an: Any) -> None:
    for command in ("x=a; let x=5; rm $x", "declare -i n=1+1; rm f$n", "declare -l v=ABC; cat $v"):
        out = an(command)
        assert out["commands"][-1]["argv"][1] is None, command


def test_while_read_over_static_input(an: Any, tmp_path: Path) -> None:
    (tmp_path / "list.txt").write_text(".env\nsecrets\n")
    want = [str(tmp_path / ".env"), str(tmp_path / "secrets")]
    for command in ('while IFS= read -r f; do rm "$f"; done < list.txt',
                    "cat list.txt | while read f; do rm -rf $f; done",
                    "while read -r f; do rm $f; done <<EOF\n.env\nsecrets\nEOF",
                    "printf '.env' | while read f; do rm $f; secrets=1; rm secrets; done"):
        out = an(command, cwd=tmp_path)
        assert out["effects"]["deletes"] == want, command
        assert out["opaque"] == [], command
    for command in ('ls | while read f; do rm "$f"; done', "while read f; do rm $f; done < missing.txt",
                    "while read a b; do rm $a; done < list.txt"):
        assert "deletes" in {o["kind"] for o in an(command, cwd=tmp_path)["opaque"]}, command
