"""Programs that execute strings they are given (cupcake_py/shell/carriers.py): the document is
generated from the table, every family has rows that really act, shell code they carry is
analysed, code in their own language is opaque, files they name are effects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cupcake_py.shell import carriers, embedded
from cupcake_py.shell.semantics import HANDLERS
from cupcake_py.shell.table import COMMANDS

from .conftest import opaque_kinds

DOC = Path(__file__).resolve().parents[2] / "docs" / "shell-analysis.md"


def test_document_is_generated_from_the_table() -> None:
    text = DOC.read_text("utf-8")
    assert carriers.splice(text) == text, "run: python -m cupcake_py.shell.carriers --write docs/shell-analysis.md"
    for family in carriers.FAMILIES.values():
        for row in family.rows:
            assert row.label.replace("|", "\\|") in text


def test_table_is_well_formed() -> None:
    for name, family in carriers.FAMILIES.items():
        assert family.rows and family.note and family.programs, name
        for row in family.rows:
            assert row.how in carriers.HOWS and row.runs in carriers.RUNS, (name, row)
            if row.how == "text":
                assert embedded.pattern(row.where).pattern == row.where
            if row.how == "handler":  # documented rows applied by a handler of the command table
                assert any(COMMANDS.get(p, {}).get("handler") in HANDLERS for p in family.programs), name
    programs = [p for f in carriers.FAMILIES.values() for p in f.programs]
    assert len(programs) == len(set(programs)), "a program belongs to one family"


def _deleted(out: dict[str, Any], project: Path) -> bool:
    return str(project / "secrets") in out["effects"]["deletes"]


# (command, what must be seen): "del" = the nested shell code deleting secrets is analysed,
# "opaque" = every kind opaque, ("writes"|"reads", path) = that effect, "env" = fact env_dump
SEEN = [
    ("ssh -o ProxyCommand='rm -rf secrets' host", "del"),
    ("ssh -oProxyCommand='rm -rf secrets' host", "del"),
    ("ssh -o 'LocalCommand rm -rf secrets' -o PermitLocalCommand=yes host", "del"),
    ("scp -o ProxyCommand='rm -rf secrets' a host:b", "del"),
    ("ssh -F ./cfg host", "opaque"),
    ("zip -TT 'rm -rf secrets' a.zip README.md", "del"),
    ("zip --unzip-command='rm -rf secrets' a.zip README.md", "del"),
    ("gdb -batch -ex 'shell rm -rf secrets'", "opaque"),
    ("gdb -x cmds.gdb", "opaque"),
    ("make --eval='x: ; rm -rf secrets' x", "opaque"),
    ("echo 'x: ; rm -rf secrets' | make -f - x", "opaque"),
    ("sed -n '1e rm -rf secrets' README.md", "opaque"),
    ("sed 's/.*/rm -rf secrets/e' README.md", "opaque"),
    ("sed -n 'w .env' README.md", ("writes", ".env")),
    ("sed 's/a/b/w .env' README.md", ("writes", ".env")),
    ("sed '1r .env' README.md", ("reads", ".env")),
    ("sed -f prog.sed README.md", ("writes", "out.txt")),
    ("awk 'BEGIN{system(\"rm -rf secrets\")}'", "opaque"),
    ("awk '{print | \"sh\"}' README.md", "opaque"),
    ("awk '{print > \".env\"}' README.md", ("writes", ".env")),
    ("awk 'BEGIN{while ((getline l < \".env\") > 0) print l}'", ("reads", ".env")),
    ("awk -f prog.awk README.md", "opaque"),
    ("awk 'BEGIN{print ENVIRON[\"TOKEN\"]}'", "env"),
    ("sqlite3 app.db '.shell rm -rf secrets'", "del"),
    ("sqlite3 app.db '.system rm -rf secrets'", "del"),
    ("sqlite3 app.db '.output .env' 'select 1'", ("writes", ".env")),
    ("sqlite3 app.db '.once |rm -rf secrets' 'select 1'", "del"),
    ("sqlite3 app.db \"select readfile('.env')\"", ("reads", ".env")),
    ("sqlite3 app.db \"select writefile('.env', 'x')\"", ("writes", ".env")),
    ("sqlite3 app.db \"select readfile(name) from t\"", "opaque"),
    ("sqlite3 -cmd '.shell rm -rf secrets' app.db 'select 1'", "del"),
    ("sqlite3 app.db <<'EOF'\n.shell rm -rf secrets\nEOF", "del"),
    ("cat q.sql | sqlite3 app.db", "opaque"),
    ("find . -name x -fprint .env", ("writes", ".env")),
    ("less '+!rm -rf secrets' README.md", "opaque"),
    ("man -P 'rm -rf secrets' ls", "del"),
    ("LESSOPEN='|rm -rf secrets %s' less README.md", "del"),
    ("vim -c ':!rm -rf secrets' README.md", "opaque"),
    ("emacs --batch --eval '(delete-directory \"secrets\" t)'", "opaque"),
]


@pytest.mark.parametrize(("command", "seen"), SEEN, ids=[s[0] for s in SEEN])
def test_strings_programs_execute_are_seen(an: Any, project: Path, command: str, seen: object) -> None:
    (project / "prog.sed").write_text("s/a/b/w out.txt\n")
    (project / "prog.awk").write_text("BEGIN { system(\"id\") }\n")
    out = an(command)
    if seen == "del":
        assert _deleted(out, project), out
    elif seen == "opaque":
        assert {"command", "reads", "writes", "deletes"} <= opaque_kinds(out), out["opaque"]
    elif seen == "env":
        assert "env_dump" in out["facts"]
    else:
        assert isinstance(seen, tuple)
        kind, rel = seen
        assert str(project / rel) in out["effects"][kind], out


ORDINARY = [
    "sqlite3 app.db 'select 1'", "sqlite3 app.db 'select count(*) from users'", "sqlite3 :memory: 'select 2'",
    "sed -n '1,5p' README.md", "sed -i 's/we/us/g' README.md", "sed -e 's/a/b/' -e 's/c/d/' README.md",
    "awk '{print $1}' README.md", "awk -F: '{s += $2} END {print s}' README.md", "ssh -o BatchMode=yes host true",
    "zip -r out.zip src", "make -j4", "make -f Makefile test", "less README.md", "vim +10 README.md",
    "find . -name '*.py' -print",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_uses_stay_resolved(an: Any, command: str) -> None:
    out = an(command)
    assert out["opaque"] == [], out["opaque"]
    assert "env_dump" not in out["facts"]
