"""Configuration YAML (rulebook.yml, the lint config) read with the positions of every key, and
duplicate keys refused (ruamel.yaml's round-trip loader; YAML 1.1 scalars, as PyYAML read them:
`on`/`off`/`yes`/`no` are booleans).

In: the text and its path (for messages). Out: `YamlDoc`: `data` (plain dict/list/str/int/float/
bool/None/date values) and `where(loc)`: `file:row:col` of the key or item a path of keys and
indices names (the deepest one that exists). Fails with YamlSourceError (a CupcakeError):
invalid YAML at `file:row:col`, and a key given twice in one mapping with both line numbers (a
second `git_block_no_verify:` would otherwise replace the first one's settings unseen).
Imported only when a configuration is read: a `cupcake eval` that hits the bundle cache reads no YAML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cupcake_py.core.errors import CupcakeError


class YamlSourceError(CupcakeError):
    pass


def _plain(node: Any) -> Any:
    """ruamel's round-trip containers and scalar types -> the plain Python values PyYAML gives."""
    if isinstance(node, dict):
        return {_plain(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    for kind in (int, float, str):
        if isinstance(node, kind):
            return kind(node)
    return node


@dataclass(frozen=True)
class YamlDoc:
    path: Path
    root: Any  # ruamel's CommentedMap/CommentedSeq tree (positions in .lc)
    data: Any  # the same document as plain values

    def where(self, loc: tuple[int | str, ...]) -> str:
        """`file:row:col` of the key (mapping) or item (sequence) `loc` names, or of the deepest
        existing node on the way (a scalar value where the path goes on: the value); `file` alone
        when the document is empty."""
        node, pos, value_pos = self.root, None, None
        for part in loc:
            lc = getattr(node, "lc", None)
            if lc is None:  # a scalar where the path goes on (`audit: sometimes` for audit.mode): its value
                pos = value_pos or pos
                break
            if isinstance(node, dict) and part in node:
                pos, value_pos, node = lc.key(part), lc.value(part), node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                pos, node = lc.item(part), node[part]
                value_pos = pos
            else:
                break
        if pos is None:
            lc = getattr(self.root, "lc", None)
            pos = (lc.line, lc.col) if lc is not None else None
        return f"{self.path}:{pos[0] + 1}:{pos[1] + 1}" if pos is not None else str(self.path)


def _mark(path: Path, mark: Any) -> str:
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)


def _refuse_duplicates(path: Path, node: Any) -> None:
    """Walk the composed node tree; a mapping key given twice -> YamlSourceError with both lines."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if isinstance(n, MappingNode):
            seen: dict[Any, Any] = {}
            for k, v in n.value:
                key = getattr(k, "value", None)
                if isinstance(key, str) and key in seen and key != "<<":
                    first = seen[key].start_mark
                    raise YamlSourceError(
                        f"{_mark(path, k.start_mark)}: duplicate key {key!r} (first at line {first.line + 1}, "
                        f"again at line {k.start_mark.line + 1}): a key may appear once per mapping, and the "
                        f"second would replace the first; merge the two entries")
                seen.setdefault(key, k)
                stack.append(v)
        elif isinstance(n, SequenceNode):
            stack.extend(n.value)


def load_yaml(text: str, path: Path) -> YamlDoc:
    """The document in `text` (one document; empty -> data None). YamlSourceError on any mistake."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    yaml.version = (1, 1)  # on/off/yes/no are booleans, as everywhere before
    try:
        _refuse_duplicates(path, yaml.compose(text))
        root = yaml.load(text)
    except DuplicateKeyError as e:  # a case the walk above does not see (e.g. merge keys)
        raise YamlSourceError(f"{_mark(path, e.problem_mark)}: duplicate key: {e.problem}") from None
    except MarkedYAMLError as e:
        raise YamlSourceError(f"{_mark(path, e.problem_mark)}: invalid YAML: {e.problem or e}") from None
    except YAMLError as e:
        raise YamlSourceError(f"{path}: invalid YAML: {e}") from None
    return YamlDoc(path, root, _plain(root))
