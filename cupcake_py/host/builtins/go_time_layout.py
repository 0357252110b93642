"""Go reference-time layouts (``2006-01-02T15:04:05Z07:00``): formatting and parsing with ns precision."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

NS = 1_000_000_000
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

NAMED_LAYOUTS = {
    "Layout": "01/02 03:04:05PM '06 -0700",
    "ANSIC": "Mon Jan _2 15:04:05 2006",
    "UnixDate": "Mon Jan _2 15:04:05 MST 2006",
    "RubyDate": "Mon Jan 02 15:04:05 -0700 2006",
    "RFC822": "02 Jan 06 15:04 MST",
    "RFC822Z": "02 Jan 06 15:04 -0700",
    "RFC850": "Monday, 02-Jan-06 15:04:05 MST",
    "RFC1123": "Mon, 02 Jan 2006 15:04:05 MST",
    "RFC1123Z": "Mon, 02 Jan 2006 15:04:05 -0700",
    "RFC3339": "2006-01-02T15:04:05Z07:00",
    "RFC3339Nano": "2006-01-02T15:04:05.999999999Z07:00",
    "Kitchen": "3:04PM",
    "Stamp": "Jan _2 15:04:05",
    "StampMilli": "Jan _2 15:04:05.000",
    "StampMicro": "Jan _2 15:04:05.000000",
    "StampNano": "Jan _2 15:04:05.000000000",
    "DateTime": "2006-01-02 15:04:05",
    "DateOnly": "2006-01-02",
    "TimeOnly": "15:04:05",
}


class LayoutError(Exception):
    pass


# ------------------------------------------------------------------ calendar


def days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def days_in(m: int, y: int) -> int:
    return 29 if m == 2 and is_leap(y) else [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]


@dataclass(frozen=True, slots=True)
class Civil:
    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    nsec: int
    weekday: int  # 0 = Sunday
    yday: int  # 1-based
    offset: int  # seconds east of UTC
    abbrev: str


# ---------------------------------------------------------------- time zones


@lru_cache(maxsize=128)
def load_zone(name: str) -> _dt.tzinfo:
    if name in ("", "UTC"):
        return _dt.UTC
    if name == "Local":
        local = _dt.datetime.now().astimezone().tzinfo
        return local if local is not None else _dt.UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise LayoutError(f"unknown time zone {name}") from None


def _zone_at(tz: _dt.tzinfo, unix: int) -> tuple[int, str]:
    if tz is _dt.UTC:
        return 0, "UTC"
    clamped = max(min(unix, 253402300799), -62135596800)
    local = _dt.datetime.fromtimestamp(clamped, _dt.UTC).astimezone(tz)
    off = local.utcoffset() or _dt.timedelta(0)
    return int(off.total_seconds()), local.tzname() or ""


def civil(ns: int, tz: _dt.tzinfo = _dt.UTC) -> Civil:
    unix, nsec = divmod(ns, NS)
    offset, abbrev = _zone_at(tz, unix)
    days, secs = divmod(unix + offset, 86400)
    y, m, d = civil_from_days(days)
    return Civil(y, m, d, secs // 3600, secs // 60 % 60, secs % 60, nsec, (days + 4) % 7,
                 days - days_from_civil(y, 1, 1) + 1, offset, abbrev)  # fmt: skip


# -------------------------------------------------------------- layout chunks

# Chunk kinds
(LONG_MONTH, MONTH, NUM_MONTH, ZERO_MONTH, LONG_WEEKDAY, WEEKDAY, DAY, UNDER_DAY, ZERO_DAY,
 UNDER_YDAY, ZERO_YDAY, HOUR, HOUR12, ZERO_HOUR12, MINUTE, ZERO_MINUTE, SECOND, ZERO_SECOND,
 LONG_YEAR, YEAR, PM_UP, PM_LOW, TZ, ISO_TZ, ISO_SEC_TZ, ISO_SHORT_TZ, ISO_COLON_TZ, ISO_COLON_SEC_TZ,
 NUM_TZ, NUM_SEC_TZ, NUM_SHORT_TZ, NUM_COLON_TZ, NUM_COLON_SEC_TZ, FRAC0, FRAC9) = range(35)  # fmt: skip

_ZERO_X = {"1": ZERO_MONTH, "2": ZERO_DAY, "3": ZERO_HOUR12, "4": ZERO_MINUTE, "5": ZERO_SECOND, "6": YEAR}
_TZ_FORMS = [("070000", 1), ("07:00:00", 4), ("0700", 0), ("07:00", 3), ("07", 2)]
_ISO = [ISO_TZ, ISO_SEC_TZ, ISO_SHORT_TZ, ISO_COLON_TZ, ISO_COLON_SEC_TZ]
_NUM = [NUM_TZ, NUM_SEC_TZ, NUM_SHORT_TZ, NUM_COLON_TZ, NUM_COLON_SEC_TZ]


@dataclass(frozen=True, slots=True)
class Chunk:
    kind: int
    digits: int = 0  # FRAC*: number of digits
    sep: str = "."  # FRAC*: separator


def _lower_start(s: str) -> bool:
    return bool(s) and "a" <= s[0] <= "z"


def next_chunk(layout: str) -> tuple[str, Chunk | None, str]:
    """Split ``layout`` into (literal prefix, first std chunk, rest), like Go's nextStdChunk."""
    n = len(layout)
    for i, c in enumerate(layout):
        rest = layout[i:]
        if c == "J" and rest.startswith("Jan"):
            if rest.startswith("January"):
                return layout[:i], Chunk(LONG_MONTH), layout[i + 7 :]
            if not _lower_start(layout[i + 3 :]):
                return layout[:i], Chunk(MONTH), layout[i + 3 :]
        elif c == "M" and n >= i + 3:
            if rest.startswith("Mon"):
                if rest.startswith("Monday"):
                    return layout[:i], Chunk(LONG_WEEKDAY), layout[i + 6 :]
                if not _lower_start(layout[i + 3 :]):
                    return layout[:i], Chunk(WEEKDAY), layout[i + 3 :]
            if rest.startswith("MST"):
                return layout[:i], Chunk(TZ), layout[i + 3 :]
        elif c == "0":
            if n >= i + 2 and "1" <= layout[i + 1] <= "6":
                return layout[:i], Chunk(_ZERO_X[layout[i + 1]]), layout[i + 2 :]
            if rest.startswith("002"):
                return layout[:i], Chunk(ZERO_YDAY), layout[i + 3 :]
        elif c == "1":
            if rest.startswith("15"):
                return layout[:i], Chunk(HOUR), layout[i + 2 :]
            return layout[:i], Chunk(NUM_MONTH), layout[i + 1 :]
        elif c == "2":
            if rest.startswith("2006"):
                return layout[:i], Chunk(LONG_YEAR), layout[i + 4 :]
            return layout[:i], Chunk(DAY), layout[i + 1 :]
        elif c == "_":
            if rest.startswith("_2"):
                if rest.startswith("_2006"):
                    return layout[: i + 1], Chunk(LONG_YEAR), layout[i + 5 :]
                return layout[:i], Chunk(UNDER_DAY), layout[i + 2 :]
            if rest.startswith("__2"):
                return layout[:i], Chunk(UNDER_YDAY), layout[i + 3 :]
        elif c in "345":
            return layout[:i], Chunk({"3": HOUR12, "4": MINUTE, "5": SECOND}[c]), layout[i + 1 :]
        elif c == "P" and rest.startswith("PM"):
            return layout[:i], Chunk(PM_UP), layout[i + 2 :]
        elif c == "p" and rest.startswith("pm"):
            return layout[:i], Chunk(PM_LOW), layout[i + 2 :]
        elif c in "-Z":
            kinds = _NUM if c == "-" else _ISO
            for form, k in _TZ_FORMS:
                if rest[1:].startswith(form):
                    return layout[:i], Chunk(kinds[k]), layout[i + 1 + len(form) :]
        elif c in ".," and i + 1 < n and layout[i + 1] in "09":
            ch = layout[i + 1]
            j = i + 1
            while j < n and layout[j] == ch:
                j += 1
            if not (j < n and layout[j].isdigit()):
                return layout[:i], Chunk(FRAC0 if ch == "0" else FRAC9, j - i - 1, c), layout[j:]
    return layout, None, ""


@lru_cache(maxsize=256)
def compile_layout(layout: str) -> tuple[tuple[str, Chunk | None], ...]:
    out = []
    while layout:
        lit, chunk, layout = next_chunk(layout)
        out.append((lit, chunk))
    return tuple(out)


# ------------------------------------------------------------------ format


def _tz_num(offset: int, kind: int, iso: bool) -> str:
    if iso and offset == 0:
        return "Z"
    sign = "-" if offset < 0 else "+"
    z = abs(offset)
    hh, mm, ss = z // 3600, z // 60 % 60, z % 60
    k = (_ISO if iso else _NUM).index(kind)
    if k == 2:  # short
        return f"{sign}{hh:02d}"
    if k in (3, 4):  # colon
        s = f"{sign}{hh:02d}:{mm:02d}"
        return s + (f":{ss:02d}" if k == 4 else "")
    return f"{sign}{hh:02d}{mm:02d}" + (f"{ss:02d}" if k == 1 else "")


def format_civil(c: Civil, layout: str) -> str:
    out: list[str] = []
    for lit, ch in compile_layout(layout):
        out.append(lit)
        if ch is None:
            continue
        k = ch.kind
        if k == YEAR:
            out.append(f"{c.year % 100:02d}")
        elif k == LONG_YEAR:
            out.append(f"{c.year:04d}" if c.year >= 0 else f"-{-c.year:04d}")
        elif k == MONTH:
            out.append(MONTHS[c.month - 1][:3])
        elif k == LONG_MONTH:
            out.append(MONTHS[c.month - 1])
        elif k == NUM_MONTH:
            out.append(str(c.month))
        elif k == ZERO_MONTH:
            out.append(f"{c.month:02d}")
        elif k == WEEKDAY:
            out.append(DAYS[c.weekday][:3])
        elif k == LONG_WEEKDAY:
            out.append(DAYS[c.weekday])
        elif k == DAY:
            out.append(str(c.day))
        elif k == UNDER_DAY:
            out.append(f"{c.day:2d}")
        elif k == ZERO_DAY:
            out.append(f"{c.day:02d}")
        elif k == UNDER_YDAY:
            out.append(f"{c.yday:3d}")
        elif k == ZERO_YDAY:
            out.append(f"{c.yday:03d}")
        elif k == HOUR:
            out.append(f"{c.hour:02d}")
        elif k in (HOUR12, ZERO_HOUR12):
            h = c.hour % 12 or 12
            out.append(str(h) if k == HOUR12 else f"{h:02d}")
        elif k == MINUTE:
            out.append(str(c.minute))
        elif k == ZERO_MINUTE:
            out.append(f"{c.minute:02d}")
        elif k == SECOND:
            out.append(str(c.second))
        elif k == ZERO_SECOND:
            out.append(f"{c.second:02d}")
        elif k in (PM_UP, PM_LOW):
            s = "PM" if c.hour >= 12 else "AM"
            out.append(s if k == PM_UP else s.lower())
        elif k in _ISO or k in _NUM:
            out.append(_tz_num(c.offset, k, k in _ISO))
        elif k == TZ:
            if c.abbrev:
                out.append(c.abbrev)
            else:
                z = abs(c.offset) // 60
                out.append(f"{'-' if c.offset < 0 else '+'}{z // 60:02d}{z % 60:02d}")
        elif k == FRAC0:
            out.append(ch.sep + f"{c.nsec:09d}"[: ch.digits])
        elif k == FRAC9:
            digits = f"{c.nsec:09d}"[: ch.digits].rstrip("0")
            if digits:
                out.append(ch.sep + digits)
    return "".join(out)


# ------------------------------------------------------------------- parse


class _Bad(Exception):
    pass


def _go_q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cutspace(s: str) -> str:
    return s.lstrip(" ")


def _skip(value: str, prefix: str) -> str:
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                raise _Bad
            prefix, value = _cutspace(prefix), _cutspace(value)
            continue
        if not value or value[0] != prefix[0]:
            raise _Bad
        prefix, value = prefix[1:], value[1:]
    return value


def _getnum(s: str, fixed: bool) -> tuple[int, str]:
    if not s or not s[0].isdigit() or not s[0].isascii():
        raise _Bad
    if len(s) < 2 or not (s[1].isdigit() and s[1].isascii()):
        if fixed:
            raise _Bad
        return int(s[0]), s[1:]
    return int(s[:2]), s[2:]


def _lookup(tab: list[str], s: str) -> tuple[int, str]:
    for i, name in enumerate(tab):
        if len(s) >= len(name) and s[: len(name)].lower() == name.lower():
            return i, s[len(name) :]
    raise _Bad


def _nanos(value: str, nbytes: int) -> int:
    if value[0] not in ".,":
        raise _Bad
    digits = value[1:nbytes]
    if not digits.isdigit() or not digits.isascii():
        raise _Bad
    if len(digits) > 9:
        digits = digits[:9]
    return int(digits.ljust(9, "0"))


def _tz_abbrev_len(value: str) -> int:
    """Length of a zone abbreviation at the start of value (Go's parseTimeZone), 0 if none."""
    if len(value) < 3:
        return 0
    if value[:4] in ("ChST", "MeST"):
        return 4
    if value.startswith("GMT"):
        rest = value[3:]
        j = 1
        while j < len(rest) and rest[j].isdigit():
            j += 1
        return 3 + j if rest[:1] in ("+", "-") and j > 1 and int(rest[1:j]) <= 23 else 3
    if value[0] in "+-":
        j = 1
        while j < len(value) and value[j].isdigit():
            j += 1
        return j if j > 1 and int(value[1:j]) <= 12 else 0
    n = 0
    while n < 6 and n < len(value) and "A" <= value[n] <= "Z":
        n += 1
    if n == 3:
        return 3
    if n == 4 and (value[3] == "T" or value[:4] == "WITA"):
        return 4
    if n == 5 and value[4] == "T":
        return 5
    return 0


def parse(layout: str, value: str, default_tz: _dt.tzinfo = _dt.UTC) -> int:
    """Go's time.Parse: returns ns since the epoch (UTC unless the value carries a zone)."""
    alayout, avalue = layout, value
    year, month, day, yday = 1, -1, -1, -1
    hour = minute = sec = nsec = 0
    pm_set = am_set = False
    offset: int | None = None
    range_err = ""
    chunks = compile_layout(layout)
    for idx, (lit, ch) in enumerate(chunks):
        try:
            value = _skip(value, lit)
        except _Bad:
            raise LayoutError(
                f"parsing time {_go_q(avalue)} as {_go_q(alayout)}: cannot parse {_go_q(value)} as {_go_q(lit)}"
            ) from None
        if ch is None:
            continue
        hold = value
        k = ch.kind
        try:
            if k == YEAR:
                if len(value) < 2 or not value[:2].isdigit():
                    raise _Bad
                year, value = int(value[:2]), value[2:]
                year += 1900 if year >= 69 else 2000
            elif k == LONG_YEAR:
                if len(value) < 4 or not value[:4].isdigit() or not value[:4].isascii():
                    raise _Bad
                year, value = int(value[:4]), value[4:]
            elif k in (MONTH, LONG_MONTH):
                tab = [m[:3] for m in MONTHS] if k == MONTH else MONTHS
                month, value = _lookup(tab, value)
                month += 1
            elif k in (NUM_MONTH, ZERO_MONTH):
                month, value = _getnum(value, k == ZERO_MONTH)
                if not 0 < month <= 12:
                    range_err = "month"
            elif k in (WEEKDAY, LONG_WEEKDAY):
                _, value = _lookup([d[:3] for d in DAYS] if k == WEEKDAY else DAYS, value)
            elif k in (DAY, UNDER_DAY, ZERO_DAY):
                if k == UNDER_DAY and value.startswith(" "):
                    value = value[1:]
                day, value = _getnum(value, k == ZERO_DAY)
            elif k in (UNDER_YDAY, ZERO_YDAY):
                for _ in range(2):
                    if k == UNDER_YDAY and value.startswith(" "):
                        value = value[1:]
                if len(value) < 3 and k == ZERO_YDAY:
                    raise _Bad
                j = 0
                while j < 3 and j < len(value) and value[j].isdigit():
                    j += 1
                if j == 0 or (k == ZERO_YDAY and j != 3):
                    raise _Bad
                yday, value = int(value[:j]), value[j:]
                if not 1 <= yday <= 366:
                    range_err = "day-of-year"
            elif k == HOUR:
                hour, value = _getnum(value, False)
                if not 0 <= hour < 24:
                    range_err = "hour"
            elif k in (HOUR12, ZERO_HOUR12):
                hour, value = _getnum(value, k == ZERO_HOUR12)
                if not 0 <= hour <= 12:
                    range_err = "hour"
            elif k in (MINUTE, ZERO_MINUTE):
                minute, value = _getnum(value, k == ZERO_MINUTE)
                if not 0 <= minute < 60:
                    range_err = "minute"
            elif k in (SECOND, ZERO_SECOND):
                sec, value = _getnum(value, k == ZERO_SECOND)
                if not 0 <= sec < 60:
                    range_err = "second"
                elif len(value) >= 2 and value[0] in ".," and value[1].isdigit():
                    nxt = chunks[idx + 1][1] if idx + 1 < len(chunks) else None
                    if not (nxt is not None and nxt.kind in (FRAC0, FRAC9)):
                        n = 2
                        while n < len(value) and value[n].isdigit():
                            n += 1
                        nsec, value = _nanos(value, n), value[n:]
            elif k in (PM_UP, PM_LOW):
                if len(value) < 2:
                    raise _Bad
                p, value = value[:2], value[2:]
                want = ("PM", "AM") if k == PM_UP else ("pm", "am")
                if p == want[0]:
                    pm_set = True
                elif p == want[1]:
                    am_set = True
                else:
                    raise _Bad
            elif k in _ISO or k in _NUM:
                if k in _ISO and value.startswith("Z"):
                    value, offset = value[1:], 0
                    continue
                form = (_ISO if k in _ISO else _NUM).index(k)
                need = {0: 5, 1: 7, 2: 3, 3: 6, 4: 9}[form]
                if len(value) < need or value[0] not in "+-":
                    raise _Bad
                body = value[1:need]
                if form in (3, 4):
                    if body[2] != ":" or (form == 4 and body[5] != ":"):
                        raise _Bad
                    body = body.replace(":", "")
                if not body.isdigit():
                    raise _Bad
                hh, mm = int(body[:2]), int(body[2:4] or 0)
                ss = int(body[4:6] or 0)
                if hh > 24 or mm > 60 or ss > 60:
                    range_err = "time zone offset"
                off = hh * 3600 + mm * 60 + ss
                offset, value = (-off if value[0] == "-" else off), value[need:]
            elif k == TZ:
                if value.startswith("UTC"):
                    value, offset = value[3:], 0
                    continue
                n = _tz_abbrev_len(value)
                if n == 0:
                    raise _Bad
                # Go keeps the civil time as UTC and only labels it with the abbreviation.
                value, offset = value[n:], 0
            elif k == FRAC0:
                nd = 1 + ch.digits
                if len(value) < nd:
                    raise _Bad
                nsec, value = _nanos(value, nd), value[nd:]
            elif k == FRAC9:
                if len(value) < 2 or value[0] not in ".," or not value[1].isdigit():
                    continue
                i = 0
                while i + 1 < len(value) and value[i + 1].isdigit():
                    i += 1
                nsec, value = _nanos(value, 1 + i), value[1 + i :]
        except (_Bad, ValueError):
            elem = _chunk_text(alayout, idx)
            raise LayoutError(
                f"parsing time {_go_q(avalue)} as {_go_q(alayout)}: cannot parse {_go_q(hold)} as {_go_q(elem)}"
            ) from None
        if range_err:
            raise LayoutError(f"parsing time {_go_q(avalue)}: {range_err} out of range")
    if value:
        raise LayoutError(f"parsing time {_go_q(avalue)}: extra text: {_go_q(value)}")
    if pm_set and hour < 12:
        hour += 12
    elif am_set and hour == 12:
        hour = 0
    if yday >= 0:
        if month < 0 and day < 0:
            d0 = days_from_civil(year, 1, 1) + yday - 1
            y2, month, day = civil_from_days(d0)
            if y2 != year:
                raise LayoutError(f"parsing time {_go_q(avalue)}: day-of-year out of range")
        else:
            if month < 0:
                month = 1
            if days_from_civil(year, month, max(day, 1)) - days_from_civil(year, 1, 1) + 1 != yday:
                raise LayoutError(f"parsing time {_go_q(avalue)}: day-of-year does not match month")
    if month < 0:
        month = 1
    if day < 0:
        day = 1
    if day < 1 or day > days_in(month, year):
        raise LayoutError(f"parsing time {_go_q(avalue)}: day out of range")
    local_secs = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec
    if offset is None:
        offset = _offset_for_local(default_tz, local_secs)
    return (local_secs - offset) * NS + nsec


def _offset_for_local(tz: _dt.tzinfo, local_secs: int) -> int:
    if tz is _dt.UTC:
        return 0
    off, _ = _zone_at(tz, local_secs)
    off2, _ = _zone_at(tz, local_secs - off)
    return off2


def _chunk_text(layout: str, idx: int) -> str:
    """The layout text of chunk number ``idx`` (for Go's 'cannot parse X as Y' message)."""
    rest = layout
    for _ in range(idx):
        lit, _ch, rest = next_chunk(rest)
    lit, ch, after = next_chunk(rest)
    return rest[len(lit) : len(rest) - len(after)]
