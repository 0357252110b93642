"""The tree-sitter-bash parser, loaded on first use (tree-sitter stays off the eval path
of events that analyse no shell command).

In: shell source bytes. Out: the root node of the syntax tree (`has_error` set when the
grammar rejected part of it); `REDIRECT_NODES` and `heredoc_tails` name the redirection nodes
of the grammar and how here-documents nest them (read by the walker and the simple-command
semantics). Fails only if the tree-sitter packages are missing, which
`analyze` reports as an opaque result.

The grammar comes from `tree_sitter_bash.language()`. That package's `__init__` imports
importlib.resources (and with it pathlib, tempfile, shutil: ~11 ms CPU, benches/
shell_analysis.py) only to serve its highlight queries, which the analysis does not use, so
its compiled binding is found by the import system's own finders (`sys.meta_path`; the
`importlib` package would import warnings) and loaded directly; if that layout ever
changes, the ordinary `import tree_sitter_bash` is used instead. tree-sitter's own `__init__`
imports `typing` (with contextlib and warnings: ≈ 2 ms of a cold `cupcake eval`) only to declare
a Protocol for query predicates, which the analysis does not use: its binding is loaded the same
way and registered as `tree_sitter._binding`, so a later `import tree_sitter` (elsewhere in the
process) runs the package over the same types.

tree-sitter-bash 0.25.1 (the latest) reads out of bounds on code points far outside the Basic
Multilingual Plane: `{` followed by U+E0001 crashed the process (SIGSEGV) in most runs. The
parser is given every 4-byte UTF-8 sequence as a 4-byte BMP stand-in of the same kind: "éé"
for a word character (letter, mark, digit, connector), "©©" for anything else (the grammar treats letters and other characters
differently in places; on random strings mixing ASCII and astral characters the trees came out
the same). Node byte offsets are unchanged, and the analysis reads every word's text from the
original bytes, so the characters themselves are kept.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_sitter import Node, Parser

_PARSER: list[Parser] = []
REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


def _find_spec(name: str, path: list[str]) -> Any:
    """What the import system finds for `name` below `path` (the meta path finders asked in turn, as
    an import asks them), without importing its parent package, or None."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, path) if find is not None else None
        if spec is not None:
            return spec
    return None


def _binding(package: str) -> Any:
    """`package`'s compiled `_binding` module, loaded without running the package's `__init__`
    (None when the package is not laid out so: the caller then imports it)."""
    name = package + "._binding"
    known = sys.modules.get(name)
    if known is not None:
        return known
    spec = _find_spec(package, sys.path)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    found = _find_spec(name, locations) if locations else None
    loader = getattr(found, "loader", None)
    if found is None or found.origin is None or not found.origin.endswith((".so", ".pyd")) or loader is None:
        return None  # not a compiled binding next to the package's __init__
    module = loader.create_module(found)
    loader.exec_module(module)
    return module


def _bash_language() -> object:
    module = _binding("tree_sitter_bash")
    if module is not None:
        return module.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


def parser() -> Parser:
    if not _PARSER:
        ts = _binding("tree_sitter")
        if ts is None or not all(hasattr(ts, n) for n in ("Parser", "Language")):
            import tree_sitter as ts
        else:
            sys.modules.setdefault("tree_sitter._binding", ts)  # `import tree_sitter` later: the same types
        _PARSER.append(ts.Parser(ts.Language(_bash_language())))
    return _PARSER[0]


_FOUR_BYTE = re.compile(rb"[\xf0-\xff][\x80-\xbf]{3}")
_LETTER, _OTHER = "\u00e9\u00e9".encode(), "\u00a9\u00a9".encode()  # 4 bytes each, as what they replace


def _stand_in(m: re.Match[bytes]) -> bytes:
    try:
        ch = m.group().decode()
    except UnicodeDecodeError:
        return _OTHER
    import unicodedata

    category = unicodedata.category(ch)  # word characters (letters, marks, digits, connectors) or not
    return _LETTER if category[0] in "LM" or category in ("Nd", "Nl", "Pc") else _OTHER


def parse(src: bytes) -> Node:
    """The syntax tree of `src`; node offsets are offsets into `src` itself."""
    return parser().parse(_FOUR_BYTE.sub(_stand_in, src)).root_node


def heredoc_tails(nodes: list[Node]) -> tuple[list[Node], list[Node]]:
    """Redirections with the ones nested in here-documents flattened out, and the statements
    the grammar nests in a here-document's first line (pipeline continuations, `&&`/`||`
    right sides)."""
    redirects: list[Node] = []
    tails: list[Node] = []
    for n in nodes:
        redirects.append(n)
        if n.type != "heredoc_redirect":
            continue
        for c in n.children:
            if c.type in REDIRECT_NODES:
                redirects.append(c)
            elif c.is_named and c.type not in ("heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content"):
                tails.append(c)
    return redirects, tails
