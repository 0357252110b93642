/* String builtins: concat, contains, startswith, endswith, indexof, substring, lower,
 * upper, split, replace, strings.replace_n, strings.reverse, format_int.
 * Semantics of OPA 1.x (Go's strings package): rune positions for indexof/substring,
 * invalid UTF-8 bytes read as U+FFFD; format_int truncates toward zero like OPA's
 * big.Float.Int (exact on numbers of any size). */
#include "bi_util.h"
#include "bigint.h"
#include "unicode.h"

OPA_EXPORT opa_value *opa_bi_concat(opa_value *delim, opa_value *coll)
{
    const opa_string_t *d = bi_str(delim);
    if (!d) return bi_want_string("concat", 1, delim);
    if (!bi_is_collection(coll)) return bi_type("concat", 2, "one of {set, array}", coll);
    uint32_t n = bi_len(coll);
    opa_strbuf sb;
    opa_strbuf_init(&sb, 16);
    for (uint32_t i = 0; i < n; i++) {
        const opa_string_t *s = bi_str(bi_elem(coll, i));
        if (!s) {
            opa_strbuf_free(&sb);
            return bi_element_type("concat", 2, "string", coll, bi_elem(coll, i));
        }
        if (i) opa_strbuf_append(&sb, d->v, d->len);
        opa_strbuf_append(&sb, s->v, s->len);
    }
    return opa_strbuf_to_string(&sb);
}

OPA_EXPORT opa_value *opa_bi_contains(opa_value *a, opa_value *b)
{
    const opa_string_t *s = bi_str(a), *t = bi_str(b);
    if (!s || !t) return bi_want_strings("contains", a, b);
    return opa_boolean(bi_find(s->v, s->len, t->v, t->len, 0) >= 0);
}

OPA_EXPORT opa_value *opa_bi_startswith(opa_value *a, opa_value *b)
{
    const opa_string_t *s = bi_str(a), *t = bi_str(b);
    if (!s || !t) return bi_want_strings("startswith", a, b);
    return opa_boolean(t->len <= s->len && memcmp(s->v, t->v, t->len) == 0);
}

OPA_EXPORT opa_value *opa_bi_endswith(opa_value *a, opa_value *b)
{
    const opa_string_t *s = bi_str(a), *t = bi_str(b);
    if (!s || !t) return bi_want_strings("endswith", a, b);
    return opa_boolean(t->len <= s->len && memcmp(s->v + s->len - t->len, t->v, t->len) == 0);
}

/* Decodes s into a fresh rune array; returns the rune count. */
static uint32_t runes_of(const char *s, uint32_t n, uint32_t **out)
{
    uint32_t *r = opa_malloc((n ? n : 1) * sizeof(uint32_t)), c = 0;
    for (size_t i = 0, w; i < n; i += w) r[c++] = opa_utf8_decode(s + i, n - i, &w);
    *out = r;
    return c;
}

OPA_EXPORT opa_value *opa_bi_indexof(opa_value *a, opa_value *b)
{
    const opa_string_t *s = bi_str(a), *t = bi_str(b);
    if (!s || !t) return bi_want_strings("indexof", a, b);
    if (t->len == 0) return bi_fail("indexof", "empty search character");
    if (bi_ascii(s->v, s->len) && bi_ascii(t->v, t->len))
        return opa_number_int(bi_find(s->v, s->len, t->v, t->len, 0));
    uint32_t *hs, *ns;
    uint32_t hn = runes_of(s->v, s->len, &hs), nn = runes_of(t->v, t->len, &ns);
    int64_t at = -1;
    for (uint32_t i = 0; i + nn <= hn && at < 0; i++) {
        uint32_t k = 0;
        while (k < nn && hs[i + k] == ns[k]) k++;
        if (k == nn) at = i;
    }
    opa_free(hs);
    opa_free(ns);
    return opa_number_int(at);
}

OPA_EXPORT opa_value *opa_bi_substring(opa_value *a, opa_value *start, opa_value *length)
{
    const opa_string_t *s = bi_str(a);
    int64_t st, ln;
    if (!s) return bi_want_string("substring", 1, a);
    if (!bi_int(start, &st)) return bi_want_int("substring", 2, start);
    if (!bi_int(length, &ln)) return bi_want_int("substring", 3, length);
    if (st < 0) return bi_fail("substring", "negative offset");
    if (bi_ascii(s->v, s->len)) {
        if (st >= s->len) return opa_string("", 0);
        uint64_t end = ln < 0 || (uint64_t)st + (uint64_t)ln > s->len ? s->len : (uint64_t)(st + ln);
        return opa_string(s->v + st, (size_t)(end - (uint64_t)st));
    }
    uint32_t count = (uint32_t)opa_utf8_count(s->v, s->len);
    if (st == 0 && ln >= count) return a;
    if (st >= count) return opa_string("", 0);
    uint64_t end = ln < 0 || (uint64_t)st + (uint64_t)ln > count ? count : (uint64_t)(st + ln);
    /* Go re-encodes the selected runes: invalid bytes come out as U+FFFD. */
    opa_strbuf sb;
    opa_strbuf_init(&sb, s->len);
    size_t i = opa_utf8_offset(s->v, s->len, (size_t)st), w;
    for (uint64_t r = (uint64_t)st; r < end; r++, i += w)
        opa_strbuf_append_rune(&sb, opa_utf8_decode(s->v + i, s->len - i, &w));
    return opa_strbuf_to_string(&sb);
}

static opa_value *map_case(opa_value *a, bool upper)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string(upper ? "upper" : "lower", 1, a);
    opa_strbuf sb;
    opa_strbuf_init(&sb, s->len + 4);
    for (size_t i = 0, w; i < s->len; i += w) {
        uint8_t c = (uint8_t)s->v[i];
        if (c < 0x80) {
            w = 1;
            opa_strbuf_putc(&sb, (char)(upper ? cp_upper(c) : cp_lower(c)));
            continue;
        }
        uint32_t cp = opa_utf8_decode(s->v + i, s->len - i, &w);
        opa_strbuf_append_rune(&sb, upper ? cp_upper(cp) : cp_lower(cp));
    }
    return opa_strbuf_to_string(&sb);
}

OPA_EXPORT opa_value *opa_bi_lower(opa_value *a) { return map_case(a, false); }
OPA_EXPORT opa_value *opa_bi_upper(opa_value *a) { return map_case(a, true); }

OPA_EXPORT opa_value *opa_bi_split(opa_value *a, opa_value *b)
{
    const opa_string_t *s = bi_str(a), *d = bi_str(b);
    if (!s || !d) return bi_want_strings("split", a, b);
    opa_value *arr = opa_array();
    if (d->len == 0) { /* one element per UTF-8 sequence (invalid bytes alone) */
        for (size_t i = 0, w; i < s->len; i += w) {
            opa_utf8_decode(s->v + i, s->len - i, &w);
            opa_array_append(arr, opa_string(s->v + i, w));
        }
        return arr;
    }
    uint32_t from = 0;
    for (int64_t at; (at = bi_find(s->v, s->len, d->v, d->len, from)) >= 0; from = (uint32_t)at + d->len)
        opa_array_append(arr, opa_string(s->v + from, (size_t)at - from));
    opa_array_append(arr, opa_string(s->v + from, s->len - from));
    return arr;
}

/* Go's strings.Replacer: at each byte position the first pattern (in the given order)
 * that matches is replaced; an empty pattern matches once at every position. */
static opa_value *replace_all(const opa_string_t *s, const opa_string_t *const *olds,
                              const opa_string_t *const *news, uint32_t npat)
{
    opa_strbuf sb;
    opa_strbuf_init(&sb, s->len + 8);
    bool prev_empty = false;
    for (uint32_t i = 0; i <= s->len;) {
        uint32_t hit = npat;
        for (uint32_t p = 0; p < npat && hit == npat; p++) {
            const opa_string_t *o = olds[p];
            if (o->len == 0 ? !prev_empty : (o->len <= s->len - i && memcmp(s->v + i, o->v, o->len) == 0))
                hit = p;
        }
        if (hit < npat) {
            opa_strbuf_append(&sb, news[hit]->v, news[hit]->len);
            prev_empty = olds[hit]->len == 0;
            i += olds[hit]->len;
            continue;
        }
        prev_empty = false;
        if (i < s->len) opa_strbuf_putc(&sb, s->v[i]);
        i++;
    }
    return opa_strbuf_to_string(&sb);
}

OPA_EXPORT opa_value *opa_bi_replace(opa_value *a, opa_value *old, opa_value *new_)
{
    const opa_string_t *s = bi_str(a), *o = bi_str(old), *n = bi_str(new_);
    if (!s || !o) return bi_want_strings("replace", a, old);
    if (!n) return bi_want_string("replace", 3, new_);
    return replace_all(s, &o, &n, 1);
}

OPA_EXPORT opa_value *opa_bi_strings_replace_n(opa_value *patterns, opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!bi_is(patterns, OPA_OBJECT)) return bi_type("strings.replace_n", 1, "object", patterns);
    if (!s) return bi_want_string("strings.replace_n", 2, a);
    uint32_t n = bi_len(patterns);
    const opa_string_t **olds = opa_malloc((n + 1) * sizeof(void *));
    const opa_string_t **news = opa_malloc((n + 1) * sizeof(void *));
    opa_value *r = 0;
    for (uint32_t i = 0; i < n; i++) { /* keys iterate sorted, as OPA sorts them */
        olds[i] = bi_str(opa_object_key_at(patterns, i));
        news[i] = bi_str(opa_object_value_at(patterns, i));
        if (!olds[i] || !news[i]) {
            const char *why = olds[i] ? "non-string value found in pattern object"
                                      : "non-string key found in pattern object";
            opa_free(olds);
            opa_free(news);
            return bi_fail_operand("strings.replace_n", 1, why);
        }
    }
    r = replace_all(s, olds, news, n);
    opa_free(olds);
    opa_free(news);
    return r;
}

OPA_EXPORT opa_value *opa_bi_strings_reverse(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string("strings.reverse", 1, a);
    uint32_t *rs, n = runes_of(s->v, s->len, &rs);
    opa_strbuf sb;
    opa_strbuf_init(&sb, s->len);
    while (n--) opa_strbuf_append_rune(&sb, rs[n]);
    opa_free(rs);
    return opa_strbuf_to_string(&sb);
}

OPA_EXPORT opa_value *opa_bi_format_int(opa_value *num, opa_value *base)
{
    int64_t b;
    if (!bi_is(num, OPA_NUMBER)) return bi_want_number("format_int", 1, num);
    if (!bi_int(base, &b)) return bi_want_int("format_int", 2, base);
    if (b != 2 && b != 8 && b != 10 && b != 16)
        return opa_builtin_type_error("format_int", 2, "one of {2, 8, 10, 16}", 0);
    opa_value *t = opa_number_sign(num) < 0 ? opa_number_ceil(num) : opa_number_floor(num);
    bigint v;
    if (!t || !big_from_number(t, &v)) return 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, 24);
    if (b == 10) opa_number_append(&sb, big_to_number(&v));
    else big_append_pow2_base(&sb, &v, (uint32_t)b);
    return opa_strbuf_to_string(&sb);
}
