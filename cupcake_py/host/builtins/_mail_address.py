"""Whether a string is one address as Go's net/mail.ParseAddress reads it: the `email` and
`idn-email` formats of json.match_schema / json.verify_schema (OPA's gojsonschema fork calls
ParseAddress and accepts the string when it returns no error).

Go's parser (RFC 5322, more permissive in places) accepts: an addr-spec `local@domain`
(local: a dot-atom or a non-empty quoted string; domain: a dot-atom or `[IP]`, a literal net.ParseIP
accepts), optionally followed by a `(comment)` display name; a name-addr `Display Name <addr-spec>`
whose phrase is atoms (dots allowed) and quoted strings; a group `Name: one-address;` holding
exactly one address. Spaces and tabs around the parts and `(comments)` at the end are skipped.
An atom is printable ASCII except the specials ()<>[]:;@\\," (and any non-ASCII character); dots
may not lead, trail or double in an addr-spec. A phrase word that is an RFC 2047 encoded word
with a charset other than utf-8, iso-8859-1 or us-ascii is an error, as in Go.

In: a string. Out: True or False. Never raises.
"""

from __future__ import annotations

import ipaddress

_SPECIALS = frozenset('()<>[]:;@\\,"')
_KNOWN_CHARSETS = frozenset({"utf-8", "iso-8859-1", "us-ascii"})


class _Bad(Exception):
    """Where ParseAddress would return an error."""


def _vchar(c: str) -> bool:
    return "!" <= c <= "~" or ord(c) >= 0x80


def _atext(c: str, dot: bool) -> bool:
    if c == ".":
        return dot
    return c not in _SPECIALS and _vchar(c)


class _Parser:
    def __init__(self, s: str) -> None:
        self.s = s

    def skip_space(self) -> None:
        self.s = self.s.lstrip(" \t")

    def consume(self, c: str) -> bool:
        if self.s[:1] == c:
            self.s = self.s[1:]
            return True
        return False

    def skip_cfws(self) -> bool:
        self.skip_space()
        while self.consume("("):
            if self.comment() is None:
                return False
            self.skip_space()
        return True

    def comment(self) -> str | None:
        """After `(`: the comment text, None when unclosed (nesting and `\\` escapes as Go)."""
        depth, out = 1, []
        while self.s and depth:
            c = self.s[0]
            if c == "\\" and len(self.s) > 1:
                self.s = self.s[1:]
                c = self.s[0]
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            if depth:
                out.append(c)
            self.s = self.s[1:]
        return "".join(out) if depth == 0 else None

    def atom(self, dot: bool, permissive: bool) -> str:
        i = 0
        while i < len(self.s) and _atext(self.s[i], dot):
            i += 1
        if i == 0:
            raise _Bad("invalid string")
        atom, self.s = self.s[:i], self.s[i:]
        if not permissive and (atom.startswith(".") or ".." in atom or atom.endswith(".")):
            raise _Bad("dot in atom")
        return atom

    def quoted(self) -> str:
        i, out, escaped = 1, [], False
        while True:
            if i >= len(self.s):
                raise _Bad("unclosed quoted-string")
            c = self.s[i]
            if escaped:
                if not (_vchar(c) or c in " \t"):
                    raise _Bad("bad character in quoted-string")
                out.append(c)
                escaped = False
            elif c in " \t" or (_vchar(c) and c not in '"\\'):
                out.append(c)
            elif c == '"':
                break
            elif c == "\\":
                escaped = True
            else:
                raise _Bad("bad character in quoted-string")
            i += 1
        self.s = self.s[i + 1:]
        return "".join(out)

    def domain_literal(self) -> str:
        self.consume("[")
        end = self.s.find("]")
        text = self.s if end < 0 else self.s[:end]
        for c in text:
            if c in "[\\" or not _vchar(c):
                raise _Bad("bad character in domain-literal")
        if end < 0:
            raise _Bad("unclosed domain-literal")
        self.s = self.s[end + 1:]
        if "%" in text:  # net.ParseIP takes no zone
            raise _Bad("invalid IP address in domain-literal")
        try:
            ipaddress.ip_address(text)
        except ValueError:
            raise _Bad("invalid IP address in domain-literal") from None
        return f"[{text}]"

    def addr_spec(self) -> str:
        saved = self.s
        try:
            self.skip_space()
            if not self.s:
                raise _Bad("no addr-spec")
            if self.s[0] == '"':
                local = self.quoted()
                if local == "":
                    raise _Bad("empty quoted-string in addr-spec")
            else:
                local = self.atom(True, False)
            if not self.consume("@"):
                raise _Bad("missing @ in addr-spec")
            self.skip_space()
            if not self.s:
                raise _Bad("no domain in addr-spec")
            domain = self.domain_literal() if self.s[0] == "[" else self.atom(True, False)
            return f"{local}@{domain}"
        except _Bad:
            self.s = saved
            raise

    def phrase(self) -> str:
        words: list[str] = []
        while True:
            if words and not self.skip_cfws():
                raise _Bad("misformatted parenthetical comment")
            self.skip_space()
            if not self.s:
                break
            try:
                word = self.quoted() if self.s[0] == '"' else _decode_word(self.atom(True, True))
            except _Bad:
                if not words:
                    raise
                break
            words.append(word)
        return " ".join(words)

    def address(self, group: bool) -> int:
        """How many addresses the next address (or group) holds."""
        self.skip_space()
        if not self.s:
            raise _Bad("no address")
        try:
            self.addr_spec()
        except _Bad:
            pass
        else:
            self.skip_space()
            if self.s[:1] == "(":
                self.consume("(")
                text = self.comment()
                if text is None:
                    raise _Bad("misformatted parenthetical comment")
                for word in text.replace("\t", " ").split():
                    _decode_word(word)
            return 1
        name = self.phrase() if self.s[:1] != "<" else ""
        self.skip_space()
        if group and self.consume(":"):
            return self.group_list()
        if not self.consume("<"):
            raise _Bad("missing '@' or angle-addr" if all(_atext(c, True) for c in name) else "no angle-addr")
        self.addr_spec()
        if not self.consume(">"):
            raise _Bad("unclosed angle-addr")
        return 1

    def group_list(self) -> int:
        self.skip_space()
        if self.consume(";"):
            if not self.skip_cfws():
                raise _Bad("misformatted parenthetical comment")
            return 0
        count = 0
        while True:
            self.skip_space()
            count += self.address(False)
            if not self.skip_cfws():
                raise _Bad("misformatted parenthetical comment")
            if self.consume(";"):
                if not self.skip_cfws():
                    raise _Bad("misformatted parenthetical comment")
                return count
            if not self.consume(","):
                raise _Bad("expected comma")


def _decode_word(word: str) -> str:
    """An RFC 2047 encoded word in a charset Go's mime package cannot read is an error; any
    other word (also a malformed encoded word) is kept as written."""
    if len(word) >= 8 and word.startswith("=?") and word.endswith("?=") and word.count("?") == 4:
        charset, enc, text = word[2:-2].split("?")
        if charset and enc in ("B", "b", "Q", "q") and _content_ok(enc.upper(), text) \
                and charset.lower() not in _KNOWN_CHARSETS:
            raise _Bad(f"charset not supported: {charset!r}")
    return word


def _content_ok(enc: str, text: str) -> bool:
    """Go's mime decode of the encoded text succeeds (base64 with padding; Q escapes)."""
    if enc == "B":
        import base64
        import binascii

        try:
            base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            return False
        return True
    i = 0
    while i < len(text):
        c = text[i]
        if c == "=":
            if len(text) < i + 3 or not all(h in "0123456789abcdefABCDEF" for h in text[i + 1:i + 3]):
                return False
            i += 3
            continue
        if not (" " <= c <= "~" or c in "\r\n\t"):
            return False
        i += 1
    return True


def is_address(s: str) -> bool:
    """Whether Go's mail.ParseAddress(s) returns no error."""
    p = _Parser(s)
    try:
        count = p.address(True)
        if not p.skip_cfws() or p.s:
            return False
    except _Bad:
        return False
    return count == 1
