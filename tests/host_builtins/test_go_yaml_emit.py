"""yaml.marshal as go-yaml v2 writes the value (the cases in tests/compliance/cases/
builtin_corners.json run it through Rego): what it writes reads back as the same value
under go-yaml v2's rules, and keys come in go-yaml's natural order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core import yaml_values
from cupcake_py.host.builtins._go_yaml_emit import _natural_less, marshal

_TEXT = st.one_of(st.text(alphabet="ab yYnN01:-.~<#'\"\n\té", max_size=12),
                  st.sampled_from(["true", "null", "0x1F", "1e3", "2001-02-03", "1:20", "<<", "", "-", "? a"]))
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), _TEXT)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(_TEXT, inner, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_what_is_written_reads_back(value: object) -> None:
    assert yaml_values.load(marshal(value)) == value


def test_natural_key_order() -> None:
    keys = ["item10", "item2", "a_", "aZ", "B", "a", "x01", "x1", "10", "9"]
    ordered = sorted(keys, key=lambda k: sum(_natural_less(o, k) for o in keys))
    assert ordered == ["9", "10", "B", "a", "a_", "aZ", "item2", "item10", "x1", "x01"]
