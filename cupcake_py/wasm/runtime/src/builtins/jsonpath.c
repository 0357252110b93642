/* json.filter and json.remove: paths are "/"-separated strings (leading slashes
 * ignored, "~1" -> "/", "~0" -> "~") or arrays of segments. The paths are merged into a
 * tree of objects with null leaves (a shorter path wins over a longer one below it);
 * array elements are addressed by their index as a string ("0"), as in OPA. */
#include "bi_util.h"

static const opa_string_t *unescape(const char *s, uint32_t n)
{
    opa_strbuf sb;
    opa_strbuf_init(&sb, n);
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
            opa_strbuf_putc(&sb, s[i + 1] == '1' ? '/' : '~');
            i++;
        } else {
            opa_strbuf_putc(&sb, s[i]);
        }
    }
    return opa_cast_string(opa_strbuf_to_string(&sb));
}

/* Path segments of one path operand element; NULL if it is neither string nor array. */
static opa_value *segments(const opa_value *p)
{
    if (bi_is(p, OPA_ARRAY)) return (opa_value *)p;
    const opa_string_t *s = bi_str(p);
    if (!s) return 0;
    opa_value *segs = opa_array();
    if (!s->len) return segs;
    uint32_t i = 0;
    while (i < s->len && s->v[i] == '/') i++;
    for (;;) {
        uint32_t j = i;
        while (j < s->len && s->v[j] != '/') j++;
        /* "~1" must not become a separator: unescape each part after splitting. */
        opa_array_append(segs, (opa_value *)unescape(s->v + i, j - i));
        if (j == s->len) break;
        i = j + 1;
    }
    return segs;
}

/* Builds the filter tree; NULL (an error of builtin `name`) if the paths operand is malformed. */
static opa_value *paths_tree(const char *name, const opa_value *paths)
{
    if (!bi_is_collection(paths)) return bi_type(name, 2, "one of {set, array}", paths);
    opa_value *root = opa_object();
    for (uint32_t i = 0, n = bi_len(paths); i < n; i++) {
        opa_value *segs = segments(bi_elem(paths, i));
        if (!segs)
            return bi_type(name, 2, "one of {set, array} containing string paths or array of path segments",
                           bi_elem(paths, i));
        uint32_t m = bi_len(segs);
        if (!m) continue;
        opa_value *node = root;
        bool covered = false;
        for (uint32_t k = 0; k + 1 < m && !covered; k++) {
            opa_value *seg = opa_array_at(segs, k), *child = opa_value_get(node, seg);
            if (!child) {
                child = opa_object();
                opa_object_insert(node, seg, child);
            } else if (bi_is(child, OPA_NULL)) {
                covered = true;
            }
            node = child;
        }
        if (!covered) opa_object_insert(node, opa_array_at(segs, m - 1), opa_null());
    }
    return root;
}

static opa_value *index_key(uint32_t i)
{
    opa_strbuf sb;
    opa_strbuf_init(&sb, 12);
    opa_strbuf_append_uint(&sb, i);
    return opa_strbuf_to_string(&sb);
}

/* Keeps what the filter tree selects (null leaf = the whole value). */
static opa_value *filter(opa_value *v, const opa_value *f)
{
    if (bi_is(f, OPA_NULL)) return v;
    opa_value *r;
    switch (v->type) {
    case OPA_ARRAY:
        r = opa_array();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
            opa_value *sub = opa_value_get(f, index_key(i));
            if (sub) opa_array_append(r, filter(opa_array_at(v, i), sub));
        }
        return r;
    case OPA_SET:
        r = opa_set();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
            opa_value *x = opa_set_at(v, i), *sub = opa_value_get(f, x);
            if (sub) opa_set_add(r, filter(x, sub));
        }
        return r;
    case OPA_OBJECT:
        r = opa_object();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
            opa_value *k = opa_object_key_at(v, i), *sub = opa_value_get(f, k);
            if (sub) opa_object_insert(r, k, filter(opa_object_value_at(v, i), sub));
        }
        return r;
    default:
        return v;
    }
}

/* Drops what the tree selects; NULL = removed entirely. */
static opa_value *prune(opa_value *v, const opa_value *f)
{
    if (!f) return v;
    if (bi_is(f, OPA_NULL)) return 0;
    if (!bi_is(f, OPA_OBJECT)) return v;
    opa_value *r, *x;
    switch (v->type) {
    case OPA_ARRAY:
        r = opa_array();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++)
            if ((x = prune(opa_array_at(v, i), opa_value_get(f, index_key(i))))) opa_array_append(r, x);
        return r;
    case OPA_SET:
        r = opa_set();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
            opa_value *e = opa_set_at(v, i);
            if ((x = prune(e, opa_value_get(f, e)))) opa_set_add(r, x);
        }
        return r;
    case OPA_OBJECT:
        r = opa_object();
        for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
            opa_value *k = opa_object_key_at(v, i);
            if ((x = prune(opa_object_value_at(v, i), opa_value_get(f, k)))) opa_object_insert(r, k, x);
        }
        return r;
    default:
        return v;
    }
}

OPA_EXPORT opa_value *opa_bi_json_filter(opa_value *obj, opa_value *paths)
{
    if (!bi_is(obj, OPA_OBJECT)) return bi_type("json.filter", 1, "object", obj);
    opa_value *tree = paths_tree("json.filter", paths);
    return tree ? filter(obj, tree) : 0;
}

OPA_EXPORT opa_value *opa_bi_json_remove(opa_value *obj, opa_value *paths)
{
    if (!bi_is(obj, OPA_OBJECT)) return bi_type("json.remove", 1, "object", obj);
    opa_value *tree = paths_tree("json.remove", paths);
    return tree ? prune(obj, tree) : 0;
}
