/* decimal.c: exact arbitrary-precision decimal arithmetic for numbers.
 *
 * A decimal is sign * coef * 10^exp with coef a natural number in base-1e9
 * limbs (little endian, no leading zero limbs; n == 0 means zero). INT
 * numbers take int64 fast paths; everything else goes through decimals. See
 * NUMBERS in opa.h for the result formats and the division rule. Operations
 * whose exact result would need more than DEC_MAX_DIGITS digits (e.g.
 * 1e999999 + 1) are undefined (NULL) instead of exhausting memory. */
#include "internal.h"

#define BASE 1000000000u
#define DEC_MAX_DIGITS 100000
#define DIV_DIGITS OPA_DIV_DIGITS
#define EXP_LIMIT 1000000000LL

typedef struct {
    int neg;
    int64_t exp;
    uint32_t n, cap;
    uint32_t *d;
} dec;

static const uint32_t POW10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                   1000000000};

static void dec_init(dec *x) { x->neg = 0; x->exp = 0; x->n = 0; x->cap = 0; x->d = NULL; }
static void dec_free(dec *x) { if (x->d) opa_free(x->d); dec_init(x); }

static void dec_reserve(dec *x, uint32_t cap) {
    if (cap <= x->cap) return;
    x->d = opa_realloc(x->d, cap * sizeof(uint32_t));
    x->cap = cap;
}

static void dec_trim(dec *x) {
    while (x->n && x->d[x->n - 1] == 0) x->n--;
    if (!x->n) x->neg = 0;
}

static void dec_set_u64(dec *x, uint64_t u) {
    dec_reserve(x, 3);
    x->n = 0;
    while (u) { x->d[x->n++] = (uint32_t)(u % BASE); u /= BASE; }
    x->exp = 0;
    x->neg = 0;
}

static void dec_copy(dec *dst, const dec *src) {
    dec_reserve(dst, src->n + 1);
    if (src->n) memcpy(dst->d, src->d, src->n * sizeof(uint32_t));
    dst->n = src->n;
    dst->neg = src->neg;
    dst->exp = src->exp;
}

static uint32_t ndigits_u32(uint32_t v) {
    uint32_t k = 1;
    while (k < 10 && v >= POW10[k]) k++;
    return k;
}

static int64_t dec_digits(const dec *x) {
    if (!x->n) return 0;
    return (int64_t)(x->n - 1) * 9 + ndigits_u32(x->d[x->n - 1]);
}

/* coef = coef * m + add (m, add < BASE). */
static void mag_mul_small(dec *x, uint32_t m, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t i = 0; i < x->n; i++) {
        uint64_t t = (uint64_t)x->d[i] * m + carry;
        x->d[i] = (uint32_t)(t % BASE);
        carry = t / BASE;
    }
    if (carry) { dec_reserve(x, x->n + 1); x->d[x->n++] = (uint32_t)carry; }
}

/* coef /= m (m < BASE); returns the remainder. */
static uint32_t mag_div_small(dec *x, uint32_t m) {
    uint64_t r = 0;
    for (uint32_t i = x->n; i-- > 0;) {
        uint64_t cur = r * BASE + x->d[i];
        x->d[i] = (uint32_t)(cur / m);
        r = cur % m;
    }
    while (x->n && x->d[x->n - 1] == 0) x->n--;
    return (uint32_t)r;
}

/* coef *= 10^k (k >= 0); exp unchanged. */
static void mag_scale10(dec *x, int64_t k) {
    if (!x->n || k <= 0) return;
    uint32_t limbs = (uint32_t)(k / 9);
    if (limbs) {
        dec_reserve(x, x->n + limbs + 1);
        memmove(x->d + limbs, x->d, x->n * sizeof(uint32_t));
        memset(x->d, 0, limbs * sizeof(uint32_t));
        x->n += limbs;
    }
    if (k % 9) mag_mul_small(x, POW10[k % 9], 0);
}

/* Removes trailing decimal zeros of coef (exp grows). */
static void dec_strip(dec *x) {
    if (!x->n) { x->exp = 0; return; }
    uint32_t z = 0;
    while (x->d[z] == 0) z++;
    if (z) {
        memmove(x->d, x->d + z, (x->n - z) * sizeof(uint32_t));
        x->n -= z;
        x->exp += 9 * (int64_t)z;
    }
    uint32_t k = 0;
    while (k < 8 && x->d[0] % POW10[k + 1] == 0) k++;
    if (k) { mag_div_small(x, POW10[k]); x->exp += k; }
}

static int mag_cmp(const dec *a, const dec *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (uint32_t i = a->n; i-- > 0;) {
        if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
    }
    return 0;
}

/* r = |a| + |b| (same exp). r may alias a. */
static void mag_add(dec *r, const dec *a, const dec *b) {
    uint32_t n = a->n > b->n ? a->n : b->n;
    dec_reserve(r, n + 1);
    uint32_t carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0) + carry;
        carry = t >= BASE;
        r->d[i] = carry ? t - BASE : t;
    }
    r->n = n;
    if (carry) r->d[r->n++] = 1;
}

/* r = |a| - |b|, requires |a| >= |b| (same exp). r may alias a. */
static void mag_sub(dec *r, const dec *a, const dec *b) {
    dec_reserve(r, a->n + 1);
    int64_t borrow = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = t < 0;
        r->d[i] = (uint32_t)(borrow ? t + BASE : t);
    }
    r->n = a->n;
    while (r->n && r->d[r->n - 1] == 0) r->n--;
}

/* ---------------- conversion from values ---------------- */

/* Parses JSON number text. Returns 0 on invalid text or exponent overflow. */
static int dec_parse(dec *x, const char *s, size_t len) {
    size_t i = 0;
    dec_init(x);
    int neg = 0;
    if (i < len && s[i] == '-') { neg = 1; i++; }
    size_t istart = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    size_t iend = i, fstart = i, fend = i;
    if (iend == istart) return 0;
    if (i < len && s[i] == '.') {
        fstart = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        fend = i;
        if (fend == fstart) return 0;
    }
    int64_t e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        size_t es = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (e < EXP_LIMIT) e = e * 10 + (s[i] - '0');
            i++;
        }
        if (i == es) return 0;
        if (e >= EXP_LIMIT) return 0;
        if (eneg) e = -e;
    }
    if (i != len) return 0;
    size_t nd = (iend - istart) + (fend - fstart);
    dec_reserve(x, (uint32_t)(nd / 9 + 2));
    /* Digits from the right, 9 per limb. */
    uint32_t limb = 0, k = 0;
    x->n = 0;
    for (size_t j = nd; j-- > 0;) {
        size_t pos = j < iend - istart ? istart + j : fstart + (j - (iend - istart));
        limb += (uint32_t)(s[pos] - '0') * POW10[k];
        if (++k == 9) { x->d[x->n++] = limb; limb = 0; k = 0; }
    }
    if (k) x->d[x->n++] = limb;
    x->exp = e - (int64_t)(fend - fstart);
    x->neg = neg;
    dec_trim(x);
    return 1;
}

static int dec_from_value(dec *x, const opa_value *v) {
    const opa_number_t *n = opa_cast_number(v);
    dec_init(x);
    if (n->repr == OPA_NUMBER_REPR_INT) {
        int64_t i = n->v.i;
        dec_set_u64(x, i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i);
        x->neg = i < 0;
        return 1;
    }
    return dec_parse(x, n->v.ref.s, n->v.ref.len);
}

/* x integral and within int64 -> 1. x must be stripped. */
static int dec_to_i64(const dec *x, int64_t *out) {
    if (!x->n) { *out = 0; return 1; }
    if (x->exp < 0 || dec_digits(x) + x->exp > 19) return 0;
    uint64_t u = 0;
    for (uint32_t i = x->n; i-- > 0;) {
        if (u > (UINT64_MAX - x->d[i]) / BASE) return 0;
        u = u * BASE + x->d[i];
    }
    for (int64_t k = 0; k < x->exp; k++) {
        if (u > UINT64_MAX / 10) return 0;
        u *= 10;
    }
    if (x->neg) {
        if (u > (uint64_t)INT64_MAX + 1) return 0;
        *out = (int64_t)(0 - u);
    } else {
        if (u > (uint64_t)INT64_MAX) return 0;
        *out = (int64_t)u;
    }
    return 1;
}

/* ---------------- formatting ---------------- */

static void mag_append_digits(opa_strbuf *sb, const dec *x) {
    if (!x->n) { opa_strbuf_putc(sb, '0'); return; }
    opa_strbuf_append_uint(sb, x->d[x->n - 1]);
    for (uint32_t i = x->n - 1; i-- > 0;) {
        char buf[9];
        uint32_t v = x->d[i];
        for (int k = 8; k >= 0; k--) { buf[k] = (char)('0' + v % 10); v /= 10; }
        opa_strbuf_append(sb, buf, 9);
    }
}

/* Canonical text of a stripped decimal (see opa.h NUMBERS). */
static void dec_append(opa_strbuf *sb, const dec *x) {
    if (!x->n) { opa_strbuf_putc(sb, '0'); return; }
    if (x->neg) opa_strbuf_putc(sb, '-');
    if (x->exp >= 0) {
        mag_append_digits(sb, x);
        for (int64_t k = 0; k < x->exp; k++) opa_strbuf_putc(sb, '0');
        return;
    }
    opa_strbuf digits;
    opa_strbuf_init(&digits, 32);
    mag_append_digits(&digits, x);
    int64_t nd = (int64_t)digits.len, dp = nd + x->exp, adj = dp - 1;
    if (adj < -4) {
        opa_strbuf_putc(sb, digits.buf[0]);
        if (nd > 1) { opa_strbuf_putc(sb, '.'); opa_strbuf_append(sb, digits.buf + 1, (size_t)nd - 1); }
        opa_strbuf_append(sb, "e-", 2);
        if (-adj < 10) opa_strbuf_putc(sb, '0');
        opa_strbuf_append_int(sb, -adj);
    } else if (dp > 0) {
        opa_strbuf_append(sb, digits.buf, (size_t)dp);
        opa_strbuf_putc(sb, '.');
        opa_strbuf_append(sb, digits.buf + dp, (size_t)(nd - dp));
    } else {
        opa_strbuf_append(sb, "0.", 2);
        for (int64_t k = 0; k < -dp; k++) opa_strbuf_putc(sb, '0');
        opa_strbuf_append(sb, digits.buf, (size_t)nd);
    }
    opa_strbuf_free(&digits);
}

/* Value of a decimal: INT when integral within int64, else REF text.
 * Consumes x. */
static opa_value *dec_to_value(dec *x) {
    dec_strip(x);
    int64_t i;
    opa_value *r;
    if (dec_to_i64(x, &i)) {
        r = opa_number_int(i);
    } else {
        opa_strbuf sb;
        opa_strbuf_init(&sb, 32);
        dec_append(&sb, x);
        size_t len = sb.len;
        r = opa_number_ref(opa_strbuf_to_cstr(&sb), len);
        opa_cast_number(r)->v.ref.free = 1;
    }
    dec_free(x);
    return r;
}

/* ---------------- arithmetic ---------------- */

/* Brings a and b to the same exponent (the smaller). 0 if too large. */
static int dec_align(dec *a, dec *b) {
    if (!a->n) { a->exp = b->exp; return 1; }
    if (!b->n) { b->exp = a->exp; return 1; }
    dec *hi = a->exp > b->exp ? a : b, *lo = hi == a ? b : a;
    int64_t diff = hi->exp - lo->exp;
    if (diff + dec_digits(hi) > DEC_MAX_DIGITS) return 0;
    mag_scale10(hi, diff);
    hi->exp = lo->exp;
    return 1;
}

/* r = a + b (sub: a - b). Consumes a and b into r. */
static int dec_addsub(dec *r, dec *a, dec *b, int sub) {
    if (sub) b->neg = !b->neg && b->n;
    if (!dec_align(a, b)) return 0;
    if (a->neg == b->neg) {
        mag_add(a, a, b);
    } else if (mag_cmp(a, b) >= 0) {
        mag_sub(a, a, b);
    } else {
        mag_sub(b, b, a);
        dec t = *a; *a = *b; *b = t;
    }
    dec_trim(a);
    *r = *a;
    dec_init(a);
    dec_free(b);
    return 1;
}

static int dec_mul(dec *r, const dec *a, const dec *b) {
    dec_init(r);
    if (!a->n || !b->n) return 1;
    if (dec_digits(a) + dec_digits(b) > DEC_MAX_DIGITS) return 0;
    dec_reserve(r, a->n + b->n);
    memset(r->d, 0, (a->n + b->n) * sizeof(uint32_t));
    for (uint32_t i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (uint32_t j = 0; j < b->n; j++) {
            uint64_t t = (uint64_t)a->d[i] * b->d[j] + r->d[i + j] + carry;
            r->d[i + j] = (uint32_t)(t % BASE);
            carry = t / BASE;
        }
        uint32_t k = i + b->n;
        while (carry) {
            uint64_t t = (uint64_t)r->d[k] + carry;
            r->d[k++] = (uint32_t)(t % BASE);
            carry = t / BASE;
        }
    }
    r->n = a->n + b->n;
    r->exp = a->exp + b->exp;
    r->neg = a->neg != b->neg;
    dec_trim(r);
    return 1;
}

/* Magnitudes: q = u / v, rem = u % v (Knuth D in base 1e9). v != 0. */
static void mag_divmod(const dec *u, const dec *v, dec *q, dec *rem) {
    dec_init(q);
    dec_init(rem);
    if (mag_cmp(u, v) < 0) { dec_copy(rem, u); rem->neg = 0; rem->exp = 0; return; }
    if (v->n == 1) {
        dec_copy(q, u);
        q->neg = 0; q->exp = 0;
        uint32_t r = mag_div_small(q, v->d[0]);
        dec_set_u64(rem, r);
        return;
    }
    uint32_t n = v->n, m = u->n - v->n;
    uint32_t f = BASE / (v->d[n - 1] + 1);
    dec un, vn;
    dec_init(&un); dec_init(&vn);
    dec_copy(&un, u); dec_copy(&vn, v);
    mag_mul_small(&vn, f, 0);
    mag_mul_small(&un, f, 0);
    dec_reserve(&un, u->n + 1);
    if (un.n == u->n) un.d[un.n++] = 0;
    dec_reserve(q, m + 1);
    q->n = m + 1;
    for (uint32_t j = m + 1; j-- > 0;) {
        uint64_t num = (uint64_t)un.d[j + n] * BASE + un.d[j + n - 1];
        uint64_t qhat = num / vn.d[n - 1], rhat = num % vn.d[n - 1];
        while (qhat >= BASE || qhat * vn.d[n - 2] > rhat * BASE + un.d[j + n - 2]) {
            qhat--;
            rhat += vn.d[n - 1];
            if (rhat >= BASE) break;
        }
        int64_t borrow = 0;
        uint64_t carry = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t p = qhat * vn.d[i] + carry;
            carry = p / BASE;
            int64_t t = (int64_t)un.d[i + j] - (int64_t)(p % BASE) - borrow;
            borrow = t < 0;
            un.d[i + j] = (uint32_t)(borrow ? t + BASE : t);
        }
        int64_t t = (int64_t)un.d[j + n] - (int64_t)carry - borrow;
        borrow = t < 0;
        un.d[j + n] = (uint32_t)(borrow ? t + BASE : t);
        if (borrow) { /* add back */
            qhat--;
            uint32_t c = 0;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t s = un.d[i + j] + vn.d[i] + c;
                c = s >= BASE;
                un.d[i + j] = c ? s - BASE : s;
            }
            un.d[j + n] = (uint32_t)(((uint64_t)un.d[j + n] + c) % BASE);
        }
        q->d[j] = (uint32_t)qhat;
    }
    dec_trim(q);
    un.n = n;
    dec_trim(&un);
    mag_div_small(&un, f);
    *rem = un;
    rem->neg = 0;
    rem->exp = 0;
    dec_free(&vn);
}

/* r = a / b, b != 0 (see opa.h NUMBERS): the exact quotient when it is an
 * integer or has at most DIV_DIGITS significant digits, otherwise the
 * quotient rounded half-even to DIV_DIGITS significant digits. */
static int dec_div(dec *r, dec *a, dec *b) {
    dec_init(r);
    if (!a->n) return 1;
    dec_strip(a);
    dec_strip(b);
    /* Scale so that the truncated quotient has >= DIV_DIGITS + 1 digits: a
     * finite quotient with <= DIV_DIGITS digits then leaves no remainder. */
    int64_t k = DIV_DIGITS + 1 + dec_digits(b) - dec_digits(a);
    /* ... and so that the quotient's exponent is <= 0: an integral quotient of more than
     * DIV_DIGITS digits (1000000000000000000001 / 0.2) is then computed exactly. */
    if (k < a->exp - b->exp) k = a->exp - b->exp;
    if (k < 0) k = 0;
    if (k + dec_digits(a) > DEC_MAX_DIGITS) return 0;
    mag_scale10(a, k);
    dec q, rem;
    mag_divmod(a, b, &q, &rem);
    int sticky = rem.n != 0;
    dec_free(&rem);
    q.exp = a->exp - b->exp - k;
    if (!sticky) dec_strip(&q);
    int64_t drop = dec_digits(&q) - DIV_DIGITS;
    if (drop > 0 && (sticky || q.exp < 0)) {
        dec p, qq, tail;
        dec_init(&p);
        dec_set_u64(&p, 1);
        mag_scale10(&p, drop);
        mag_divmod(&q, &p, &qq, &tail);
        mag_mul_small(&tail, 2, 0);
        int c = mag_cmp(&tail, &p);
        if (c > 0 || (c == 0 && (sticky || (qq.n && (qq.d[0] & 1))))) mag_mul_small(&qq, 1, 1);
        qq.exp = q.exp + drop;
        dec_free(&q); dec_free(&tail); dec_free(&p);
        q = qq;
    }
    q.neg = a->neg != b->neg;
    dec_trim(&q);
    *r = q;
    return 1;
}

/* ---------------- value-level API ---------------- */

static int is_num(const opa_value *v) { return v && v->type == OPA_NUMBER; }
static int is_int(const opa_value *v) { return opa_cast_number(v)->repr == OPA_NUMBER_REPR_INT; }
static int64_t ival(const opa_value *v) { return opa_cast_number(v)->v.i; }

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static opa_value *arith(const opa_value *a, const opa_value *b, int op) {
    if (!is_num(a) || !is_num(b)) return NULL;
    if (is_int(a) && is_int(b)) {
        int64_t x = ival(a), y = ival(b), r;
        switch (op) {
        case OP_ADD: if (!__builtin_add_overflow(x, y, &r)) return opa_number_int(r); break;
        case OP_SUB: if (!__builtin_sub_overflow(x, y, &r)) return opa_number_int(r); break;
        case OP_MUL: if (!__builtin_mul_overflow(x, y, &r)) return opa_number_int(r); break;
        default:
            if (y == 0) return NULL;
            if (y != -1 && x % y == 0) return opa_number_int(x / y);
            break;
        }
    }
    dec x, y, r;
    dec_init(&x); dec_init(&y); dec_init(&r);
    if (!dec_from_value(&x, a) || !dec_from_value(&y, b)) { dec_free(&x); dec_free(&y); return NULL; }
    int ok;
    switch (op) {
    case OP_ADD: ok = dec_addsub(&r, &x, &y, 0); break;
    case OP_SUB: ok = dec_addsub(&r, &x, &y, 1); break;
    case OP_MUL: ok = dec_mul(&r, &x, &y); break;
    default: ok = y.n ? dec_div(&r, &x, &y) : 0; break;
    }
    dec_free(&x);
    dec_free(&y);
    return ok ? dec_to_value(&r) : (dec_free(&r), NULL);
}

opa_value *opa_number_add(const opa_value *a, const opa_value *b) { return arith(a, b, OP_ADD); }
opa_value *opa_number_sub(const opa_value *a, const opa_value *b) { return arith(a, b, OP_SUB); }
opa_value *opa_number_mul(const opa_value *a, const opa_value *b) { return arith(a, b, OP_MUL); }
opa_value *opa_number_div(const opa_value *a, const opa_value *b) { return arith(a, b, OP_DIV); }

opa_value *opa_number_rem(const opa_value *a, const opa_value *b) {
    if (!is_num(a) || !is_num(b)) return NULL;
    if (is_int(a) && is_int(b)) {
        int64_t x = ival(a), y = ival(b);
        if (y == 0) return NULL;
        return opa_number_int(y == -1 ? 0 : x % y);
    }
    dec x, y;
    dec_init(&x); dec_init(&y);
    if (!dec_from_value(&x, a) || !dec_from_value(&y, b)) { dec_free(&x); dec_free(&y); return NULL; }
    dec_strip(&x);
    dec_strip(&y);
    opa_value *res = NULL;
    if (x.exp >= 0 && y.exp >= 0 && y.n && x.exp + dec_digits(&x) <= DEC_MAX_DIGITS &&
        y.exp + dec_digits(&y) <= DEC_MAX_DIGITS) {
        mag_scale10(&x, x.exp);
        mag_scale10(&y, y.exp);
        dec q, r;
        mag_divmod(&x, &y, &q, &r);
        r.neg = x.neg && r.n;
        dec_free(&q);
        res = dec_to_value(&r);
    }
    dec_free(&x);
    dec_free(&y);
    return res;
}

opa_value *opa_number_neg(const opa_value *a) {
    if (!is_num(a)) return NULL;
    if (is_int(a) && ival(a) != INT64_MIN) return opa_number_int(-ival(a));
    dec x;
    if (!dec_from_value(&x, a)) { dec_free(&x); return NULL; }
    x.neg = !x.neg && x.n;
    return dec_to_value(&x);
}

opa_value *opa_number_abs(const opa_value *a) {
    if (!is_num(a)) return NULL;
    return opa_number_sign(a) < 0 ? opa_number_neg(a) : opa_number_canonical(a);
}

enum { RND_ROUND, RND_FLOOR, RND_CEIL };

static opa_value *to_integer(const opa_value *a, int mode) {
    if (!is_num(a)) return NULL;
    if (is_int(a)) return opa_number_int(ival(a));
    dec x;
    if (!dec_from_value(&x, a)) { dec_free(&x); return NULL; }
    dec_strip(&x);
    if (x.exp >= 0) return dec_to_value(&x);
    int64_t frac = -x.exp;
    dec q, r, p;
    int up;
    if (frac > dec_digits(&x)) { /* |x| < 0.1...: integer part 0 */
        dec_init(&q);
        up = mode == RND_FLOOR ? x.neg : (mode == RND_CEIL ? !x.neg : 0);
    } else {
        dec_init(&p);
        dec_set_u64(&p, 1);
        mag_scale10(&p, frac);
        mag_divmod(&x, &p, &q, &r);
        if (mode == RND_ROUND) {
            mag_mul_small(&r, 2, 0);
            up = mag_cmp(&r, &p) >= 0;
        } else {
            up = r.n && (mode == RND_FLOOR ? x.neg : !x.neg);
        }
        dec_free(&r);
        dec_free(&p);
    }
    if (up) {
        if (!q.n) dec_set_u64(&q, 1); else mag_mul_small(&q, 1, 1);
    }
    q.neg = x.neg && q.n;
    q.exp = 0;
    dec_free(&x);
    return dec_to_value(&q);
}

opa_value *opa_number_round(const opa_value *a) { return to_integer(a, RND_ROUND); }
opa_value *opa_number_floor(const opa_value *a) { return to_integer(a, RND_FLOOR); }
opa_value *opa_number_ceil(const opa_value *a) { return to_integer(a, RND_CEIL); }

int opa_number_compare(const opa_value *a, const opa_value *b) {
    if (is_int(a) && is_int(b)) return ival(a) < ival(b) ? -1 : (ival(a) > ival(b) ? 1 : 0);
    dec x, y;
    int okx = dec_from_value(&x, a), oky = dec_from_value(&y, b);
    int c;
    if (!okx || !oky) { /* invalid text: order by validity, then bytes */
        c = okx - oky;
    } else {
        int sx = x.n ? (x.neg ? -1 : 1) : 0, sy = y.n ? (y.neg ? -1 : 1) : 0;
        if (sx != sy || sx == 0) {
            c = sx < sy ? -1 : (sx > sy ? 1 : 0);
        } else {
            int64_t ax = dec_digits(&x) + x.exp, ay = dec_digits(&y) + y.exp;
            if (ax != ay) {
                c = ax < ay ? -1 : 1;
            } else {
                dec_align(&x, &y); /* bounded: the digit counts differ by the exp gap */
                c = mag_cmp(&x, &y);
            }
            if (sx < 0) c = -c;
        }
    }
    dec_free(&x);
    dec_free(&y);
    return c;
}

int32_t opa_number_try_int(const opa_value *v, int64_t *out) {
    if (!is_num(v)) return 0;
    if (is_int(v)) { *out = ival(v); return 1; }
    dec x;
    int ok = dec_from_value(&x, v);
    if (ok) { dec_strip(&x); ok = dec_to_i64(&x, out); }
    dec_free(&x);
    return ok;
}

int opa_number_is_integral(const opa_value *v) {
    if (!is_num(v)) return 0;
    if (is_int(v)) return 1;
    dec x;
    int ok = dec_from_value(&x, v);
    if (ok) { dec_strip(&x); ok = x.exp >= 0; }
    dec_free(&x);
    return ok;
}

int opa_number_sign(const opa_value *v) {
    if (is_int(v)) return ival(v) < 0 ? -1 : ival(v) > 0;
    dec x;
    int s = 0;
    if (dec_from_value(&x, v)) s = x.n ? (x.neg ? -1 : 1) : 0;
    dec_free(&x);
    return s;
}

uint32_t opa_number_hash(const opa_value *v) {
    int64_t i;
    if (!opa_number_try_int(v, &i)) {
        dec x;
        uint32_t h = 0x811c9dc5u;
        if (dec_from_value(&x, v)) {
            dec_strip(&x);
            h = (h ^ (uint32_t)x.neg) * 16777619u;
            h = (h ^ (uint32_t)x.exp) * 16777619u;
            for (uint32_t k = 0; k < x.n; k++) h = (h ^ x.d[k]) * 16777619u;
        }
        dec_free(&x);
        return h;
    }
    uint64_t u = (uint64_t)i;
    uint32_t h = (uint32_t)u ^ (uint32_t)(u >> 32) * 0x9e3779b1u;
    return h * 0x85ebca6bu ^ 0x3u;
}

opa_value *opa_number_canonical(const opa_value *v) {
    if (!is_num(v)) return NULL;
    if (is_int(v)) return opa_number_int(ival(v));
    dec x;
    if (!dec_from_value(&x, v)) { dec_free(&x); return NULL; }
    return dec_to_value(&x);
}

void opa_number_append(opa_strbuf *sb, const opa_value *v) {
    const opa_number_t *n = opa_cast_number(v);
    if (n->repr == OPA_NUMBER_REPR_INT) opa_strbuf_append_int(sb, n->v.i);
    else opa_strbuf_append(sb, n->v.ref.s, n->v.ref.len);
}

opa_value *opa_number_to_string(const opa_value *v) {
    if (!is_num(v)) return NULL;
    opa_strbuf sb;
    opa_strbuf_init(&sb, 24);
    opa_number_append(&sb, v);
    return opa_strbuf_to_string(&sb);
}

/* JSON number grammar check without allocating: 1 = valid; *plain = no
 * fraction and no exponent. */
static int number_syntax(const char *s, size_t len, int *plain) {
    size_t i = 0;
    if (i < len && s[i] == '-') i++;
    size_t d = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return 0;
    *plain = 1;
    if (i < len && s[i] == '.') {
        size_t f = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        if (i == f) return 0;
        *plain = 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        size_t e = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e) return 0;
        *plain = 0;
    }
    return i == len;
}

opa_value *opa_number_parse(const char *s, size_t len) {
    int plain;
    if (!number_syntax(s, len, &plain)) return NULL;
    if (!plain) { /* exponent range check */
        dec x;
        int ok = dec_parse(&x, s, len);
        dec_free(&x);
        if (!ok) return NULL;
    }
    if (plain && len <= 20 && !(len == 2 && s[0] == '-' && s[1] == '0')) {
        /* plain integer: INT when it fits */
        uint64_t u = 0;
        int neg = s[0] == '-';
        for (size_t i = (size_t)neg; i < len; i++) u = u * 10 + (uint64_t)(s[i] - '0');
        size_t digits = len - (size_t)neg;
        int fits = digits < 20 && u <= (uint64_t)INT64_MAX + (uint64_t)neg;
        if (fits) return opa_number_int(neg ? (int64_t)(0 - u) : (int64_t)u);
    }
    char *c = opa_malloc(len);
    memcpy(c, s, len);
    opa_value *r = opa_number_ref(c, len);
    opa_cast_number(r)->v.ref.free = 1;
    return r;
}
