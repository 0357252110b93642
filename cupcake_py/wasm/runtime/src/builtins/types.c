/* Type builtins: is_null, is_boolean, is_number, is_string, is_array, is_object, is_set,
 * type_name. */
#include "bi_util.h"

OPA_EXPORT opa_value *opa_bi_is_null(opa_value *a) { return opa_boolean(bi_is(a, OPA_NULL)); }
OPA_EXPORT opa_value *opa_bi_is_boolean(opa_value *a) { return opa_boolean(bi_is(a, OPA_BOOLEAN)); }
OPA_EXPORT opa_value *opa_bi_is_number(opa_value *a) { return opa_boolean(bi_is(a, OPA_NUMBER)); }
OPA_EXPORT opa_value *opa_bi_is_string(opa_value *a) { return opa_boolean(bi_is(a, OPA_STRING)); }
OPA_EXPORT opa_value *opa_bi_is_array(opa_value *a) { return opa_boolean(bi_is(a, OPA_ARRAY)); }
OPA_EXPORT opa_value *opa_bi_is_object(opa_value *a) { return opa_boolean(bi_is(a, OPA_OBJECT)); }
OPA_EXPORT opa_value *opa_bi_is_set(opa_value *a) { return opa_boolean(bi_is(a, OPA_SET)); }

OPA_EXPORT opa_value *opa_bi_type_name(opa_value *a)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object", "set"};
    if (a->type < OPA_NULL || a->type > OPA_SET) return 0;
    return opa_string_cstr(names[a->type - OPA_NULL]);
}
