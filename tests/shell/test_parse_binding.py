"""shell/parse.py loads tree-sitter's binding without its package `__init__` (which imports
typing): the parser works, and a later `import tree_sitter` in the same process runs the package
over the same binding (the same Parser and Node types), so values cross between the two."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from cupcake_py.shell import parse
root = parse.parse(b"ls -a | grep x")
print("typing" in sys.modules, "tree_sitter" in sys.modules)
import tree_sitter
print(type(root) is tree_sitter.Node, type(parse.parser()) is tree_sitter.Parser)
print(str(tree_sitter.Parser(tree_sitter.Language(parse._bash_language())).parse(b"ls -a | grep x").root_node))
print(str(root))
"""


def test_binding_loaded_directly_and_shared_with_a_later_import() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "False False"  # the package's __init__ (and typing) did not run
    assert lines[1] == "True True"  # the package imported later holds the same types
    assert lines[3].startswith("(program (pipeline (command name: (command_name (word))")
    assert lines[2] == lines[3]  # a parser made from the imported package parses alike
