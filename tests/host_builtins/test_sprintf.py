"""sprintf = Go's fmt.Sprintf on OPA's argument conversion."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.host_builtins.calls import call, fails

CASES = [
    ("%d", [42], "42"),
    ("%5d|%-5d|%05d|%+d|% d", [42, 42, 42, 42, 42], "   42|42   |00042|+42| 42"),
    ("%x %X %o %O %b %#x %#o %#b", [255, 255, 8, 8, 5, 255, 8, 5], "ff FF 10 0o10 101 0xff 010 0b101"),
    ("%c %q %U %#U", [65, 65, 0x1F600, 65], "A 'A' U+1F600 U+0041 'A'"),
    ("%.3d|%.0d|%8.3d", [7, 0, -7], "007||    -007"),
    ("%s", [123456789123456789123], "123456789123456789123"),  # big ints are *big.Int
    (
        "%x|%08d|%+d",
        [2**70, 2**70, 2**70],
        "400000000000000000|1180591620717411303424|+1180591620717411303424",
    ),
    ("%s", [1], "%!s(int=1)"),
    (
        "%f|%.2f|%8.3f|%-8.1f|%+.1e",
        [D("3.5"), D("3.14159"), D("-3.14159"), D("2.5"), D("12345.678")],
        "3.500000|3.14|  -3.142|2.5     |+1.2e+04",
    ),
    (
        "%v|%v|%v|%v|%v",
        [D("1e6"), D("123456.0"), D("0.0001"), D("0.00001"), D("1.5")],
        "1e+06|123456|0.0001|1e-05|1.5",
    ),
    (
        "%g|%G|%.3g|%e|%E",
        [D("1e21"), D("1e-7"), D("1234.5678"), D("0.5"), D("0.5")],
        "1e+21|1E-07|1.23e+03|5.000000e-01|5.000000E-01",
    ),
    ("%#g|%#.3x", [D("1.0"), D("1.0")], "1.00000|0x1.000p+00"),
    ("%x|%b", [D("1.5"), D("1.0")], "0x1.8p+00|4503599627370496p-52"),
    ("%08.3f|%+08.2f", [D("-3.14159"), D("3.14159")], "-003.142|+0003.14"),
    ("%d", [D("1.5")], "%!d(float64=1.5)"),
    (
        "%s|%q|%x|%X|% x|%.2s|%5.1s|%-4s|",
        ["hi", 'a"b', "hi", "hi", "hi", "hello", "xyz", "ab"],
        'hi|"a\\"b"|6869|6869|68 69|he|    x|ab  |',
    ),
    ("%#q|%+q", ["a`b", "é"], '"a`b"|"\\u00e9"'),
    ("%#q", ["ab"], "`ab`"),
    ("%d", ["x"], "%!d(string=x)"),
    ("%t", [True], "%!t(string=true)"),  # OPA passes booleans as their text
    ("%v %v %v", [None, [1, "a", D("2.5")], frozenset({2, 1})], 'null [1, "a", 2.5] {1, 2}'),
    ("%v|%v", [{"b": 1, "a": frozenset()}, frozenset()], '{"a": set(), "b": 1}|set()'),
    ("%T %T %T %T", [1, 2**80, D("1.5"), "s"], "int *big.Int float64 string"),
    ("%d %d", [1], "1 %!d(MISSING)"),
    ("%d", [1, "x", D("2.5")], "1%!(EXTRA string=x, float64=2.5)"),
    ("100%%", [], "100%"),
    ("%", [], "%!(NOVERB)"),
    ("%!", [], "%!!(MISSING)"),
    ("%z", [1], "%!z(int=1)"),
    ("%[2]d %[1]d", [1, 2], "2 1"),
    ("%[3]d", [1, 2], "%!d(BADINDEX)"),
    ("%*d|%-*d|%.*f", [5, 1, 3, 1, 2, D("3.14159")], "    1|1  |3.14"),
    ("%*d", ["x", 1], "%!(BADWIDTH)1"),
    ("%5t", [3], "%!t(int=    3)"),
    ("%+v", [5], "5"),  # %+v: plus only affects structs
    ("héllo %s", ["wörld"], "héllo wörld"),
]


@pytest.mark.parametrize(("fmt", "args", "want"), CASES)
def test_sprintf(fmt: str, args: list[object], want: str) -> None:
    assert call("sprintf", fmt, args) == want


def test_sprintf_operand_errors() -> None:
    fails("sprintf", 1, [], match="operand 1 must be string but got number")
    fails("sprintf", "%d", "x", match="operand 2 must be array but got string")
