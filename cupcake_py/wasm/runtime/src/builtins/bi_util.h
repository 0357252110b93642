/* Shared inline helpers of the native builtins (operand checks and small results).
 * Conventions (opa.h, NATIVE BUILTINS): arguments are never NULL, NULL = undefined,
 * errors are reported with bi_fail / bi_type (NULL unless strict: opa.h, STRICT BUILTIN
 * ERRORS), arguments are never mutated. */
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

/* An error of builtin `name` (NULL unless strict). */
static inline opa_value *bi_fail(const char *name, const char *msg) { return opa_builtin_error(name, msg); }

/* Operand n (1-based) of `name` is not of type `want` (NULL unless strict). */
static inline opa_value *bi_type(const char *name, int n, const char *want, const opa_value *got)
{
    return opa_builtin_type_error(name, n, want, opa_type_name(got));
}

/* An element of collection operand n is not of type `want`: OPA's NewOperandElementErr,
 * "operand n must be array of object but got array containing string". */
opa_value *bi_element_type(const char *name, int n, const char *want, const opa_value *coll, const opa_value *elem);

/* An error of `name` about string s: "<before><s><after>", s quoted as Go's %q when `quoted`
 * (NULL unless strict; the message is built only then). */
opa_value *bi_fail_about(const char *name, const char *before, const opa_string_t *s, bool quoted,
                         const char *after);

/* OPA's NewOperandErr: "operand n <msg>" as a type error (NULL unless strict). */
opa_value *bi_fail_operand(const char *name, int n, const char *msg);

/* Operand n should be a number: OPA's NumberOperand error. */
static inline opa_value *bi_want_number(const char *name, int n, const opa_value *got)
{
    return bi_type(name, n, "number", got);
}

/* Operand n should be an integer: OPA's IntOperand/BigIntOperand errors. */
static inline opa_value *bi_want_int(const char *name, int n, const opa_value *got)
{
    if (!bi_is(got, OPA_NUMBER)) return bi_want_number(name, n, got);
    return opa_builtin_type_error(name, n, "integer number", "floating-point number");
}

/* Operand n should be a string: OPA's StringOperand error. */
static inline opa_value *bi_want_string(const char *name, int n, const opa_value *got)
{
    return bi_type(name, n, "string", got);
}

/* The error of the first of two string operands that is not a string. */
static inline opa_value *bi_want_strings(const char *name, const opa_value *a, const opa_value *b)
{
    return bi_str(a) ? bi_want_string(name, 2, b) : bi_want_string(name, 1, a);
}

/* Set difference a - b (both sets), shared by minus and set_diff. */
opa_value *bi_set_diff(const opa_value *a, const opa_value *b);

#endif
