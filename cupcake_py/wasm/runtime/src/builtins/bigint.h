/* Arbitrary-precision signed integers (sign + magnitude in 32-bit limbs, little endian)
 * for bits.* and format_int, with Go math/big semantics: shifts right round toward
 * negative infinity, and/or/xor act on the infinite two's complement form.
 * Limb buffers come from opa_malloc. */
#ifndef CUPCAKE_BI_BIGINT_H
#define CUPCAKE_BI_BIGINT_H

#include "opa.h"

typedef struct {
    uint32_t *d; /* magnitude limbs, no leading zero limbs; n == 0 means 0 */
    uint32_t n;
    bool neg;
} bigint;

/* From an integral number value (INT or REF of any size). False otherwise. */
bool big_from_number(const opa_value *v, bigint *out);
/* To a number value (INT when it fits int64). */
opa_value *big_to_number(const bigint *a);
/* Appends |a| in base 2, 8 or 16 (lower-case digits, "0" for zero), sign first. */
void big_append_pow2_base(opa_strbuf *sb, const bigint *a, uint32_t base);

bigint big_shl(const bigint *a, uint32_t k);
bigint big_shr(const bigint *a, uint32_t k);
enum big_bitop { BIG_AND, BIG_OR, BIG_XOR };
bigint big_bitop(const bigint *a, const bigint *b, enum big_bitop op);

#endif
