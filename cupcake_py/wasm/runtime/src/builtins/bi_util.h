/* Shared inline helpers of the native builtins (operand checks and small results).
 * Conventions (opa.h, NATIVE BUILTINS): arguments are never NULL, NULL = undefined,
 * operand type errors are undefined, arguments are never mutated. */
#ifndef CUPCAKE_BI_UTIL_H
#define CUPCAKE_BI_UTIL_H

#include "opa.h"

static inline bool bi_is(const opa_value *v, int type) { return v->type == type; }

static inline const opa_string_t *bi_str(const opa_value *v)
{
    return v->type == OPA_STRING ? (const opa_string_t *)v : 0;
}

static inline bool bi_is_collection(const opa_value *v)
{
    return v->type == OPA_ARRAY || v->type == OPA_SET;
}

/* Element i of an array or set (sets in sorted order). */
static inline opa_value *bi_elem(const opa_value *coll, uint32_t i)
{
    return coll->type == OPA_ARRAY ? opa_array_at(coll, i) : opa_set_at(coll, i);
}

static inline uint32_t bi_len(const opa_value *coll) { return (uint32_t)opa_value_length(coll); }

/* An integral number operand within int64 (OPA's integer operands). */
static inline bool bi_int(const opa_value *v, int64_t *out)
{
    return v->type == OPA_NUMBER && opa_number_try_int(v, out);
}

static inline bool bi_ascii(const char *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if ((uint8_t)s[i] >= 0x80) return false;
    return true;
}

/* Byte index of the first occurrence of needle in hay at or after `from`, or -1. */
static inline int64_t bi_find(const char *hay, uint32_t hn, const char *needle, uint32_t nn,
                              uint32_t from)
{
    if (nn > hn) return -1;
    if (nn == 0) return from <= hn ? (int64_t)from : -1;
    /* the first byte compared inline: memcmp runs only where the needle can start */
    const char first = needle[0];
    for (uint32_t i = from, last = hn - nn; i <= last; i++)
        if (hay[i] == first && memcmp(hay + i + 1, needle + 1, nn - 1) == 0) return i;
    return -1;
}

/* Set difference a - b (both sets), shared by minus and set_diff. */
opa_value *bi_set_diff(const opa_value *a, const opa_value *b);

#endif
