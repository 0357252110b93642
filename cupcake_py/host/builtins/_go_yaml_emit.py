"""yaml.marshal's text as OPA writes it: the value as JSON, read back by go-yaml v2 and
written by go-yaml v2's encoder (sigs.k8s.io/yaml's JSONToYAML).

So: a number is an int when its JSON text is one within int64/uint64, else a float64 written
as Go's FormatFloat(f, 'g', -1, 64) (`1.0` → 1, `1e20` → 1e+20, `0.000001` → 1e-06; beyond
float64 the text as written); a string that go-yaml would read back as something else (`yes`,
`y`, `1`, `1e3`, `0x1F`, `~`, ``, `<<`, `2001-02-03`, `1:20`) is double-quoted, one with a
newline is a literal block (`|-`) where the emitter allows it, any other is plain where the
emitter allows it (else single-, then double-quoted); map keys in go-yaml's natural order
(`item2` before `item10`, non-letters before letters); lines folded at 80 columns; a scalar at
the root has no `...` end marker. The emitter itself (indentation, folding, quoting analysis) is
PyYAML's port of libyaml, the C library go-yaml's emitter is a port of.

In: plain data (`to_plain`: dicts with str keys, lists, str, int, bool, None, numbers that carry
their text). Out: YAML text. Nothing here raises for such data.
"""

from __future__ import annotations

import datetime
import functools
import re
from typing import Any

import yaml

from cupcake_py.core import yaml_values
from cupcake_py.host.builtins._gofmt import format_float

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_BASE60_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_TIMESTAMP = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d*)?"
                        r"(?:[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$")


class _Dumper(yaml.SafeDumper):
    """Every scalar is a string to the serializer: the style is chosen here, not by PyYAML's
    YAML 1.1 resolvers."""


_Dumper.yaml_implicit_resolvers = {}


def _is_timestamp(s: str) -> bool:
    """go-yaml v2's resolve finds a timestamp (its four layouts, in range)."""
    m = _TIMESTAMP.match(s)
    if m is None:
        return False
    try:
        datetime.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return False
    return m[4] is None or (int(m[4]) < 24 and int(m[5]) < 60 and int(m[6]) < 60)


def _string_style(s: str) -> str | None:
    if "\n" in s:
        return "|"
    tag = yaml_values.go_v2_tag(s)
    if tag == _STR and not _BASE60_FLOAT.match(s) and not _is_timestamp(s):
        return None  # plain, where the emitter allows it
    return '"'


def _number_text(text: str) -> str:
    """A JSON number as go-yaml v2 reads it back and writes it."""
    as_int = yaml_values.go_int(text)
    if as_int is not None:
        return str(as_int)
    f = float(text)
    if f in (float("inf"), float("-inf")):
        return text  # go-yaml reads it as a string, written plain
    return format_float(f, "g", -1)


def _natural_less(a: str, b: str) -> bool:
    """go-yaml v2's keyList.Less for two string keys."""
    ar, br = a, b
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            continue
        al, bl = ar[i].isalpha(), br[i].isalpha()
        if al and bl:
            return ar[i] < br[i]
        if al or bl:
            return bl
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdigit():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdigit():
            an = an * 10 + int(ar[ai])
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdigit():
            bn = bn * 10 + int(br[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


def _key_order(a: str, b: str) -> int:
    return -1 if _natural_less(a, b) else (1 if _natural_less(b, a) else 0)


def _node(v: Any) -> yaml.Node:
    if isinstance(v, dict):
        keys = sorted(v, key=functools.cmp_to_key(_key_order))
        return yaml.MappingNode(_MAP, [(_node(k), _node(v[k])) for k in keys], flow_style=False)
    if isinstance(v, list):
        return yaml.SequenceNode(_SEQ, [_node(x) for x in v], flow_style=False)
    if isinstance(v, str):
        return yaml.ScalarNode(_STR, v, style=_string_style(v))
    if v is None:
        return yaml.ScalarNode(_STR, "null")
    if isinstance(v, bool):
        return yaml.ScalarNode(_STR, "true" if v else "false")
    return yaml.ScalarNode(_STR, _number_text(repr(v) if isinstance(v, float) else str(v)))


def marshal(plain: Any) -> str:
    """The YAML text of `plain`, as go-yaml v2 writes it."""
    text = yaml.serialize(_node(plain), Dumper=_Dumper, allow_unicode=True)
    if not isinstance(plain, dict | list) and text.endswith("\n...\n"):
        text = text[: -len("...\n")]  # go-yaml closes the stream without the end marker
    return text
