/* Aggregates and membership: count, sum, product, max, min, sort, all, any,
 * internal.member_2 (`x in xs`), internal.member_3 (`k, v in xs`). */
#include "bi_util.h"

OPA_EXPORT opa_value *opa_bi_count(opa_value *a)
{
    switch (a->type) {
    case OPA_STRING: case OPA_ARRAY: case OPA_OBJECT: case OPA_SET:
        return opa_number_int(opa_value_length(a)); /* strings: runes */
    default:
        return bi_type("count", 1, "one of {array, object, set, string}", a);
    }
}

/* Exact sum (mul = false) or product of an array/set of numbers. */
static opa_value *fold_numbers(const char *name, opa_value *coll, bool mul)
{
    if (!bi_is_collection(coll)) return bi_type(name, 1, "one of {set, array}", coll);
    opa_value *acc = opa_number_int(mul ? 1 : 0);
    for (uint32_t i = 0, n = bi_len(coll); i < n; i++) {
        opa_value *x = bi_elem(coll, i);
        if (!bi_is(x, OPA_NUMBER)) return bi_element_type(name, 1, "number", coll, x);
        acc = mul ? opa_number_mul(acc, x) : opa_number_add(acc, x);
    }
    return acc;
}

OPA_EXPORT opa_value *opa_bi_sum(opa_value *a) { return fold_numbers("sum", a, false); }
OPA_EXPORT opa_value *opa_bi_product(opa_value *a) { return fold_numbers("product", a, true); }

/* Extreme element by the total order; among equal arrays elements the last wins
 * (OPA's array loop), sets hold no equal elements. */
static opa_value *extreme(const char *name, opa_value *coll, int sign)
{
    if (!bi_is_collection(coll)) return bi_type(name, 1, "one of {set, array}", coll);
    uint32_t n = bi_len(coll);
    if (!n) return 0; /* undefined without an error, as OPA */
    opa_value *best = bi_elem(coll, 0);
    for (uint32_t i = 1; i < n; i++) {
        opa_value *x = bi_elem(coll, i);
        if (opa_value_compare(x, best) * sign >= 0) best = x;
    }
    return best;
}

OPA_EXPORT opa_value *opa_bi_max(opa_value *a) { return extreme("max", a, 1); }
OPA_EXPORT opa_value *opa_bi_min(opa_value *a) { return extreme("min", a, -1); }

OPA_EXPORT opa_value *opa_bi_sort(opa_value *a)
{
    if (bi_is(a, OPA_ARRAY)) return opa_array_sorted(a);
    if (!bi_is(a, OPA_SET)) return bi_type("sort", 1, "one of {set, array}", a);
    uint32_t n = bi_len(a);
    opa_value *arr = opa_array_with_cap((int32_t)n);
    for (uint32_t i = 0; i < n; i++) opa_array_append(arr, opa_set_at(a, i)); /* sorted */
    return arr;
}

static bool is_true(const opa_value *v) { return bi_is(v, OPA_BOOLEAN) && opa_value_is_true(v); }

OPA_EXPORT opa_value *opa_bi_all(opa_value *a)
{
    if (!bi_is_collection(a)) return bi_type("all", 1, "one of {set, array}", a);
    for (uint32_t i = 0, n = bi_len(a); i < n; i++)
        if (!is_true(bi_elem(a, i))) return opa_boolean(false);
    return opa_boolean(true);
}

OPA_EXPORT opa_value *opa_bi_any(opa_value *a)
{
    if (!bi_is_collection(a)) return bi_type("any", 1, "one of {set, array}", a);
    for (uint32_t i = 0, n = bi_len(a); i < n; i++)
        if (is_true(bi_elem(a, i))) return opa_boolean(true);
    return opa_boolean(false);
}

OPA_EXPORT opa_value *opa_bi_internal_member_2(opa_value *x, opa_value *coll)
{
    switch (coll->type) {
    case OPA_SET:
        return opa_boolean(opa_set_contains(coll, x));
    case OPA_ARRAY: case OPA_OBJECT:
        for (uint32_t i = 0, n = bi_len(coll); i < n; i++) {
            opa_value *v = coll->type == OPA_ARRAY ? opa_array_at(coll, i) : opa_object_value_at(coll, i);
            if (opa_value_equal(v, x)) return opa_boolean(true);
        }
        return opa_boolean(false);
    default:
        return opa_boolean(false);
    }
}

OPA_EXPORT opa_value *opa_bi_internal_member_3(opa_value *k, opa_value *v, opa_value *coll)
{
    switch (coll->type) {
    case OPA_SET:
        return opa_boolean(opa_set_contains(coll, k) && opa_value_equal(k, v));
    case OPA_ARRAY: case OPA_OBJECT: {
        opa_value *got = opa_value_get(coll, k);
        return opa_boolean(got && opa_value_equal(got, v));
    }
    default:
        return opa_boolean(false);
    }
}
