/* trim, trim_left, trim_right (cutsets of runes), trim_prefix, trim_suffix, trim_space
 * (Go's unicode.IsSpace). Strings are scanned as runes with invalid bytes read as U+FFFD,
 * like Go's strings.Trim* that OPA calls. */
#include "bi_util.h"
#include "unicode.h"

/* Rune boundaries of s: starts[k] is the byte offset of rune k, starts[count] = n. */
struct runes {
    uint32_t *cp, *starts, count;
};

static struct runes decode(const char *s, uint32_t n)
{
    struct runes r = {opa_malloc((n + 1) * sizeof(uint32_t)), opa_malloc((n + 1) * sizeof(uint32_t)), 0};
    size_t i = 0, w;
    while (i < n) {
        r.starts[r.count] = (uint32_t)i;
        r.cp[r.count++] = opa_utf8_decode(s + i, n - i, &w);
        i += w;
    }
    r.starts[r.count] = n;
    return r;
}

static bool in_cutset(uint32_t cp, const struct runes *cut)
{
    for (uint32_t k = 0; k < cut->count; k++)
        if (cut->cp[k] == cp) return true;
    return false;
}

/* Trims runes for which cut (a cutset) or, when cut is NULL, cp_is_space holds. */
static opa_value *trim_runes(const char *name, opa_value *a, const opa_string_t *cutset, bool left, bool right)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string(name, 1, a);
    struct runes cut = {0, 0, 0};
    if (cutset) cut = decode(cutset->v, cutset->len);
    struct runes r = decode(s->v, s->len);
    uint32_t lo = 0, hi = r.count;
    if (left)
        while (lo < hi && (cutset ? in_cutset(r.cp[lo], &cut) : cp_is_space(r.cp[lo]))) lo++;
    if (right)
        while (hi > lo && (cutset ? in_cutset(r.cp[hi - 1], &cut) : cp_is_space(r.cp[hi - 1]))) hi--;
    opa_value *out = lo == 0 && hi == r.count ? a : opa_string(s->v + r.starts[lo], r.starts[hi] - r.starts[lo]);
    opa_free(r.cp);
    opa_free(r.starts);
    if (cutset) {
        opa_free(cut.cp);
        opa_free(cut.starts);
    }
    return out;
}

OPA_EXPORT opa_value *opa_bi_trim(opa_value *a, opa_value *cutset)
{
    const opa_string_t *c = bi_str(cutset);
    return c ? trim_runes("trim", a, c, true, true) : bi_want_strings("trim", a, cutset);
}

OPA_EXPORT opa_value *opa_bi_trim_left(opa_value *a, opa_value *cutset)
{
    const opa_string_t *c = bi_str(cutset);
    return c ? trim_runes("trim_left", a, c, true, false) : bi_want_strings("trim_left", a, cutset);
}

OPA_EXPORT opa_value *opa_bi_trim_right(opa_value *a, opa_value *cutset)
{
    const opa_string_t *c = bi_str(cutset);
    return c ? trim_runes("trim_right", a, c, false, true) : bi_want_strings("trim_right", a, cutset);
}

OPA_EXPORT opa_value *opa_bi_trim_space(opa_value *a) { return trim_runes("trim_space", a, 0, true, true); }

OPA_EXPORT opa_value *opa_bi_trim_prefix(opa_value *a, opa_value *prefix)
{
    const opa_string_t *s = bi_str(a), *p = bi_str(prefix);
    if (!s || !p) return bi_want_strings("trim_prefix", a, prefix);
    if (p->len > s->len || memcmp(s->v, p->v, p->len) != 0) return a;
    return opa_string(s->v + p->len, s->len - p->len);
}

OPA_EXPORT opa_value *opa_bi_trim_suffix(opa_value *a, opa_value *suffix)
{
    const opa_string_t *s = bi_str(a), *p = bi_str(suffix);
    if (!s || !p) return bi_want_strings("trim_suffix", a, suffix);
    if (p->len > s->len || memcmp(s->v + s->len - p->len, p->v, p->len) != 0) return a;
    return opa_string(s->v, s->len - p->len);
}
