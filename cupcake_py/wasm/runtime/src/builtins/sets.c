/* Set builtins: and (&), or (|), intersection, union, set_diff; minus on sets uses
 * bi_set_diff. Operands of the wrong type are undefined. */
#include "bi_util.h"

opa_value *bi_set_diff(const opa_value *a, const opa_value *b)
{
    opa_value *r = opa_set();
    for (uint32_t i = 0, n = bi_len(a); i < n; i++) {
        opa_value *x = opa_set_at(a, i);
        if (!opa_set_contains(b, x)) opa_set_add(r, x);
    }
    return r;
}

static opa_value *intersect(const opa_value *a, const opa_value *b)
{
    if (bi_len(a) > bi_len(b)) {
        const opa_value *t = a;
        a = b;
        b = t;
    }
    opa_value *r = opa_set();
    for (uint32_t i = 0, n = bi_len(a); i < n; i++) {
        opa_value *x = opa_set_at(a, i);
        if (opa_set_contains(b, x)) opa_set_add(r, x);
    }
    return r;
}

static void add_all(opa_value *r, const opa_value *s)
{
    for (uint32_t i = 0, n = bi_len(s); i < n; i++) opa_set_add(r, opa_set_at(s, i));
}

static bool both_sets(const opa_value *a, const opa_value *b)
{
    return bi_is(a, OPA_SET) && bi_is(b, OPA_SET);
}

/* OPA's SetOperand error of the first operand that is not a set. */
static opa_value *sets_error(const char *name, const opa_value *a, const opa_value *b)
{
    return bi_is(a, OPA_SET) ? bi_type(name, 2, "set", b) : bi_type(name, 1, "set", a);
}

OPA_EXPORT opa_value *opa_bi_and(opa_value *a, opa_value *b)
{
    return both_sets(a, b) ? intersect(a, b) : sets_error("and", a, b);
}

OPA_EXPORT opa_value *opa_bi_or(opa_value *a, opa_value *b)
{
    if (!both_sets(a, b)) return sets_error("or", a, b);
    opa_value *r = opa_set_with_cap(bi_len(a) + bi_len(b));
    add_all(r, a);
    add_all(r, b);
    return r;
}

OPA_EXPORT opa_value *opa_bi_set_diff(opa_value *a, opa_value *b)
{
    return both_sets(a, b) ? bi_set_diff(a, b) : sets_error("set_diff", a, b);
}

/* Sets of sets; false after reporting the error of builtin `name`. */
static bool all_sets(const char *name, const opa_value *s)
{
    if (!bi_is(s, OPA_SET)) return bi_type(name, 1, "set", s), false;
    for (uint32_t i = 0, n = bi_len(s); i < n; i++)
        if (!bi_is(opa_set_at(s, i), OPA_SET)) return bi_element_type(name, 1, "set", s, opa_set_at(s, i)), false;
    return true;
}

OPA_EXPORT opa_value *opa_bi_intersection(opa_value *sets)
{
    if (!all_sets("intersection", sets)) return 0;
    uint32_t n = bi_len(sets);
    if (!n) return opa_set();
    opa_value *r = opa_set_at(sets, 0);
    for (uint32_t i = 1; i < n; i++) r = intersect(r, opa_set_at(sets, i));
    return n == 1 ? opa_value_shallow_copy(r) : r;
}

OPA_EXPORT opa_value *opa_bi_union(opa_value *sets)
{
    if (!all_sets("union", sets)) return 0;
    opa_value *r = opa_set();
    for (uint32_t i = 0, n = bi_len(sets); i < n; i++) add_all(r, opa_set_at(sets, i));
    return r;
}
