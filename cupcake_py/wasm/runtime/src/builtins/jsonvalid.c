/* Recursive-descent JSON validator (no allocation; depth-limited like Go's scanner). */
#include "jsonvalid.h"

#define JSON_MAX_DEPTH 10000

struct jv {
    const uint8_t *s;
    uint32_t n, i, depth;
};

static void ws(struct jv *p)
{
    while (p->i < p->n) {
        uint8_t c = p->s[p->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        p->i++;
    }
}

static bool lit(struct jv *p, const char *w)
{
    for (; *w; w++, p->i++)
        if (p->i >= p->n || p->s[p->i] != (uint8_t)*w) return false;
    return true;
}

static bool digits(struct jv *p)
{
    uint32_t start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    return p->i > start;
}

static bool number(struct jv *p)
{
    if (p->i < p->n && p->s[p->i] == '-') p->i++;
    if (p->i >= p->n) return false;
    if (p->s[p->i] == '0') p->i++;
    else if (!digits(p)) return false;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!digits(p)) return false;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (!digits(p)) return false;
    }
    return true;
}

static bool ishex(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool string(struct jv *p)
{
    p->i++; /* opening quote */
    while (p->i < p->n) {
        uint8_t c = p->s[p->i++];
        if (c == '"') return true;
        if (c < 0x20) return false;
        if (c != '\\') continue;
        if (p->i >= p->n) return false;
        c = p->s[p->i++];
        if (c == 'u') {
            for (int k = 0; k < 4; k++, p->i++)
                if (p->i >= p->n || !ishex(p->s[p->i])) return false;
        } else if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' &&
                   c != 'r' && c != 't') {
            return false;
        }
    }
    return false;
}

static bool value(struct jv *p);

static bool composite(struct jv *p, uint8_t close, bool object)
{
    if (++p->depth > JSON_MAX_DEPTH) return false;
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
        p->depth--;
        return true;
    }
    for (;;) {
        if (object) {
            if (p->i >= p->n || p->s[p->i] != '"' || !string(p)) return false;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') return false;
            p->i++;
        }
        if (!value(p)) return false;
        ws(p);
        if (p->i >= p->n) return false;
        uint8_t c = p->s[p->i++];
        if (c == close) break;
        if (c != ',') return false;
        ws(p);
    }
    p->depth--;
    return true;
}

static bool value(struct jv *p)
{
    ws(p);
    if (p->i >= p->n) return false;
    switch (p->s[p->i]) {
    case '{': return composite(p, '}', true);
    case '[': return composite(p, ']', false);
    case '"': return string(p);
    case 't': return lit(p, "true");
    case 'f': return lit(p, "false");
    case 'n': return lit(p, "null");
    default: return number(p);
    }
}

bool json_valid(const uint8_t *s, uint32_t n)
{
    struct jv p = {s, n, 0, 0};
    if (!value(&p)) return false;
    ws(&p);
    return p.i == n;
}
