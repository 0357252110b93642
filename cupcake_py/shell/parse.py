"""The tree-sitter-bash parser, loaded on first use (tree-sitter stays off the eval path
of events that analyse no shell command).

In: shell source bytes. Out: the root node of the syntax tree (`has_error` set when the
grammar rejected part of it). Fails only if the tree-sitter packages are missing, which
`analyze` reports as an opaque result.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_PARSER: list[Parser] = []


def parser() -> Parser:
    if not _PARSER:
        import tree_sitter
        import tree_sitter_bash

        _PARSER.append(tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language())))
    return _PARSER[0]


def parse(src: bytes) -> Node:
    return parser().parse(src).root_node
