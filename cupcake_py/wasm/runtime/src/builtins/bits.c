/* Bitwise builtins on integers of any size (Go math/big semantics): bits.and, bits.or,
 * bits.xor, bits.negate, bits.lsh, bits.rsh. Non-integers and negative shift counts
 * are OPA's type errors (undefined unless strict). */
#include "bi_util.h"
#include "bigint.h"

static opa_value *bitop(const char *name, opa_value *a, opa_value *b, enum big_bitop op)
{
    int64_t x, y;
    if (bi_int(a, &x) && bi_int(b, &y))
        return opa_number_int(op == BIG_AND ? (x & y) : op == BIG_OR ? (x | y) : (x ^ y));
    bigint p, q;
    if (!big_from_number(a, &p)) return bi_want_int(name, 1, a);
    if (!big_from_number(b, &q)) return bi_want_int(name, 2, b);
    bigint r = big_bitop(&p, &q, op);
    return big_to_number(&r);
}

OPA_EXPORT opa_value *opa_bi_bits_and(opa_value *a, opa_value *b) { return bitop("bits.and", a, b, BIG_AND); }
OPA_EXPORT opa_value *opa_bi_bits_or(opa_value *a, opa_value *b) { return bitop("bits.or", a, b, BIG_OR); }
OPA_EXPORT opa_value *opa_bi_bits_xor(opa_value *a, opa_value *b) { return bitop("bits.xor", a, b, BIG_XOR); }

/* ~x = -x - 1 */
OPA_EXPORT opa_value *opa_bi_bits_negate(opa_value *a)
{
    int64_t x;
    if (bi_int(a, &x)) return opa_number_int(~x);
    if (!bi_is(a, OPA_NUMBER) || !opa_number_is_integral(a)) return bi_want_int("bits.negate", 1, a);
    return opa_number_sub(opa_number_neg(a), opa_number_int(1));
}

/* Shift count: a non-negative integer; counts beyond 2^31 are refused (the result
 * could not be held in memory). False after reporting the error of builtin `name`. */
static bool shift_count(const char *name, const opa_value *b, uint32_t *out)
{
    int64_t k;
    if (!bi_int(b, &k)) {
        if (!bi_is(b, OPA_NUMBER) || !opa_number_is_integral(b)) return bi_want_int(name, 2, b), false;
        return opa_builtin_type_error(name, 2, "an unsigned integer number", "a big integer"), false;
    }
    if (k < 0) return opa_builtin_type_error(name, 2, "an unsigned integer number", "a negative integer"), false;
    if (k > INT32_MAX) return bi_fail(name, "shift count too large"), false;
    *out = (uint32_t)k;
    return true;
}

OPA_EXPORT opa_value *opa_bi_bits_lsh(opa_value *a, opa_value *b)
{
    uint32_t k;
    bigint x;
    if (!big_from_number(a, &x)) return bi_want_int("bits.lsh", 1, a);
    if (!shift_count("bits.lsh", b, &k)) return 0;
    bigint r = big_shl(&x, k);
    return big_to_number(&r);
}

OPA_EXPORT opa_value *opa_bi_bits_rsh(opa_value *a, opa_value *b)
{
    uint32_t k;
    int64_t x;
    if (!bi_is(a, OPA_NUMBER) || !opa_number_is_integral(a)) return bi_want_int("bits.rsh", 1, a);
    if (!shift_count("bits.rsh", b, &k)) return 0;
    if (bi_int(a, &x)) return opa_number_int(k >= 63 ? (x < 0 ? -1 : 0) : x >> k);
    bigint v;
    if (!big_from_number(a, &v)) return 0;
    bigint r = big_shr(&v, k);
    return big_to_number(&r);
}
