/* Arithmetic and number builtins: plus, minus (numbers and sets), mul, div, rem, abs,
 * round, ceil, floor, numbers.range, to_number. All arithmetic is the core's exact
 * decimal arithmetic (opa.h, NUMBERS); errors (division by zero, modulo of non-integers,
 * wrong types) are undefined. */
#include "bi_util.h"

static bool both_numbers(const opa_value *a, const opa_value *b)
{
    return bi_is(a, OPA_NUMBER) && bi_is(b, OPA_NUMBER);
}

OPA_EXPORT opa_value *opa_bi_plus(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_add(a, b) : 0;
}

OPA_EXPORT opa_value *opa_bi_minus(opa_value *a, opa_value *b)
{
    if (both_numbers(a, b)) return opa_number_sub(a, b);
    if (bi_is(a, OPA_SET) && bi_is(b, OPA_SET)) return bi_set_diff(a, b);
    return 0;
}

OPA_EXPORT opa_value *opa_bi_mul(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_mul(a, b) : 0;
}

OPA_EXPORT opa_value *opa_bi_div(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_div(a, b) : 0;
}

OPA_EXPORT opa_value *opa_bi_rem(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_rem(a, b) : 0;
}

OPA_EXPORT opa_value *opa_bi_abs(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_abs(a) : 0; }
OPA_EXPORT opa_value *opa_bi_round(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_round(a) : 0; }
OPA_EXPORT opa_value *opa_bi_ceil(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_ceil(a) : 0; }
OPA_EXPORT opa_value *opa_bi_floor(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_floor(a) : 0; }

/* Integers from a to b inclusive, ascending or descending. */
OPA_EXPORT opa_value *opa_bi_numbers_range(opa_value *a, opa_value *b)
{
    if (!both_numbers(a, b) || !opa_number_is_integral(a) || !opa_number_is_integral(b)) return 0;
    int64_t x, y;
    opa_value *arr;
    if (opa_number_try_int(a, &x) && opa_number_try_int(b, &y)) {
        uint64_t n = (x <= y ? (uint64_t)y - (uint64_t)x : (uint64_t)x - (uint64_t)y) + 1;
        if (n > INT32_MAX) opa_abort("numbers.range: range too large");
        arr = opa_array_with_cap((int32_t)n);
        for (uint64_t k = 0; k < n; k++)
            opa_array_append(arr, opa_number_int(x <= y ? x + (int64_t)k : x - (int64_t)k));
        return arr;
    }
    /* Beyond int64: step with exact arithmetic. */
    bool up = opa_number_compare(a, b) <= 0;
    opa_value *step = opa_number_int(up ? 1 : -1);
    arr = opa_array();
    for (opa_value *i = opa_number_add(a, opa_number_int(0));
         up ? opa_number_compare(i, b) <= 0 : opa_number_compare(i, b) >= 0; i = opa_number_add(i, step))
        opa_array_append(arr, i);
    return arr;
}

/* Go's strconv.ParseFloat decimal syntax: [+-] digits [. digits] [(e|E) [+-] digits],
 * digits on at least one side of the point. Rewritten as a JSON number text (no '+',
 * no leading zeros, no bare point) for opa_number_parse. Hex floats and underscores
 * (which ParseFloat accepts only with a base prefix) are rejected. */
static opa_value *parse_go_float(const char *s, uint32_t n)
{
    uint32_t i = 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, n + 4);
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (s[i] == '-') opa_strbuf_putc(&sb, '-');
        i++;
    }
    uint32_t int_start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    uint32_t int_end = i, frac_start = i, frac_end = i;
    if (i < n && s[i] == '.') {
        frac_start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        frac_end = i;
    }
    if (int_end == int_start && frac_end == frac_start) goto bad;
    uint32_t z = int_start;
    while (z + 1 < int_end && s[z] == '0') z++; /* drop leading zeros */
    if (z == int_end) opa_strbuf_putc(&sb, '0');
    else opa_strbuf_append(&sb, s + z, int_end - z);
    if (frac_end > frac_start) {
        opa_strbuf_putc(&sb, '.');
        opa_strbuf_append(&sb, s + frac_start, frac_end - frac_start);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        opa_strbuf_putc(&sb, 'e');
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) opa_strbuf_putc(&sb, s[i++]);
        uint32_t e = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e) goto bad;
        opa_strbuf_append(&sb, s + e, i - e);
    }
    if (i != n) goto bad;
    opa_value *v = opa_number_parse(sb.buf, sb.len);
    opa_strbuf_free(&sb);
    return v;
bad:
    opa_strbuf_free(&sb);
    return 0;
}

/* Smallest magnitude ParseFloat rejects as out of range (MaxFloat64 + half an ulp). */
static const char FLOAT64_OVERFLOW[] = "1.797693134862315807937289714053034150799e308";

OPA_EXPORT opa_value *opa_bi_to_number(opa_value *a)
{
    switch (a->type) {
    case OPA_NULL: return opa_number_int(0);
    case OPA_BOOLEAN: return opa_number_int(opa_value_is_true(a) ? 1 : 0);
    case OPA_NUMBER: return a;
    case OPA_STRING: break;
    default: return 0;
    }
    const opa_string_t *s = opa_cast_string(a);
    opa_value *v = parse_go_float(s->v, s->len); /* inf/infinity/nan are not digits: undefined */
    if (!v) return 0;
    opa_value *limit = opa_number_parse(FLOAT64_OVERFLOW, sizeof FLOAT64_OVERFLOW - 1);
    if (opa_number_compare(opa_number_abs(v), limit) >= 0) return 0;
    return v;
}
