/* Arithmetic and number builtins: plus, minus (numbers and sets), mul, div, rem, abs,
 * round, ceil, floor, numbers.range, to_number. All arithmetic is the core's exact
 * decimal arithmetic (opa.h, NUMBERS); errors (division by zero, modulo of non-integers,
 * wrong types) are OPA's builtin errors (undefined unless strict). */
#include "bi_util.h"

static bool both_numbers(const opa_value *a, const opa_value *b)
{
    return bi_is(a, OPA_NUMBER) && bi_is(b, OPA_NUMBER);
}

static bool is_zero(const opa_value *n) { return opa_number_compare(n, opa_number_int(0)) == 0; }

/* OPA's type error of a two-number builtin: the first operand that is not a number. */
static opa_value *numbers_error(const char *name, const opa_value *a, const opa_value *b)
{
    return bi_is(a, OPA_NUMBER) ? bi_want_number(name, 2, b) : bi_want_number(name, 1, a);
}

OPA_EXPORT opa_value *opa_bi_plus(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_add(a, b) : numbers_error("plus", a, b);
}

OPA_EXPORT opa_value *opa_bi_minus(opa_value *a, opa_value *b)
{
    if (both_numbers(a, b)) return opa_number_sub(a, b);
    if (bi_is(a, OPA_SET) && bi_is(b, OPA_SET)) return bi_set_diff(a, b);
    if (bi_is(a, OPA_NUMBER)) return bi_type("minus", 2, "number", b);
    if (bi_is(a, OPA_SET)) return bi_type("minus", 2, "set", b);
    return bi_type("minus", 1, "one of {number, set}", a);
}

OPA_EXPORT opa_value *opa_bi_mul(opa_value *a, opa_value *b)
{
    return both_numbers(a, b) ? opa_number_mul(a, b) : numbers_error("mul", a, b);
}

OPA_EXPORT opa_value *opa_bi_div(opa_value *a, opa_value *b)
{
    if (!both_numbers(a, b)) return numbers_error("div", a, b);
    if (is_zero(b)) return bi_fail("div", "divide by zero");
    return opa_number_div(a, b);
}

OPA_EXPORT opa_value *opa_bi_rem(opa_value *a, opa_value *b)
{
    if (!both_numbers(a, b)) return numbers_error("rem", a, b);
    if (!opa_number_is_integral(a) || !opa_number_is_integral(b))
        return bi_fail("rem", "modulo on floating-point number");
    if (is_zero(b)) return bi_fail("rem", "modulo by zero");
    return opa_number_rem(a, b);
}

OPA_EXPORT opa_value *opa_bi_abs(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_abs(a) : bi_want_number("abs", 1, a); }
OPA_EXPORT opa_value *opa_bi_round(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_round(a) : bi_want_number("round", 1, a); }
OPA_EXPORT opa_value *opa_bi_ceil(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_ceil(a) : bi_want_number("ceil", 1, a); }
OPA_EXPORT opa_value *opa_bi_floor(opa_value *a) { return bi_is(a, OPA_NUMBER) ? opa_number_floor(a) : bi_want_number("floor", 1, a); }

/* Integers from a to b inclusive, ascending or descending. */
OPA_EXPORT opa_value *opa_bi_numbers_range(opa_value *a, opa_value *b)
{
    if (!bi_is(a, OPA_NUMBER) || !opa_number_is_integral(a)) return bi_want_int("numbers.range", 1, a);
    if (!bi_is(b, OPA_NUMBER) || !opa_number_is_integral(b)) return bi_want_int("numbers.range", 2, b);
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

/* Whether s is one of the words ParseFloat reads as infinity or NaN ([+-]inf, infinity, nan in
 * any case), which OPA's to_number refuses with a type error. */
static bool not_a_number(const char *s, uint32_t n)
{
    static const char *const words[] = {"inf", "infinity", "nan"};
    uint32_t i = n > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    for (uint32_t w = 0; w < 3; w++) {
        const char *word = words[w];
        uint32_t len = (uint32_t)strlen(word), k = 0;
        if (n - i != len) continue;
        while (k < len && (s[i + k] | 0x20) == word[k]) k++;
        if (k == len) return true;
    }
    return false;
}

/* OPA's message for a string ParseFloat refuses: `strconv.ParseFloat: parsing "x": <why>`. */
static opa_value *parse_error(const opa_string_t *s, const char *why)
{
    return bi_fail_about("to_number", "strconv.ParseFloat: parsing ", s, true, why); /* why: ": invalid syntax" */
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
    default: return bi_type("to_number", 1, "one of {null, boolean, number, string}", a);
    }
    const opa_string_t *s = opa_cast_string(a);
    opa_value *v = parse_go_float(s->v, s->len);
    if (!v) {
        if (not_a_number(s->v, s->len)) return bi_type("to_number", 1, "valid number string", a);
        return parse_error(s, ": invalid syntax");
    }
    opa_value *limit = opa_number_parse(FLOAT64_OVERFLOW, sizeof FLOAT64_OVERFLOW - 1);
    if (opa_number_compare(opa_number_abs(v), limit) >= 0) return parse_error(s, ": value out of range");
    return v;
}
