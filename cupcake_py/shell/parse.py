"""The tree-sitter-bash parser, loaded on first use (tree-sitter stays off the eval path
of events that analyse no shell command).

In: shell source bytes. Out: the root node of the syntax tree (`has_error` set when the
grammar rejected part of it). Fails only if the tree-sitter packages are missing, which
`analyze` reports as an opaque result.

The grammar comes from `tree_sitter_bash.language()`. That package's `__init__` imports
importlib.resources (and with it pathlib, tempfile, shutil: ~11 ms CPU, benches/
shell_analysis.py) only to serve its highlight queries, which the analysis does not use, so
its compiled binding is loaded directly through importlib.machinery; if that layout ever
changes, the ordinary `import tree_sitter_bash` is used instead.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_PARSER: list[Parser] = []


def _bash_language() -> object:
    from importlib import machinery

    spec = machinery.PathFinder.find_spec("tree_sitter_bash", sys.path)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        for name in sorted(os.listdir(folder)):
            if name.startswith("_binding.") and name.endswith(tuple(machinery.EXTENSION_SUFFIXES)):
                path = os.path.join(folder, name)
                loader = machinery.ExtensionFileLoader("tree_sitter_bash._binding", path)
                module = loader.create_module(machinery.ModuleSpec("tree_sitter_bash._binding", loader, origin=path))
                loader.exec_module(module)
                return module.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


def parser() -> Parser:
    if not _PARSER:
        import tree_sitter

        _PARSER.append(tree_sitter.Parser(tree_sitter.Language(_bash_language())))
    return _PARSER[0]


def parse(src: bytes) -> Node:
    return parser().parse(src).root_node
