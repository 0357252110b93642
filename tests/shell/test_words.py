"""Word expansion: quoting, ANSI-C strings, escapes, braces, tilde, parameters, globs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cupcake_py.shell.words import decode_ansi_c


def argv(an: Any, command: str) -> list[str | None]:
    return an(command)["commands"][-1]["argv"]


@pytest.mark.parametrize(("command", "expected"), [
    ("cat se''crets", ["cat", "secrets"]),
    ('cat cup""cake', ["cat", "cupcake"]),
    (r"cat cupcak\e", ["cat", "cupcake"]),
    ("cat $'\\x2ecupcake'", ["cat", ".cupcake"]),
    ("cat $'sec\\x72ets'", ["cat", "secrets"]),
    ("cat $'\\056env'", ["cat", ".env"]),
    ("cat $'\\u002eenv'", ["cat", ".env"]),
    ("cat $'a\\tb'", ["cat", "a\tb"]),
    ('cat "a b"', ["cat", "a b"]),
    ('cat "a\\"b"', ["cat", 'a"b']),
    ("cat 'a\\b'", ["cat", "a\\b"]),
    ('echo $"tr"', ["echo", "tr"]),
])
def test_quotes_and_escapes(an: Any, command: str, expected: list[str]) -> None:
    assert argv(an, command) == expected


@pytest.mark.parametrize(("body", "value"), [
    ("\\x41", "A"), ("\\101", "A"), ("\\u00e9", "é"), ("\\U0001F600", "😀"), ("\\n", "\n"), ("\\e", "\x1b"),
    ("\\cA", "\x01"), ("a\\0b", "a"), ("\\q", "\\q"), ("\\'", "'"),
])
def test_ansi_c(body: str, value: str) -> None:
    assert decode_ansi_c(body) == value


@pytest.mark.parametrize(("command", "expected"), [
    ("cat con{fig,}/prod.yml", ["cat", "config/prod.yml", "con/prod.yml"]),
    ("echo {1..3}", ["echo", "1", "2", "3"]),
    ("echo {01..03}", ["echo", "01", "02", "03"]),
    ("echo {a..c}", ["echo", "a", "b", "c"]),
    ("echo {1..7..3}", ["echo", "1", "4", "7"]),
    ("echo a{b,c{d,e}}f", ["echo", "abf", "acdf", "acef"]),
    ("echo '{a,b}'", ["echo", "{a,b}"]),
    ("echo {a}", ["echo", "{a}"]),
])
def test_brace_expansion(an: Any, command: str, expected: list[str]) -> None:
    assert argv(an, command) == expected


def test_tilde(an: Any, project: Path) -> None:
    assert argv(an, "cat ~/x") == ["cat", f"{project.parent}/x"]
    assert argv(an, "cat '~/x'") == ["cat", "~/x"]
    assert argv(an, "cat ~+/x") == ["cat", f"{project}/x"]


@pytest.mark.parametrize(("command", "expected"), [
    ("d=secr; rm -rf ./${d}ets", ["rm", "-rf", "./secrets"]),
    ("f=.e; cat ${f}nv", ["cat", ".env"]),
    ("unset u; cat ${u:-.env}", ["cat", ".env"]),
    ("u=; cat ${u:-.env}", ["cat", ".env"]),
    ("u=; cat ${u-x}", ["cat"]),
    ("v=a.txt; cat ${v%.txt}.env", ["cat", "a.env"]),
    ("v=x/y/z; cat ${v##*/}", ["cat", "z"]),
    ("v=x/y/z; cat ${v#*/}", ["cat", "y/z"]),
    ("v=SECRETS; rm ${v,,}", ["rm", "secrets"]),
    ("v=env; cat .${v^^}", ["cat", ".ENV"]),
    ("v=abcdef; echo ${v:1:3} ${#v}", ["echo", "bcd", "6"]),
    ("v=a-b-c; echo ${v//-/_} ${v/-/_}", ["echo", "a_b_c", "a_b-c"]),
    ("v=.env; w=v; cat ${!w}", ["cat", ".env"]),
    ("v=1; cat ${v:+.env}", ["cat", ".env"]),
    ('a="x y"; touch $a', ["touch", "x", "y"]),
    ('a="x y"; touch "$a"', ["touch", "x y"]),
    ("x=1; x+=2; echo $x", ["echo", "12"]),
    ('rm -rf "$PWD"', ["rm", "-rf", None]),
])
def test_parameters(an: Any, project: Path, command: str, expected: list[str | None]) -> None:
    got = argv(an, command)
    if expected[-1] is None:  # $PWD: the analysis cwd
        expected = expected[:-1] + [str(project)]
    assert got == expected


@pytest.mark.parametrize("command", ["cat $UNKNOWN_VAR", "cat ${arr[1]}", "cat $RANDOM", "cat $?",
                                     'cat "$(date +%s)cake/rulebook.yml"', "cat `cat name`",
                                     "cat $((1+2))", "cat ${v@Q}", "cat <(ls)"])
def test_runtime_values_are_opaque(an: Any, command: str) -> None:
    out = an(command)
    assert out["commands"][-1]["argv"][1] is None
    assert any(o["kind"] == "reads" for o in out["opaque"])


def test_unquoted_opaque_may_split(an: Any, project: Path) -> None:
    out = an("cp README.md $(ls)")  # which word is the target is known only at run time
    assert {"reads", "writes"} <= {o["kind"] for o in out["opaque"]}
    out = an("cp $(ls) dest")  # the target stays the last word, whatever $(ls) expands to
    assert out["effects"]["writes"] == [str(project / "dest")]
    assert {o["kind"] for o in out["opaque"]} == {"reads"}


@pytest.mark.parametrize(("command", "effect"), [
    ("cat .[e]nv", "/.env"), ("cat .en*", "/.env"), ("cat sec*/key.txt", "/secrets/key.txt"),
    ("cat .e?v", "/.env"), ("cat .[!x]nv", "/.env"), ("cat .[^x]nv", "/.env"),
])
def test_globs_expand_and_keep_patterns(an: Any, project: Path, command: str, effect: str) -> None:
    out = an(command)
    assert str(project) + effect in out["effects"]["reads"]
    assert out["patterns"]["reads"] and all(p.startswith(str(project)) for p in out["patterns"]["reads"])


def test_glob_without_match_stays_literal_and_star_skips_dotfiles(an: Any, project: Path) -> None:
    out = an("cat nomatch*")
    assert out["commands"][0]["argv"] == ["cat", "nomatch*"]
    assert str(project / ".env") not in an("cat *")["effects"]["reads"]


def test_absolute_glob(an: Any) -> None:
    out = an("cat /e??/hostname")
    assert "/etc/hostname" in out["effects"]["reads"] or out["patterns"]["reads"] == ["/e??/hostname"]
    assert out["patterns"]["reads"] == ["/e??/hostname"]


def test_quoted_glob_is_literal(an: Any, project: Path) -> None:
    out = an("cat '.e*'")
    assert out["effects"]["reads"] == [str(project / ".e*")]
    assert out["patterns"]["reads"] == []


def test_glob_budget_makes_opaque(an: Any, tmp_path: Path) -> None:
    from cupcake_py.shell.model import Budget

    for i in range(20):
        (tmp_path / f"f{i}").write_text("")
    out = an("rm f*", cwd=tmp_path, budget=Budget(max_glob_matches=5))
    assert "deletes" in {o["kind"] for o in out["opaque"]}


def test_extglob_in_words_does_not_parse_and_is_opaque(an: Any) -> None:
    out = an("cat src/@(a|b).py")
    assert out["parsed"] is False
    assert {"reads", "writes", "deletes", "command"} <= {o["kind"] for o in out["opaque"]}


@pytest.mark.parametrize(("command", "expected"), [
    ('cat "$(printf .cup)cake/rulebook.yml"', ["cat", ".cupcake/rulebook.yml"]),
    ("cat `echo .env`", ["cat", ".env"]),
    ('cat "$(echo -n .e)nv"', ["cat", ".env"]),
    ("cat $(pwd)/.env", ["cat", None]),
    ("git commit -m \"$(cat <<'EOF'\nfix: x\nEOF\n)\"", ["git", "commit", "-m", "fix: x"]),
    ("cat $(basename /a/x.env .env).env", ["cat", "x.env"]),
    ("cat $(dirname a/b/c)/.env", ["cat", "a/b/.env"]),
    ('cat "$(realpath .env)"', ["cat", None]),
    ('cat "$(git rev-parse --show-toplevel)/.env"', ["cat", None]),
])
def test_static_substitution_output(an: Any, project: Path, command: str, expected: list[str | None]) -> None:
    got = argv(an, command)
    if expected[-1] is None:
        expected = expected[:-1] + [f"{project}/.env"]
    assert got == expected


@pytest.mark.parametrize("command", ["cat $(echo -e '.\\x65nv')", "cat $(printf '%s' .env)", "cat $(echo a > f)",
                                     "cat $(sudo echo .env)", "cat $(echo a; echo b)"])
def test_substitution_output_not_guessed(an: Any, command: str) -> None:
    assert argv(an, command)[1] is None


def test_glob_options(an: Any, tmp_path: Path) -> None:
    (tmp_path / "a/b").mkdir(parents=True)
    (tmp_path / ".env").write_text("")
    (tmp_path / "a/b/.env").write_text("")
    (tmp_path / "x.py").write_text("")
    assert str(tmp_path / ".env") not in an("rm -rf *", cwd=tmp_path)["effects"]["deletes"]
    assert str(tmp_path / ".env") in an("shopt -s dotglob; rm -rf *", cwd=tmp_path)["effects"]["deletes"]
    out = an("shopt -s globstar; rm **/.env", cwd=tmp_path)
    assert out["effects"]["deletes"] == [str(tmp_path / ".env"), str(tmp_path / "a/b/.env")]
    assert an("rm **/.env", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "**/.env")]  # ** is * here
    assert an("set -f; rm *.py", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "*.py")]
    assert an("shopt -s nullglob; rm nomatch*", cwd=tmp_path)["effects"]["deletes"] == []
    assert an("shopt -s nocaseglob; rm X.PY", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "X.PY")]
    assert an("shopt -s nocaseglob; rm X.P?", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "x.py")]
    out = an("shopt -s $OPT; rm *", cwd=tmp_path)
    assert {o["kind"] for o in out["opaque"]} == {"deletes"}


@pytest.mark.parametrize(("command", "expected"), [
    ('a=(.env "y z"); cat "${a[@]}"', ["cat", ".env", "y z"]),
    ("a=(.env 'y z'); cat ${a[@]}", ["cat", ".env", "y", "z"]),
    ('a=(.env "y z"); cat "${a[*]}"', ["cat", ".env y z"]),
    ("a=(x .env); cat ${a[1]} ${a[-1]} ${#a[@]}", ["cat", ".env", ".env", "2"]),
    ("a=(x); a+=(.env); cat ${a[1]}", ["cat", ".env"]),
    ("a=(x y); a[1]=.env; cat ${a[@]}", ["cat", "x", ".env"]),
    ("a=(src/*.py); cat ${a[@]}", ["cat", "src/a.py", "src/b.py"]),
    ("a=(x); cat $a", ["cat", "x"]),
    ("a=(); cat \"${a[@]}\" .env", ["cat", ".env"]),
    ("a=(x); a[5]=y; cat ${a[@]}", ["cat", None]),  # sparse: not tracked
    ("a=($(ls)); cat ${a[0]}", ["cat", None]),
    ("cat ${undefined_array[@]}", ["cat", None]),
])
def test_arrays(an: Any, command: str, expected: list[str | None]) -> None:
    assert argv(an, command) == expected
