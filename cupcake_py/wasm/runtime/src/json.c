/* json.c: JSON and Rego-literal parsing and dumping (opa_json_parse,
 * opa_value_parse, opa_json_dump, opa_value_dump). Formats: see opa.h. */
#include "internal.h"

typedef struct {
    const char *s;
    size_t len, pos;
    int rego;
    int depth;
} parser;

static opa_value *parse_value(parser *p);

static void skip_ws(parser *p) {
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static int peek(parser *p) { return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1; }

static int literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return 0;
    p->pos += n;
    return 1;
}

static int hex4(parser *p, uint32_t *out) {
    if (p->len - p->pos < 4) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static opa_value *parse_string(parser *p) {
    size_t start = ++p->pos, i = start;
    /* fast path: no escapes */
    while (i < p->len && p->s[i] != '"' && p->s[i] != '\\' && (unsigned char)p->s[i] >= 0x20) i++;
    if (i < p->len && p->s[i] == '"') {
        p->pos = i + 1;
        return opa_string(p->s + start, i - start);
    }
    opa_strbuf sb;
    opa_strbuf_init(&sb, i - start + 16);
    opa_strbuf_append(&sb, p->s + start, i - start);
    p->pos = i;
    while (p->pos < p->len) {
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"') return opa_strbuf_to_string(&sb);
        if (c < 0x20) break;
        if (c != '\\') { opa_strbuf_putc(&sb, (char)c); continue; }
        if (p->pos >= p->len) break;
        char e = p->s[p->pos++];
        uint32_t cp;
        switch (e) {
        case '"': opa_strbuf_putc(&sb, '"'); continue;
        case '\\': opa_strbuf_putc(&sb, '\\'); continue;
        case '/': opa_strbuf_putc(&sb, '/'); continue;
        case 'b': opa_strbuf_putc(&sb, '\b'); continue;
        case 'f': opa_strbuf_putc(&sb, '\f'); continue;
        case 'n': opa_strbuf_putc(&sb, '\n'); continue;
        case 'r': opa_strbuf_putc(&sb, '\r'); continue;
        case 't': opa_strbuf_putc(&sb, '\t'); continue;
        case 'u':
            if (!hex4(p, &cp)) goto fail;
            if (cp >= 0xD800 && cp < 0xDC00 && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
                p->s[p->pos + 1] == 'u') {
                size_t save = p->pos;
                uint32_t lo;
                p->pos += 2;
                if (hex4(p, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    p->pos = save; /* lone high surrogate */
                }
            }
            opa_strbuf_append_rune(&sb, cp); /* lone surrogates become U+FFFD */
            continue;
        default: goto fail;
        }
    }
fail:
    opa_strbuf_free(&sb);
    return NULL;
}

static opa_value *parse_raw_string(parser *p) {
    size_t start = ++p->pos;
    while (p->pos < p->len && p->s[p->pos] != '`') p->pos++;
    if (p->pos >= p->len) return NULL;
    return opa_string(p->s + start, p->pos++ - start);
}

static opa_value *parse_number(parser *p) {
    size_t start = p->pos;
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) break;
        p->pos++;
    }
    const char *s = p->s + start;
    size_t n = p->pos - start;
    /* JSON forbids leading zeros ("01", "-01"); opa_number_parse checks the rest. */
    size_t d = n && s[0] == '-' ? 1 : 0;
    if (n > d + 1 && s[d] == '0' && s[d + 1] >= '0' && s[d + 1] <= '9') return NULL;
    return opa_number_parse(s, n);
}

/* After an element: ',' (then maybe a trailing ',' before close in Rego
 * mode) or close. Returns 1 = more, 0 = closed, -1 = error. */
static int next_elem(parser *p, char close) {
    skip_ws(p);
    int c = peek(p);
    if (c == close) { p->pos++; return 0; }
    if (c != ',') return -1;
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        if (!p->rego) return -1;
        p->pos++;
        return 0;
    }
    return 1;
}

static opa_value *parse_array(parser *p) {
    p->pos++;
    opa_value *arr = opa_array();
    skip_ws(p);
    if (peek(p) == ']') { p->pos++; return arr; }
    for (;;) {
        opa_value *v = parse_value(p);
        if (!v) return NULL;
        opa_array_append(arr, v);
        int r = next_elem(p, ']');
        if (r < 0) return NULL;
        if (r == 0) return arr;
    }
}

static opa_value *parse_brace(parser *p) {
    p->pos++;
    skip_ws(p);
    if (peek(p) == '}') { p->pos++; return opa_object(); }
    opa_value *first = parse_value(p);
    if (!first) return NULL;
    skip_ws(p);
    if (peek(p) != ':') { /* a set */
        if (!p->rego) return NULL;
        opa_value *set = opa_set();
        opa_value *v = first;
        for (;;) {
            opa_set_add(set, v);
            int r = next_elem(p, '}');
            if (r < 0) return NULL;
            if (r == 0) return set;
            if (!(v = parse_value(p))) return NULL;
        }
    }
    opa_value *obj = opa_object();
    opa_value *k = first;
    for (;;) {
        if (!p->rego && k->type != OPA_STRING) return NULL;
        skip_ws(p);
        if (peek(p) != ':') return NULL;
        p->pos++;
        opa_value *v = parse_value(p);
        if (!v) return NULL;
        opa_object_insert(obj, k, v);
        int r = next_elem(p, '}');
        if (r < 0) return NULL;
        if (r == 0) return obj;
        if (!(k = parse_value(p))) return NULL;
    }
}

static opa_value *parse_value(parser *p) {
    skip_ws(p);
    if (++p->depth > OPA_MAX_DEPTH) return NULL;
    opa_value *v = NULL;
    switch (peek(p)) {
    case '{': v = parse_brace(p); break;
    case '[': v = parse_array(p); break;
    case '"': v = parse_string(p); break;
    case '`': v = p->rego ? parse_raw_string(p) : NULL; break;
    case 't': v = literal(p, "true") ? opa_boolean(true) : NULL; break;
    case 'f': v = literal(p, "false") ? opa_boolean(false) : NULL; break;
    case 'n': v = literal(p, "null") ? opa_null() : NULL; break;
    case 's':
        if (p->rego && literal(p, "set(")) {
            skip_ws(p);
            if (peek(p) == ')') { p->pos++; v = opa_set(); }
        }
        break;
    default: {
        int c = peek(p);
        if (c == '-' || (c >= '0' && c <= '9')) v = parse_number(p);
        break;
    }
    }
    p->depth--;
    return v;
}

static opa_value *parse(const char *s, size_t len, int rego) {
    parser p = {s, len, 0, rego, 0};
    opa_value *v = parse_value(&p);
    if (!v) return NULL;
    skip_ws(&p);
    return p.pos == len ? v : NULL;
}

opa_value *opa_json_parse(const char *s, size_t len) { return parse(s, len, 0); }
opa_value *opa_value_parse(const char *s, size_t len) { return parse(s, len, 1); }

/* ---------------- dumping ---------------- */

static void append_any(opa_strbuf *sb, const opa_value *v, int rego) {
    switch (v->type) {
    case OPA_NULL: opa_strbuf_append(sb, "null", 4); return;
    case OPA_BOOLEAN:
        if (opa_cast_boolean(v)->v) opa_strbuf_append(sb, "true", 4);
        else opa_strbuf_append(sb, "false", 5);
        return;
    case OPA_NUMBER: opa_number_append(sb, v); return;
    case OPA_STRING:
        opa_strbuf_append_quoted(sb, opa_cast_string(v)->v, opa_cast_string(v)->len, !rego);
        return;
    case OPA_ARRAY: {
        const opa_array_t *a = opa_cast_array(v);
        opa_strbuf_putc(sb, '[');
        for (uint32_t i = 0; i < a->len; i++) {
            if (i) opa_strbuf_append(sb, rego ? ", " : ",", rego ? 2 : 1);
            append_any(sb, a->elems[i], rego);
        }
        opa_strbuf_putc(sb, ']');
        return;
    }
    case OPA_OBJECT: {
        uint32_t n = opa_cast_object(v)->len;
        opa_strbuf_putc(sb, '{');
        for (uint32_t i = 0; i < n; i++) {
            if (i) opa_strbuf_append(sb, rego ? ", " : ",", rego ? 2 : 1);
            const opa_value *k = opa_object_key_at(v, i);
            if (rego || k->type == OPA_STRING) {
                append_any(sb, k, rego);
            } else { /* JSON: non-string keys become their JSON text */
                opa_strbuf kt;
                opa_strbuf_init(&kt, 32);
                append_any(&kt, k, 0);
                opa_strbuf_append_quoted(sb, kt.buf, kt.len, 1);
                opa_strbuf_free(&kt);
            }
            opa_strbuf_append(sb, rego ? ": " : ":", rego ? 2 : 1);
            append_any(sb, opa_object_value_at(v, i), rego);
        }
        opa_strbuf_putc(sb, '}');
        return;
    }
    case OPA_SET: {
        uint32_t n = opa_cast_set(v)->len;
        if (rego && n == 0) { opa_strbuf_append(sb, "set()", 5); return; }
        opa_strbuf_putc(sb, rego ? '{' : '[');
        for (uint32_t i = 0; i < n; i++) {
            if (i) opa_strbuf_append(sb, rego ? ", " : ",", rego ? 2 : 1);
            append_any(sb, opa_set_at(v, i), rego);
        }
        opa_strbuf_putc(sb, rego ? '}' : ']');
        return;
    }
    default: opa_abort("illegal value");
    }
}

void opa_strbuf_append_json(opa_strbuf *sb, const opa_value *v) { append_any(sb, v, 0); }
void opa_strbuf_append_rego(opa_strbuf *sb, const opa_value *v) { append_any(sb, v, 1); }

static char *dump(const opa_value *v, int rego) {
    opa_strbuf sb;
    opa_strbuf_init(&sb, 64);
    if (v) append_any(&sb, v, rego);
    return opa_strbuf_to_cstr(&sb);
}

char *opa_json_dump(const opa_value *v) { return dump(v, 0); }
char *opa_value_dump(const opa_value *v) { return dump(v, 1); }
