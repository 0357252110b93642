/* Comparison builtins (==, !=, <, <=, >, >=) over Rego's total order of all values. */
#include "bi_util.h"

OPA_EXPORT opa_value *opa_bi_equal(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) == 0); }
OPA_EXPORT opa_value *opa_bi_neq(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) != 0); }
OPA_EXPORT opa_value *opa_bi_lt(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) < 0); }
OPA_EXPORT opa_value *opa_bi_lte(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) <= 0); }
OPA_EXPORT opa_value *opa_bi_gt(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) > 0); }
OPA_EXPORT opa_value *opa_bi_gte(opa_value *a, opa_value *b) { return opa_boolean(opa_value_compare(a, b) >= 0); }
