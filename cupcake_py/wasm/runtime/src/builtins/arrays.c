/* Array builtins: array.concat, array.reverse, array.slice. */
#include "bi_util.h"

OPA_EXPORT opa_value *opa_bi_array_concat(opa_value *a, opa_value *b)
{
    if (!bi_is(a, OPA_ARRAY)) return bi_type("array.concat", 1, "array", a);
    if (!bi_is(b, OPA_ARRAY)) return bi_type("array.concat", 2, "array", b);
    uint32_t na = bi_len(a), nb = bi_len(b);
    opa_value *r = opa_array_with_cap((int32_t)(na + nb));
    for (uint32_t i = 0; i < na; i++) opa_array_append(r, opa_array_at(a, i));
    for (uint32_t i = 0; i < nb; i++) opa_array_append(r, opa_array_at(b, i));
    return r;
}

OPA_EXPORT opa_value *opa_bi_array_reverse(opa_value *a)
{
    if (!bi_is(a, OPA_ARRAY)) return bi_type("array.reverse", 1, "array", a);
    uint32_t n = bi_len(a);
    opa_value *r = opa_array_with_cap((int32_t)n);
    while (n--) opa_array_append(r, opa_array_at(a, n));
    return r;
}

/* Elements [start, stop) with start clamped to >= 0 and stop to <= length. */
OPA_EXPORT opa_value *opa_bi_array_slice(opa_value *a, opa_value *start, opa_value *stop)
{
    int64_t lo, hi;
    if (!bi_is(a, OPA_ARRAY)) return bi_type("array.slice", 1, "array", a);
    if (!bi_int(start, &lo)) return bi_want_int("array.slice", 2, start);
    if (!bi_int(stop, &hi)) return bi_want_int("array.slice", 3, stop);
    int64_t n = bi_len(a);
    if (lo < 0) lo = 0;
    if (hi > n) hi = n;
    opa_value *r = opa_array_with_cap(lo < hi ? (int32_t)(hi - lo) : 0);
    for (int64_t i = lo; i < hi; i++) opa_array_append(r, opa_array_at(a, (uint32_t)i));
    return r;
}
