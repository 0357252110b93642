/* graph.reachable (breadth-first from the initial vertices; a vertex counts as reached
 * when it is a key of the graph; edges are arrays or sets, anything else has none) and
 * walk (every [path, value] pair of a value in pre-order: the value itself with path [],
 * then children by ascending key / index / element; a set element is its own key). */
#include "bi_util.h"

OPA_EXPORT opa_value *opa_bi_graph_reachable(opa_value *graph, opa_value *initial)
{
    if (!bi_is(graph, OPA_OBJECT)) return bi_type("graph.reachable", 1, "object", graph);
    if (!bi_is_collection(initial)) return bi_type("graph.reachable", 2, "one of {set, array}", initial);
    opa_value *reached = opa_set(), *queue = opa_array();
    for (uint32_t i = 0, n = bi_len(initial); i < n; i++) opa_array_append(queue, bi_elem(initial, i));
    for (uint32_t head = 0; head < bi_len(queue); head++) {
        opa_value *node = opa_array_at(queue, head), *edges = opa_value_get(graph, node);
        if (!edges || opa_set_contains(reached, node)) continue;
        opa_set_add(reached, node);
        if (!bi_is_collection(edges)) continue;
        for (uint32_t i = 0, n = bi_len(edges); i < n; i++) {
            opa_value *next = bi_elem(edges, i);
            if (!opa_set_contains(reached, next)) opa_array_append(queue, next);
        }
    }
    return reached;
}

static void walk_into(opa_value *out, opa_value *path, opa_value *v)
{
    opa_value *pair = opa_array_with_cap(2);
    opa_array_append(pair, path);
    opa_array_append(pair, v);
    opa_array_append(out, pair);
    if (v->type != OPA_ARRAY && v->type != OPA_OBJECT && v->type != OPA_SET) return;
    uint32_t depth = bi_len(path);
    for (uint32_t i = 0, n = bi_len(v); i < n; i++) {
        opa_value *key, *child;
        if (v->type == OPA_ARRAY) {
            key = opa_number_int(i);
            child = opa_array_at(v, i);
        } else if (v->type == OPA_OBJECT) {
            key = opa_object_key_at(v, i);
            child = opa_object_value_at(v, i);
        } else {
            key = child = opa_set_at(v, i);
        }
        opa_value *sub = opa_array_with_cap((int32_t)depth + 1);
        for (uint32_t k = 0; k < depth; k++) opa_array_append(sub, opa_array_at(path, k));
        opa_array_append(sub, key);
        walk_into(out, sub, child);
    }
}

OPA_EXPORT opa_value *opa_bi_walk(opa_value *v)
{
    opa_value *out = opa_array();
    walk_into(out, opa_array(), v);
    return out;
}
