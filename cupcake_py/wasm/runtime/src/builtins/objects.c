/* Object builtins: object.filter, object.remove, object.get, object.keys, object.union,
 * object.union_n. Key collections may be arrays, sets or objects (their keys). */
#include "bi_util.h"

/* Is k in the key collection (array elements, set elements or object keys)? */
static bool key_in(const opa_value *keys, const opa_value *k)
{
    switch (keys->type) {
    case OPA_SET: return opa_set_contains(keys, k);
    case OPA_OBJECT: return opa_value_get(keys, k) != 0;
    default:
        for (uint32_t i = 0, n = bi_len(keys); i < n; i++)
            if (opa_value_equal(opa_array_at(keys, i), k)) return true;
        return false;
    }
}

static opa_value *select_keys(const char *name, opa_value *obj, opa_value *keys, bool keep)
{
    if (!bi_is(obj, OPA_OBJECT)) return bi_type(name, 1, "object", obj);
    if (!bi_is(keys, OPA_ARRAY) && !bi_is(keys, OPA_SET) && !bi_is(keys, OPA_OBJECT))
        return bi_type(name, 2, "one of {object, set, array}", keys);
    opa_value *r = opa_object();
    for (uint32_t i = 0, n = bi_len(obj); i < n; i++) {
        opa_value *k = opa_object_key_at(obj, i);
        if (key_in(keys, k) == keep) opa_object_insert(r, k, opa_object_value_at(obj, i));
    }
    return r;
}

OPA_EXPORT opa_value *opa_bi_object_filter(opa_value *obj, opa_value *keys) { return select_keys("object.filter", obj, keys, true); }
OPA_EXPORT opa_value *opa_bi_object_remove(opa_value *obj, opa_value *keys) { return select_keys("object.remove", obj, keys, false); }

/* obj[key], or following an array path through objects, arrays (integer indexes) and
 * sets (elements); the default when anything along the way is missing. */
OPA_EXPORT opa_value *opa_bi_object_get(opa_value *obj, opa_value *key, opa_value *dflt)
{
    if (!bi_is(obj, OPA_OBJECT)) return bi_type("object.get", 1, "object", obj);
    if (!bi_is(key, OPA_ARRAY)) {
        opa_value *v = opa_value_get(obj, key);
        return v ? v : dflt;
    }
    opa_value *node = obj;
    for (uint32_t i = 0, n = bi_len(key); i < n && node; i++) node = opa_value_get(node, opa_array_at(key, i));
    return node ? node : dflt;
}

OPA_EXPORT opa_value *opa_bi_object_keys(opa_value *obj)
{
    if (!bi_is(obj, OPA_OBJECT)) return bi_type("object.keys", 1, "object", obj);
    uint32_t n = bi_len(obj);
    opa_value *r = opa_set_with_cap(n);
    for (uint32_t i = 0; i < n; i++) opa_set_add(r, opa_object_key_at(obj, i));
    return r;
}

/* a's entries overwritten by b's, merging where both values are objects. */
static opa_value *merge(const opa_value *a, const opa_value *b)
{
    opa_value *r = opa_value_shallow_copy(a);
    for (uint32_t i = 0, n = bi_len(b); i < n; i++) {
        opa_value *k = opa_object_key_at(b, i), *vb = opa_object_value_at(b, i);
        opa_value *va = opa_value_get(a, k);
        opa_object_insert(r, k, va && bi_is(va, OPA_OBJECT) && bi_is(vb, OPA_OBJECT) ? merge(va, vb) : vb);
    }
    return r;
}

OPA_EXPORT opa_value *opa_bi_object_union(opa_value *a, opa_value *b)
{
    if (!bi_is(a, OPA_OBJECT)) return bi_type("object.union", 1, "object", a);
    if (!bi_is(b, OPA_OBJECT)) return bi_type("object.union", 2, "object", b);
    return merge(a, b);
}

OPA_EXPORT opa_value *opa_bi_object_union_n(opa_value *objs)
{
    if (!bi_is(objs, OPA_ARRAY)) return bi_type("object.union_n", 1, "array", objs);
    opa_value *r = opa_object();
    for (uint32_t i = 0, n = bi_len(objs); i < n; i++) {
        opa_value *o = opa_array_at(objs, i);
        if (!bi_is(o, OPA_OBJECT)) return bi_element_type("object.union_n", 1, "object", objs, o);
        r = merge(r, o);
    }
    return r;
}
