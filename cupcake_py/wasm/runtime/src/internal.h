/* internal.h: declarations shared by the runtime core only (not part of the
 * builtins' contract; builtins include opa.h). */
#ifndef CUPCAKE_INTERNAL_H
#define CUPCAKE_INTERNAL_H

#include "opa.h"

/* mem.c */
void opa_heap_init(uint32_t base);

/* value.c: boxed array indexes 0..OPA_SMALL_INDEXES-1 (see array_index). */
#define OPA_SMALL_INDEXES 1024
void opa_index_table_init(void);

/* decimal.c */
uint32_t opa_number_hash(const opa_value *v);

/* value.c: sorting of value pointers by the total order (stable merge sort
 * of a permutation). perm receives indexes 0..n-1 ordered by keys. */
void opa_sort_perm(opa_value *const *keys, uint32_t *perm, uint32_t n);

/* strbuf.c: quoted string; html != 0 escapes < > & (JSON), 0 keeps them (Rego). */
void opa_strbuf_append_quoted(opa_strbuf *sb, const char *s, size_t n, int html);

/* Nesting limit for the recursive parser. */
#define OPA_MAX_DEPTH 1000

#endif
