"""tree-sitter-bash 0.25.1 reads out of bounds on code points far outside the BMP (`{` then
U+E0001 crashed the process with SIGSEGV in most runs): shell/parse.py hands the parser a
same-length stand-in for every 4-byte UTF-8 sequence. The crash inputs run in a child process
(a regression must fail this test, not kill the test run), several times each since the
out-of-bounds read does not always fault; the analysis still sees the original characters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.shell.parse import parse

CRASHERS = ["{\U000e69af", "{\U000e0001", "{\U0010fffd", "echo {\U000e69af", "{\U000dffff"]
CHILD = """
import sys
from cupcake_py.shell.parse import parse
for text in sys.argv[1:]:
    for _ in range(5):
        parse(text.encode())
print("ok")
"""


def test_far_astral_code_points_do_not_crash_the_parser() -> None:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", CHILD, *CRASHERS], capture_output=True, text=True, cwd=root,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-500:])


def test_the_analysis_keeps_the_original_characters(an: Any, project: Path) -> None:
    out = an("rm -rf 'a\U0001f600' b\U000e0001c {x,\U0010fffd}")
    assert out["effects"]["deletes"] == sorted(str(project / n) for n in
                                               ("a\U0001f600", "b\U000e0001c", "x", "\U0010fffd"))


ASTRAL = st.characters(min_codepoint=0x10000, max_codepoint=0x7FFFF, exclude_categories=("Cs", "Cn"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(list("ab1?${}()[]*!~#=\"' -_/\\.,:;&|<>@%^+\n")), ASTRAL), max_size=12)
       .map("".join))
def test_stand_ins_keep_the_tree_shape(text: str) -> None:
    """Where the raw parse is safe (code points below U+80000), the stand-ins give the same tree."""
    from cupcake_py.shell.parse import parser

    assert str(parse(text.encode())) == str(parser().parse(text.encode()).root_node)
