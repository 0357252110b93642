/* Strict builtin errors (opa.h, STRICT BUILTIN ERRORS): how a native builtin reports an
 * error. Not strict (the default): NULL, the call is undefined. Strict: the evaluation
 * aborts with OPA's error code and message, which the host turns into a builtin error. */
#include "bi_util.h"

static int32_t strict_builtin_errors;

OPA_EXPORT void opa_strict_builtin_errors_set(int32_t on) { strict_builtin_errors = on != 0; }

bool opa_builtin_errors_strict(void) { return strict_builtin_errors != 0; }

const char *opa_type_name(const opa_value *v)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object", "set"};
    return v->type >= OPA_NULL && v->type <= OPA_SET ? names[v->type - OPA_NULL] : "unknown";
}

static _Noreturn void fail(const char *code, const char *name, opa_strbuf *msg)
{
    opa_strbuf sb;
    opa_strbuf_init(&sb, 48 + msg->len);
    opa_strbuf_append_cstr(&sb, code);
    opa_strbuf_append(&sb, ": ", 2);
    opa_strbuf_append_cstr(&sb, name);
    opa_strbuf_append(&sb, ": ", 2);
    opa_strbuf_append(&sb, msg->buf, msg->len);
    opa_abort(opa_strbuf_to_cstr(&sb));
}

opa_value *opa_builtin_error(const char *name, const char *msg)
{
    if (!strict_builtin_errors) return 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, 32);
    opa_strbuf_append_cstr(&sb, msg);
    fail("eval_builtin_error", name, &sb);
}

opa_value *opa_builtin_type_error(const char *name, int operand, const char *want, const char *got)
{
    if (!strict_builtin_errors) return 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, 64);
    opa_strbuf_append(&sb, "operand ", 8);
    opa_strbuf_append_int(&sb, operand);
    opa_strbuf_append(&sb, " must be ", 9);
    opa_strbuf_append_cstr(&sb, want);
    if (got) { /* NULL: OPA's NewOperandEnumErr, which names no type */
        opa_strbuf_append(&sb, " but got ", 9);
        opa_strbuf_append_cstr(&sb, got);
    }
    fail("eval_type_error", name, &sb);
}

opa_value *bi_element_type(const char *name, int n, const char *want, const opa_value *coll, const opa_value *elem)
{
    if (!strict_builtin_errors) return 0;
    opa_strbuf w, g;
    opa_strbuf_init(&w, 32);
    opa_strbuf_append_cstr(&w, opa_type_name(coll));
    opa_strbuf_append(&w, " of ", 4);
    opa_strbuf_append_cstr(&w, want);
    opa_strbuf_init(&g, 32);
    opa_strbuf_append_cstr(&g, opa_type_name(coll));
    opa_strbuf_append(&g, " containing ", 12);
    opa_strbuf_append_cstr(&g, opa_type_name(elem));
    return opa_builtin_type_error(name, n, opa_strbuf_to_cstr(&w), opa_strbuf_to_cstr(&g));
}

opa_value *bi_fail_operand(const char *name, int n, const char *msg)
{
    if (!strict_builtin_errors) return 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, 32);
    opa_strbuf_append(&sb, "operand ", 8);
    opa_strbuf_append_int(&sb, n);
    opa_strbuf_putc(&sb, ' ');
    opa_strbuf_append_cstr(&sb, msg);
    fail("eval_type_error", name, &sb);
}

opa_value *bi_fail_about(const char *name, const char *before, const opa_string_t *s, bool quoted,
                         const char *after)
{
    if (!strict_builtin_errors) return 0;
    opa_strbuf sb;
    opa_strbuf_init(&sb, s->len + 48);
    opa_strbuf_append_cstr(&sb, before);
    if (quoted) opa_strbuf_append_json_string(&sb, s->v, s->len);
    else opa_strbuf_append(&sb, s->v, s->len);
    opa_strbuf_append_cstr(&sb, after);
    fail("eval_builtin_error", name, &sb);
}
