/* strbuf.c: UTF-8 helpers and the growable string builder. */
#include "opa.h"

/* ---------------- UTF-8 (Go's utf8.DecodeRune rules) ---------------- */

uint32_t opa_utf8_decode(const char *str, size_t len, size_t *size) {
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0) { *size = 0; return OPA_UTF8_REPLACEMENT; }
    unsigned char c = s[0];
    *size = 1;
    if (c < 0x80) return c;
    uint32_t need, cp, min;
    if (c >= 0xC2 && c <= 0xDF) { need = 1; cp = c & 0x1Fu; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; cp = c & 0x0Fu; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; cp = c & 0x07u; min = 0x10000; }
    else return OPA_UTF8_REPLACEMENT;
    if (len < need + 1) return OPA_UTF8_REPLACEMENT;
    for (uint32_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return OPA_UTF8_REPLACEMENT;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return OPA_UTF8_REPLACEMENT;
    *size = need + 1;
    return cp;
}

size_t opa_utf8_encode(uint32_t cp, char *out) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = OPA_UTF8_REPLACEMENT;
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t opa_utf8_count(const char *s, size_t len) {
    size_t n = 0, i = 0, sz;
    while (i < len) {
        if ((unsigned char)s[i] < 0x80) { i++; n++; continue; }
        opa_utf8_decode(s + i, len - i, &sz);
        i += sz;
        n++;
    }
    return n;
}

int opa_utf8_valid(const char *s, size_t len) {
    size_t i = 0, sz;
    while (i < len) {
        if ((unsigned char)s[i] < 0x80) { i++; continue; }
        if (opa_utf8_decode(s + i, len - i, &sz) == OPA_UTF8_REPLACEMENT && sz == 1) {
            /* a genuine U+FFFD is 3 bytes; size 1 means invalid */
            return 0;
        }
        i += sz;
    }
    return 1;
}

size_t opa_utf8_offset(const char *s, size_t len, size_t idx) {
    size_t i = 0, sz;
    while (idx > 0 && i < len) {
        opa_utf8_decode(s + i, len - i, &sz);
        i += sz;
        idx--;
    }
    return i;
}

/* ---------------- string builder ---------------- */

void opa_strbuf_init(opa_strbuf *sb, size_t cap) {
    sb->cap = cap ? cap : 16;
    sb->buf = opa_malloc(sb->cap);
    sb->len = 0;
}

void opa_strbuf_reserve(opa_strbuf *sb, size_t extra) {
    if (sb->len + extra <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 16;
    while (cap < sb->len + extra) cap *= 2;
    sb->buf = opa_realloc(sb->buf, cap);
    sb->cap = cap;
}

void opa_strbuf_append(opa_strbuf *sb, const char *s, size_t n) {
    opa_strbuf_reserve(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
}

void opa_strbuf_append_cstr(opa_strbuf *sb, const char *s) { opa_strbuf_append(sb, s, strlen(s)); }

void opa_strbuf_putc(opa_strbuf *sb, char c) {
    if (sb->len == sb->cap) opa_strbuf_reserve(sb, 1);
    sb->buf[sb->len++] = c;
}

void opa_strbuf_append_uint(opa_strbuf *sb, uint64_t v) {
    char tmp[20];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    opa_strbuf_reserve(sb, (size_t)n);
    while (n) sb->buf[sb->len++] = tmp[--n];
}

void opa_strbuf_append_int(opa_strbuf *sb, int64_t v) {
    if (v < 0) {
        opa_strbuf_putc(sb, '-');
        opa_strbuf_append_uint(sb, (uint64_t)0 - (uint64_t)v);
    } else {
        opa_strbuf_append_uint(sb, (uint64_t)v);
    }
}

void opa_strbuf_append_rune(opa_strbuf *sb, uint32_t cp) {
    char tmp[4];
    opa_strbuf_append(sb, tmp, opa_utf8_encode(cp, tmp));
}

static const char HEX[] = "0123456789abcdef";

static void append_u4(opa_strbuf *sb, uint32_t c) {
    char e[6] = {'\\', 'u', HEX[(c >> 12) & 15], HEX[(c >> 8) & 15], HEX[(c >> 4) & 15], HEX[c & 15]};
    opa_strbuf_append(sb, e, 6);
}

/* html: escape < > & (JSON, like Go's json.Marshal); Rego text keeps them. */
void opa_strbuf_append_quoted(opa_strbuf *sb, const char *s, size_t n, int html) {
    opa_strbuf_reserve(sb, n + 2);
    opa_strbuf_putc(sb, '"');
    size_t i = 0, start = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&'))) {
            i++;
            continue;
        }
        size_t sz = 1;
        uint32_t cp = c;
        if (c >= 0x80) {
            cp = opa_utf8_decode(s + i, n - i, &sz);
            int bad = cp == OPA_UTF8_REPLACEMENT && sz == 1;
            if (!bad && cp != 0x2028 && cp != 0x2029) { i += sz; continue; }
        }
        opa_strbuf_append(sb, s + start, i - start);
        switch (c) {
        case '"': opa_strbuf_append(sb, "\\\"", 2); break;
        case '\\': opa_strbuf_append(sb, "\\\\", 2); break;
        case '\n': opa_strbuf_append(sb, "\\n", 2); break;
        case '\r': opa_strbuf_append(sb, "\\r", 2); break;
        case '\t': opa_strbuf_append(sb, "\\t", 2); break;
        case '\b': opa_strbuf_append(sb, "\\b", 2); break;
        case '\f': opa_strbuf_append(sb, "\\f", 2); break;
        default: append_u4(sb, cp); break;
        }
        i += sz;
        start = i;
    }
    opa_strbuf_append(sb, s + start, i - start);
    opa_strbuf_putc(sb, '"');
}

void opa_strbuf_append_json_string(opa_strbuf *sb, const char *s, size_t n) {
    opa_strbuf_append_quoted(sb, s, n, 1);
}

opa_value *opa_strbuf_to_string(opa_strbuf *sb) {
    opa_value *v = opa_string_allocated(sb->buf, sb->len);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return v;
}

char *opa_strbuf_to_cstr(opa_strbuf *sb) {
    opa_strbuf_putc(sb, '\0');
    char *r = sb->buf;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return r;
}

void opa_strbuf_free(opa_strbuf *sb) {
    opa_free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}
