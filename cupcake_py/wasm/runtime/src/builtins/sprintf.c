/* sprintf.c: the common cases of Rego's sprintf, natively, with the host builtin as fallback.
 *
 * In:  opa_bi_try_sprintf(format, values), the operands of sprintf(format, values).
 * Out: the formatted string, or NULL = "not handled here" (NOT undefined): the generated code
 *      then calls the host builtin `sprintf` (cupcake_py/host/builtins/sprintf.py), which
 *      reproduces OPA's answer for every input, errors included. See opa.h, NATIVE BUILTINS
 *      WITH A HOST FALLBACK.
 *
 * Handled exactly (OPA converts the values to Go arguments, then runs Go's fmt.Sprintf):
 *   - verbs %s %v %d and %% with no flags, width, precision or argument index;
 *   - arguments: strings (Go string), true/false/null (OPA passes their Rego text as a
 *     Go string), numbers held as exact int64 (Go int);
 *   - %s/%v of a string-like argument prints it as is, %d/%v of an int in decimal;
 *   - exactly as many argument-consuming verbs as arguments;
 *   - format and string arguments valid UTF-8.
 * Everything else (floats and big or textual numbers, composite values, other verbs, flags,
 * `%!d(string=x)`-style mismatches, missing or extra arguments, a trailing `%`, operand type
 * errors) returns NULL and the host answers.
 */

#include "bi_util.h"

/* Appends argument v under verb (no flags); false = not a case handled here. */
static bool append_arg(opa_strbuf *sb, char verb, const opa_value *v)
{
    switch (v->type) {
    case OPA_STRING: {
        const opa_string_t *s = opa_cast_string(v);
        if ((verb != 's' && verb != 'v') || !opa_utf8_valid(s->v, s->len)) return false;
        opa_strbuf_append(sb, s->v, s->len);
        return true;
    }
    case OPA_BOOLEAN:
        if (verb != 's' && verb != 'v') return false;
        opa_strbuf_append_cstr(sb, opa_cast_boolean(v)->v ? "true" : "false");
        return true;
    case OPA_NULL:
        if (verb != 's' && verb != 'v') return false;
        opa_strbuf_append_cstr(sb, "null");
        return true;
    case OPA_NUMBER: {
        const opa_number_t *n = opa_cast_number(v);
        if ((verb != 'd' && verb != 'v') || n->repr != OPA_NUMBER_REPR_INT) return false;
        opa_strbuf_append_int(sb, n->v.i);
        return true;
    }
    default:
        return false;
    }
}

OPA_EXPORT opa_value *opa_bi_try_sprintf(opa_value *format, opa_value *values)
{
    const opa_string_t *f = bi_str(format);
    if (!f || values->type != OPA_ARRAY || !opa_utf8_valid(f->v, f->len)) return 0;
    const char *s = f->v;
    uint32_t n = f->len, nargs = bi_len(values), used = 0, i = 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, n + 16);
    while (i < n) {
        uint32_t j = i;
        while (j < n && s[j] != '%') j++;
        opa_strbuf_append(&sb, s + i, j - i);
        if (j == n) break;
        if (j + 1 == n) goto fallback; /* %!(NOVERB) */
        char verb = s[j + 1];
        i = j + 2;
        if (verb == '%') {
            opa_strbuf_putc(&sb, '%');
            continue;
        }
        if (used == nargs || !append_arg(&sb, verb, opa_array_at(values, used))) goto fallback;
        used++;
    }
    if (used != nargs) goto fallback; /* %!(EXTRA ...) */
    return opa_strbuf_to_string(&sb);
fallback:
    opa_strbuf_free(&sb);
    return 0;
}
