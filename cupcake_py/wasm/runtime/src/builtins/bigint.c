/* Arbitrary-precision integers, see bigint.h. */
#include "bigint.h"

static uint32_t *limbs(uint32_t n) { return opa_malloc((n ? n : 1) * sizeof(uint32_t)); }

static void trim(bigint *a)
{
    while (a->n && a->d[a->n - 1] == 0) a->n--;
    if (!a->n) a->neg = false;
}

static void from_u64(bigint *out, uint64_t m, bool neg)
{
    out->d = limbs(2);
    out->d[0] = (uint32_t)m;
    out->d[1] = (uint32_t)(m >> 32);
    out->n = 2;
    out->neg = neg;
    trim(out);
}

/* magnitude = magnitude * mul + add, in place (capacity must allow one more limb) */
static void mul_add(bigint *a, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (uint32_t i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->d[i] * mul + carry;
        a->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) a->d[a->n++] = (uint32_t)carry;
}

bool big_from_number(const opa_value *v, bigint *out)
{
    int64_t i;
    if (opa_value_type(v) != OPA_NUMBER || !opa_number_is_integral(v)) return false;
    if (opa_number_try_int(v, &i)) {
        uint64_t m = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        from_u64(out, m, i < 0);
        return true;
    }
    /* The canonical text of an integral number is plain digits with an optional '-'. */
    const opa_string_t *t = opa_cast_string(opa_number_to_string(opa_number_canonical(v)));
    const char *s = t->v;
    uint32_t n = t->len, p = 0;
    bool neg = n && s[0] == '-';
    if (neg) p = 1;
    out->d = limbs(n / 9 + 2);
    out->n = 0;
    out->neg = false;
    while (p < n) {
        uint32_t chunk = 0, mul = 1;
        for (uint32_t k = 0; k < 9 && p < n; k++, p++) {
            if (s[p] < '0' || s[p] > '9') return false;
            chunk = chunk * 10 + (uint32_t)(s[p] - '0');
            mul *= 10;
        }
        mul_add(out, mul, chunk);
    }
    out->neg = neg;
    trim(out);
    return true;
}

opa_value *big_to_number(const bigint *a)
{
    if (a->n <= 2) {
        uint64_t m = a->n ? a->d[0] : 0;
        if (a->n == 2) m |= (uint64_t)a->d[1] << 32;
        if (!a->neg && m <= (uint64_t)INT64_MAX) return opa_number_int((int64_t)m);
        if (a->neg && m <= (uint64_t)INT64_MAX + 1) return opa_number_int((int64_t)(0 - m));
    }
    /* Repeated division by 1e9 gives base-1e9 digits, least significant first. */
    uint32_t *q = limbs(a->n), n = a->n, nchunks = 0;
    uint32_t *chunks = limbs(a->n * 2 + 1);
    memcpy(q, a->d, n * sizeof(uint32_t));
    while (n) {
        uint64_t r = 0;
        for (uint32_t i = n; i-- > 0;) {
            uint64_t cur = (r << 32) | q[i];
            q[i] = (uint32_t)(cur / 1000000000u);
            r = cur % 1000000000u;
        }
        chunks[nchunks++] = (uint32_t)r;
        while (n && q[n - 1] == 0) n--;
    }
    opa_strbuf sb;
    opa_strbuf_init(&sb, nchunks * 9 + 2);
    if (a->neg) opa_strbuf_putc(&sb, '-');
    opa_strbuf_append_uint(&sb, chunks[nchunks - 1]);
    for (uint32_t i = nchunks - 1; i-- > 0;) {
        char digits[9];
        uint32_t c = chunks[i];
        for (int k = 8; k >= 0; k--, c /= 10) digits[k] = (char)('0' + c % 10);
        opa_strbuf_append(&sb, digits, 9);
    }
    opa_value *r = opa_number_parse(sb.buf, sb.len);
    opa_strbuf_free(&sb);
    opa_free(q);
    opa_free(chunks);
    return r;
}

void big_append_pow2_base(opa_strbuf *sb, const bigint *a, uint32_t base)
{
    uint32_t bits = base == 2 ? 1 : base == 8 ? 3 : 4;
    if (!a->n) {
        opa_strbuf_putc(sb, '0');
        return;
    }
    if (a->neg) opa_strbuf_putc(sb, '-');
    uint32_t total = a->n * 32, ndig = (total + bits - 1) / bits;
    bool started = false;
    for (uint32_t k = ndig; k-- > 0;) {
        uint32_t v = 0;
        for (uint32_t b = 0; b < bits; b++) {
            uint32_t pos = k * bits + b;
            if (pos < total && (a->d[pos / 32] >> (pos % 32) & 1)) v |= 1u << b;
        }
        if (!v && !started) continue;
        started = true;
        opa_strbuf_putc(sb, "0123456789abcdef"[v]);
    }
}

bigint big_shl(const bigint *a, uint32_t k)
{
    bigint r = {limbs(a->n + k / 32 + 1), a->n + k / 32 + 1, a->neg};
    uint32_t w = k / 32, b = k % 32;
    memset(r.d, 0, r.n * sizeof(uint32_t));
    for (uint32_t i = 0; i < a->n; i++) {
        r.d[i + w] |= a->d[i] << b;
        if (b) r.d[i + w + 1] |= a->d[i] >> (32 - b);
    }
    trim(&r);
    return r;
}

/* |a| >> k, and whether any 1 bit was shifted out */
static bigint mag_shr(const bigint *a, uint32_t k, bool *lost)
{
    uint32_t w = k / 32, b = k % 32;
    *lost = false;
    for (uint32_t i = 0; i < w && i < a->n; i++)
        if (a->d[i]) *lost = true;
    if (w < a->n && b && (a->d[w] & ((1u << b) - 1))) *lost = true;
    bigint r = {limbs(a->n > w ? a->n - w : 1), a->n > w ? a->n - w : 0, false};
    for (uint32_t i = 0; i < r.n; i++) {
        r.d[i] = a->d[i + w] >> b;
        if (b && i + w + 1 < a->n) r.d[i] |= a->d[i + w + 1] << (32 - b);
    }
    trim(&r);
    return r;
}

/* |a| + 1 in place on a fresh copy */
static bigint mag_inc(const bigint *a)
{
    bigint r = {limbs(a->n + 1), a->n, false};
    memcpy(r.d, a->d, a->n * sizeof(uint32_t));
    mul_add(&r, 1, 1);
    return r;
}

bigint big_shr(const bigint *a, uint32_t k)
{
    bool lost;
    bigint r = mag_shr(a, k, &lost);
    if (a->neg && lost) r = mag_inc(&r); /* floor toward -inf */
    r.neg = a->neg;
    trim(&r);
    return r;
}

/* two's complement limbs of width w */
static void to_twos(const bigint *a, uint32_t *out, uint32_t w)
{
    for (uint32_t i = 0; i < w; i++) out[i] = i < a->n ? a->d[i] : 0;
    if (!a->neg) return;
    uint64_t carry = 1;
    for (uint32_t i = 0; i < w; i++) {
        uint64_t t = (uint64_t)(uint32_t)~out[i] + carry;
        out[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

bigint big_bitop(const bigint *a, const bigint *b, enum big_bitop op)
{
    uint32_t w = (a->n > b->n ? a->n : b->n) + 1;
    uint32_t *x = limbs(w), *y = limbs(w);
    to_twos(a, x, w);
    to_twos(b, y, w);
    for (uint32_t i = 0; i < w; i++)
        x[i] = op == BIG_AND ? (x[i] & y[i]) : op == BIG_OR ? (x[i] | y[i]) : (x[i] ^ y[i]);
    bigint r = {x, w, (x[w - 1] >> 31) != 0};
    if (r.neg) { /* magnitude = ~x + 1 */
        bigint tmp = {x, w, true};
        to_twos(&tmp, x, w);
        r.neg = true;
    }
    opa_free(y);
    trim(&r);
    return r;
}
