/* value.c: value constructors, containers (arrays, hash objects and sets
 * with lazily sorted entries), accessors, total order, hashing, copies,
 * merge and free. */
#include "internal.h"

#define IS_STATIC(p) ((uint32_t)(uintptr_t)(p) < opa_heap_start())

/* ---------------- scalars ---------------- */

/* null, true and false are never changed in place, so every one is the same
 * static value in the runtime's data (below the heap: never freed, untouched
 * by heap resets): no allocation per comparison result or parsed literal. */
static const opa_null_t NULL_VALUE = {OPA_NULL};
static const opa_boolean_t BOOLEANS[2] = {{{OPA_BOOLEAN}, 0}, {{OPA_BOOLEAN}, 1}};

opa_value *opa_null(void) { return (opa_value *)&NULL_VALUE; }

opa_value *opa_boolean(bool b) { return (opa_value *)&BOOLEANS[b ? 1 : 0].hdr; }

opa_value *opa_number_int(int64_t i) {
    opa_number_t *v = opa_malloc(sizeof(opa_number_t));
    v->hdr.type = OPA_NUMBER;
    v->repr = OPA_NUMBER_REPR_INT;
    v->v.i = i;
    return &v->hdr;
}

opa_value *opa_number_ref(const char *s, size_t len) {
    opa_number_t *v = opa_malloc(sizeof(opa_number_t));
    v->hdr.type = OPA_NUMBER;
    v->repr = OPA_NUMBER_REPR_REF;
    v->v.ref.s = s;
    v->v.ref.len = (uint32_t)len;
    v->v.ref.free = 0;
    return &v->hdr;
}

opa_value *opa_number_size(size_t n) { return opa_number_int((int64_t)n); }

void opa_value_number_set_int(opa_value *v, int64_t i) {
    if (!v || v->type != OPA_NUMBER || IS_STATIC(v)) opa_abort("illegal number assignment");
    opa_number_t *n = opa_cast_number(v);
    if (n->repr == OPA_NUMBER_REPR_REF && n->v.ref.free) opa_free((void *)n->v.ref.s);
    n->repr = OPA_NUMBER_REPR_INT;
    n->v.i = i;
}

static opa_value *make_string(const char *s, size_t len, uint8_t owned) {
    opa_string_t *v = opa_malloc(sizeof(opa_string_t));
    v->hdr.type = OPA_STRING;
    v->free = owned;
    v->len = (uint32_t)len;
    v->v = s;
    return &v->hdr;
}

/* The bytes live in the same block, right after the header (free = 0). */
opa_value *opa_string(const char *s, size_t len) {
    opa_string_t *v = opa_malloc(sizeof(opa_string_t) + len);
    char *c = (char *)(v + 1);
    memcpy(c, s, len);
    v->hdr.type = OPA_STRING;
    v->free = 0;
    v->len = (uint32_t)len;
    v->v = c;
    return &v->hdr;
}

opa_value *opa_string_allocated(const char *s, size_t len) { return make_string(s, len, 1); }
opa_value *opa_string_ref(const char *s, size_t len) { return make_string(s, len, 0); }
opa_value *opa_string_cstr(const char *s) { return opa_string(s, strlen(s)); }

/* ---------------- arrays ---------------- */

opa_value *opa_array_with_cap(int32_t cap) {
    opa_array_t *a = opa_malloc(sizeof(opa_array_t));
    a->hdr.type = OPA_ARRAY;
    a->len = 0;
    a->cap = cap > 0 ? (uint32_t)cap : 0;
    a->elems = a->cap ? opa_malloc(a->cap * sizeof(opa_value *)) : NULL;
    return &a->hdr;
}

opa_value *opa_array(void) { return opa_array_with_cap(0); }

void opa_array_append(opa_value *arr, opa_value *v) {
    opa_array_t *a = opa_cast_array(arr);
    if (a->len == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4;
        a->elems = opa_realloc(a->elems, a->cap * sizeof(opa_value *));
    }
    a->elems[a->len++] = v;
}

opa_value *opa_array_at(const opa_value *arr, uint32_t i) { return opa_cast_array(arr)->elems[i]; }

/* Boxed array index for opa_value_iter. Indexes below OPA_SMALL_INDEXES
 * come from a table allocated right at the heap start (mem.c calls
 * opa_index_table_init whenever it sets the heap start), so they are never
 * freed, never mutated and survive every heap reset; larger ones are
 * allocated. Nothing is stored in the array itself, so iterating data loaded
 * before an evaluation leaves no pointers into the evaluation's heap. (A
 * static table would cost its size in the binary: with an imported memory
 * wasm-ld writes .bss out as data.) */
static opa_number_t *small_indexes;

void opa_index_table_init(void) {
    small_indexes = opa_malloc(OPA_SMALL_INDEXES * sizeof(opa_number_t));
    for (uint32_t i = 0; i < OPA_SMALL_INDEXES; i++) {
        small_indexes[i].hdr.type = OPA_NUMBER;
        small_indexes[i].repr = OPA_NUMBER_REPR_INT;
        small_indexes[i].v.i = i;
    }
}

static opa_value *array_index(uint32_t i) {
    if (i >= OPA_SMALL_INDEXES) return opa_number_int(i);
    return &small_indexes[i].hdr;
}

/* ---------------- sorting ---------------- */

void opa_sort_perm(opa_value *const *keys, uint32_t *perm, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    if (n < 2) return;
    uint32_t *tmp = opa_malloc(n * sizeof(uint32_t));
    uint32_t *src = perm, *dst = tmp;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                dst[k++] = opa_value_compare(keys[src[j]], keys[src[i]]) < 0 ? src[j++] : src[i++];
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *t = src; src = dst; dst = t;
    }
    if (src != perm) memcpy(perm, src, n * sizeof(uint32_t));
    opa_free(tmp);
}

opa_value *opa_array_sorted(const opa_value *arr) {
    const opa_array_t *a = opa_cast_array(arr);
    opa_value *r = opa_array_with_cap((int32_t)a->len);
    uint32_t *perm = opa_malloc(a->len * sizeof(uint32_t) + 4);
    opa_sort_perm(a->elems, perm, a->len);
    for (uint32_t i = 0; i < a->len; i++) opa_array_append(r, a->elems[perm[i]]);
    opa_free(perm);
    return r;
}

/* ---------------- hash tables (objects and sets share the scheme) ----------------
 * Entries live in an array; buckets hold 1-based entry indexes chained by
 * `next`. The two entry types differ, so the table code is written once as
 * macros over the entry type. */

#define TABLE_IMPL(PREFIX, T, ET, KEY)                                                     \
    static void PREFIX##_rehash(T *t, uint32_t nb) {                                       \
        if (t->buckets) opa_free(t->buckets);                                              \
        t->n_buckets = nb;                                                                 \
        t->buckets = opa_malloc(nb * sizeof(uint32_t));                                    \
        memset(t->buckets, 0, nb * sizeof(uint32_t));                                      \
        for (uint32_t i = 0; i < t->len; i++) {                                            \
            uint32_t b = t->elems[i].hash & (nb - 1);                                      \
            t->elems[i].next = t->buckets[b];                                              \
            t->buckets[b] = i + 1;                                                         \
        }                                                                                  \
    }                                                                                      \
    static uint32_t PREFIX##_find(const T *t, const opa_value *k, uint32_t h) {            \
        if (!t->n_buckets) return 0;                                                       \
        uint32_t i = t->buckets[h & (t->n_buckets - 1)];                                   \
        while (i) {                                                                        \
            const ET *e = &t->elems[i - 1];                                                \
            if (e->hash == h && (e->KEY == k || opa_value_compare(e->KEY, k) == 0)) return i; \
            i = e->next;                                                                   \
        }                                                                                  \
        return 0;                                                                          \
    }                                                                                      \
    /* Appends a new entry (the key must be absent); returns it. */                        \
    static ET *PREFIX##_append(T *t, opa_value *k, uint32_t h) {                           \
        if (t->len == t->cap) {                                                            \
            t->cap = t->cap ? t->cap * 2 : 4;                                              \
            t->elems = opa_realloc(t->elems, t->cap * sizeof(ET));                         \
        }                                                                                  \
        if (t->sorted && t->len && opa_value_compare(t->elems[t->len - 1].KEY, k) > 0) {   \
            t->sorted = 0;                                                                 \
        }                                                                                  \
        ET *e = &t->elems[t->len++];                                                       \
        e->KEY = k;                                                                        \
        e->hash = h;                                                                       \
        if (t->len * 4 > t->n_buckets * 3) {                                               \
            PREFIX##_rehash(t, t->n_buckets ? t->n_buckets * 2 : 8);                       \
        } else {                                                                           \
            uint32_t b = h & (t->n_buckets - 1);                                           \
            e->next = t->buckets[b];                                                       \
            t->buckets[b] = t->len;                                                        \
        }                                                                                  \
        return e;                                                                          \
    }                                                                                      \
    /* Relinks all entries into the existing buckets (no allocation). */      \
    static void PREFIX##_relink(T *t) {                                                    \
        memset(t->buckets, 0, t->n_buckets * sizeof(uint32_t));                            \
        for (uint32_t i = 0; i < t->len; i++) {                                            \
            uint32_t b = t->elems[i].hash & (t->n_buckets - 1);                            \
            t->elems[i].next = t->buckets[b];                                              \
            t->buckets[b] = i + 1;                                                         \
        }                                                                                  \
    }                                                                                      \
    static void PREFIX##_sift(ET *a, uint32_t i, uint32_t n) {                             \
        for (;;) {                                                                         \
            uint32_t c = 2 * i + 1;                                                        \
            if (c >= n) return;                                                            \
            if (c + 1 < n && opa_value_compare(a[c + 1].KEY, a[c].KEY) > 0) c++;           \
            if (opa_value_compare(a[i].KEY, a[c].KEY) >= 0) return;                        \
            ET tmp = a[i]; a[i] = a[c]; a[c] = tmp;                                        \
            i = c;                                                                         \
        }                                                                                  \
    }                                                                                      \
    /* Sorts in place (heapsort; keys are unique): no allocation, so data   \
     * loaded before an evaluation's heap start stays valid after a reset. */ \
    static void PREFIX##_sort(const T *ct) {                                               \
        T *t = (T *)ct;                                                                    \
        if (t->sorted) return;                                                             \
        uint32_t n = t->len;                                                               \
        t->sorted = 1;                                                                     \
        if (n < 2) return;                                                                 \
        for (uint32_t i = n / 2; i-- > 0;) PREFIX##_sift(t->elems, i, n);                  \
        for (uint32_t end = n - 1; end > 0; end--) {                                       \
            ET tmp = t->elems[0]; t->elems[0] = t->elems[end]; t->elems[end] = tmp;        \
            PREFIX##_sift(t->elems, 0, end);                                               \
        }                                                                                  \
        t->sorted = 1;                                                                     \
        t->hint = 0;                                                                       \
        PREFIX##_relink(t);                                                                \
    }                                                                                      \
    static int PREFIX##_remove(T *t, const opa_value *k) {                                 \
        uint32_t i = PREFIX##_find(t, k, opa_value_hash(k));                               \
        if (!i) return 0;                                                                  \
        memmove(&t->elems[i - 1], &t->elems[i], (t->len - i) * sizeof(ET));               \
        t->len--;                                                                          \
        t->hint = 0;                                                                       \
        PREFIX##_relink(t);                                                                \
        return 1;                                                                          \
    }                                                                                      \
    /* Position after `prev` in sorted order (prev NULL: first). */                        \
    static opa_value *PREFIX##_next(const T *ct, const opa_value *prev) {                  \
        T *t = (T *)ct;                                                                    \
        PREFIX##_sort(t);                                                                  \
        uint32_t i;                                                                        \
        if (!prev) {                                                                       \
            i = 0;                                                                         \
        } else if (t->hint < t->len && t->elems[t->hint].KEY == prev) {                    \
            i = t->hint + 1;                                                               \
        } else {                                                                           \
            i = PREFIX##_find(t, prev, opa_value_hash(prev));                              \
            if (!i) return NULL;                                                           \
        }                                                                                  \
        if (i >= t->len) return NULL;                                                      \
        t->hint = i;                                                                       \
        return t->elems[i].KEY;                                                            \
    }

static opa_value *new_table(uint8_t type, uint32_t n, size_t esize) {
    opa_object_t *t = opa_malloc(sizeof(opa_object_t));
    t->hdr.type = type;
    t->sorted = 1;
    t->len = 0;
    t->cap = n;
    t->elems = n ? opa_malloc(n * esize) : NULL;
    t->buckets = NULL;
    t->n_buckets = 0;
    t->hint = 0;
    return &t->hdr;
}

TABLE_IMPL(obj, opa_object_t, opa_object_elem_t, key)
TABLE_IMPL(set, opa_set_t, opa_set_elem_t, v)

opa_value *opa_object_with_cap(uint32_t n) { return new_table(OPA_OBJECT, n, sizeof(opa_object_elem_t)); }
opa_value *opa_set_with_cap(uint32_t n) { return new_table(OPA_SET, n, sizeof(opa_set_elem_t)); }
opa_value *opa_object(void) { return opa_object_with_cap(0); }
opa_value *opa_set(void) { return opa_set_with_cap(0); }

void opa_object_insert(opa_value *obj, opa_value *key, opa_value *value) {
    opa_object_t *o = opa_cast_object(obj);
    uint32_t h = opa_value_hash(key);
    uint32_t i = obj_find(o, key, h);
    if (i) {
        o->elems[i - 1].value = value;
        return;
    }
    obj_append(o, key, h)->value = value;
}

void opa_set_add(opa_value *set, opa_value *v) {
    opa_set_t *s = opa_cast_set(set);
    uint32_t h = opa_value_hash(v);
    if (!set_find(s, v, h)) set_append(s, v, h);
}

int32_t opa_object_remove(opa_value *obj, const opa_value *key) { return obj_remove(opa_cast_object(obj), key); }
int32_t opa_set_remove(opa_value *set, const opa_value *v) { return set_remove(opa_cast_set(set), v); }

int32_t opa_set_contains(const opa_value *set, const opa_value *v) {
    if (!set || set->type != OPA_SET || !v) return 0;
    return set_find(opa_cast_set(set), v, opa_value_hash(v)) != 0;
}

opa_value *opa_object_key_at(const opa_value *obj, uint32_t i) {
    obj_sort(opa_cast_object(obj));
    return opa_cast_object(obj)->elems[i].key;
}

opa_value *opa_object_value_at(const opa_value *obj, uint32_t i) {
    obj_sort(opa_cast_object(obj));
    return opa_cast_object(obj)->elems[i].value;
}

opa_value *opa_set_at(const opa_value *set, uint32_t i) {
    set_sort(opa_cast_set(set));
    return opa_cast_set(set)->elems[i].v;
}

opa_value *opa_object_get_str(const opa_value *obj, const char *key, size_t len) {
    opa_string_t k = {{OPA_STRING}, 0, (uint32_t)len, key};
    return opa_value_get(obj, &k.hdr);
}

/* ---------------- accessors ---------------- */

int32_t opa_value_type(const opa_value *v) { return v ? v->type : 0; }

int opa_value_is_true(const opa_value *v) {
    return v && v->type == OPA_BOOLEAN && opa_cast_boolean(v)->v;
}

int32_t opa_value_length(const opa_value *v) {
    if (!v) return 0;
    switch (v->type) {
    case OPA_ARRAY: return (int32_t)opa_cast_array(v)->len;
    case OPA_OBJECT: return (int32_t)opa_cast_object(v)->len;
    case OPA_SET: return (int32_t)opa_cast_set(v)->len;
    case OPA_STRING: return (int32_t)opa_utf8_count(opa_cast_string(v)->v, opa_cast_string(v)->len);
    default: return 0;
    }
}

opa_value *opa_value_get(const opa_value *v, const opa_value *key) {
    if (!v || !key) return NULL;
    switch (v->type) {
    case OPA_ARRAY: {
        int64_t i;
        const opa_array_t *a = opa_cast_array(v);
        if (key->type != OPA_NUMBER || !opa_number_try_int(key, &i) || i < 0 || i >= a->len) return NULL;
        return a->elems[i];
    }
    case OPA_OBJECT: {
        const opa_object_t *o = opa_cast_object(v);
        uint32_t i = obj_find(o, key, opa_value_hash(key));
        return i ? o->elems[i - 1].value : NULL;
    }
    case OPA_SET: {
        const opa_set_t *s = opa_cast_set(v);
        uint32_t i = set_find(s, key, opa_value_hash(key));
        return i ? s->elems[i - 1].v : NULL;
    }
    default: return NULL;
    }
}

opa_value *opa_value_iter(const opa_value *v, const opa_value *prev) {
    if (!v) return NULL;
    switch (v->type) {
    case OPA_ARRAY: {
        opa_array_t *a = opa_cast_array(v);
        int64_t i = 0;
        if (prev) {
            if (prev->type != OPA_NUMBER || !opa_number_try_int(prev, &i) || i < 0) return NULL;
            i++;
        }
        return i < a->len ? array_index((uint32_t)i) : NULL;
    }
    case OPA_OBJECT: return obj_next(opa_cast_object(v), prev);
    case OPA_SET: return set_next(opa_cast_set(v), prev);
    default: return NULL;
    }
}

/* Scanning by position (the code generator's ScanStmt): no key lookup per step. */
opa_value *opa_value_key_at(const opa_value *v, uint32_t i) {
    if (!v) return NULL;
    switch (v->type) {
    case OPA_ARRAY: return i < opa_cast_array(v)->len ? array_index(i) : NULL;
    case OPA_OBJECT: {
        opa_object_t *o = opa_cast_object(v);
        obj_sort(o);
        return i < o->len ? o->elems[i].key : NULL;
    }
    case OPA_SET: {
        opa_set_t *s = opa_cast_set(v);
        set_sort(s);
        return i < s->len ? s->elems[i].v : NULL;
    }
    default: return NULL;
    }
}

opa_value *opa_value_value_at(const opa_value *v, uint32_t i) {
    if (!v) return NULL;
    switch (v->type) {
    case OPA_ARRAY: return i < opa_cast_array(v)->len ? opa_cast_array(v)->elems[i] : NULL;
    case OPA_OBJECT: return i < opa_cast_object(v)->len ? opa_cast_object(v)->elems[i].value : NULL;
    case OPA_SET: return i < opa_cast_set(v)->len ? opa_cast_set(v)->elems[i].v : NULL;
    default: return NULL;
    }
}

int32_t opa_value_is_string(const opa_value *v, const char *s, uint32_t n) {
    if (!v || v->type != OPA_STRING) return 0;
    const opa_string_t *x = opa_cast_string(v);
    return x->len == n && memcmp(x->v, s, n) == 0;
}

/* ---------------- total order ---------------- */

static int cmp_bytes(const char *a, uint32_t la, const char *b, uint32_t lb) {
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

int32_t opa_value_compare(const opa_value *a, const opa_value *b) {
    if (a == b) return 0;
    if (!a) return -1;
    if (!b) return 1;
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    switch (a->type) {
    case OPA_NULL: return 0;
    case OPA_BOOLEAN: return (int)opa_cast_boolean(a)->v - (int)opa_cast_boolean(b)->v;
    case OPA_NUMBER: return opa_number_compare(a, b);
    case OPA_STRING: {
        const opa_string_t *x = opa_cast_string(a), *y = opa_cast_string(b);
        return cmp_bytes(x->v, x->len, y->v, y->len);
    }
    case OPA_ARRAY: {
        const opa_array_t *x = opa_cast_array(a), *y = opa_cast_array(b);
        uint32_t n = x->len < y->len ? x->len : y->len;
        for (uint32_t i = 0; i < n; i++) {
            int c = opa_value_compare(x->elems[i], y->elems[i]);
            if (c) return c;
        }
        return x->len < y->len ? -1 : (x->len > y->len ? 1 : 0);
    }
    case OPA_OBJECT: {
        const opa_object_t *x = opa_cast_object(a), *y = opa_cast_object(b);
        obj_sort(x);
        obj_sort(y);
        uint32_t n = x->len < y->len ? x->len : y->len;
        for (uint32_t i = 0; i < n; i++) {
            int c = opa_value_compare(x->elems[i].key, y->elems[i].key);
            if (c) return c;
            c = opa_value_compare(x->elems[i].value, y->elems[i].value);
            if (c) return c;
        }
        return x->len < y->len ? -1 : (x->len > y->len ? 1 : 0);
    }
    case OPA_SET: {
        const opa_set_t *x = opa_cast_set(a), *y = opa_cast_set(b);
        set_sort(x);
        set_sort(y);
        uint32_t n = x->len < y->len ? x->len : y->len;
        for (uint32_t i = 0; i < n; i++) {
            int c = opa_value_compare(x->elems[i].v, y->elems[i].v);
            if (c) return c;
        }
        return x->len < y->len ? -1 : (x->len > y->len ? 1 : 0);
    }
    default: opa_abort("illegal value");
    }
}

int opa_value_equal(const opa_value *a, const opa_value *b) { return opa_value_compare(a, b) == 0; }

/* ---------------- hashing ---------------- */

static uint32_t mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

uint32_t opa_value_hash(const opa_value *v) {
    if (!v) return 0;
    switch (v->type) {
    case OPA_NULL: return 0x9e3779b9u;
    case OPA_BOOLEAN: return opa_cast_boolean(v)->v ? 1231u : 1237u;
    case OPA_NUMBER: return opa_number_hash(v);
    case OPA_STRING: {
        const opa_string_t *s = opa_cast_string(v);
        uint32_t h = 2166136261u;
        for (uint32_t i = 0; i < s->len; i++) h = (h ^ (uint8_t)s->v[i]) * 16777619u;
        return h;
    }
    case OPA_ARRAY: {
        const opa_array_t *a = opa_cast_array(v);
        uint32_t h = 0x5a5a5a5au;
        for (uint32_t i = 0; i < a->len; i++) h = mix(h * 31u + opa_value_hash(a->elems[i]));
        return h;
    }
    case OPA_OBJECT: {
        const opa_object_t *o = opa_cast_object(v);
        uint32_t h = 0x0b1ec7u;
        for (uint32_t i = 0; i < o->len; i++) {
            h += mix(o->elems[i].hash * 0x9e3779b1u + opa_value_hash(o->elems[i].value));
        }
        return h;
    }
    case OPA_SET: {
        const opa_set_t *s = opa_cast_set(v);
        uint32_t h = 0x5e7u;
        for (uint32_t i = 0; i < s->len; i++) h += mix(s->elems[i].hash);
        return h;
    }
    default: opa_abort("illegal value");
    }
}

/* ---------------- copies, merge, free ---------------- */

opa_value *opa_value_shallow_copy(const opa_value *v) {
    if (!v) return NULL;
    switch (v->type) {
    case OPA_ARRAY: {
        const opa_array_t *a = opa_cast_array(v);
        opa_value *r = opa_array_with_cap((int32_t)a->len);
        if (a->len) memcpy(opa_cast_array(r)->elems, a->elems, a->len * sizeof(opa_value *));
        opa_cast_array(r)->len = a->len;
        return r;
    }
    case OPA_OBJECT:
    case OPA_SET: {
        /* Same struct layout; only the entry size differs. */
        const opa_object_t *t = opa_cast_object(v);
        size_t es = v->type == OPA_OBJECT ? sizeof(opa_object_elem_t) : sizeof(opa_set_elem_t);
        opa_object_t *r = opa_cast_object(new_table(v->type, t->len, es));
        if (t->len) memcpy(r->elems, t->elems, t->len * es);
        r->len = t->len;
        r->sorted = t->sorted;
        if (t->n_buckets) {
            r->n_buckets = t->n_buckets;
            r->buckets = opa_malloc(t->n_buckets * sizeof(uint32_t));
            memcpy(r->buckets, t->buckets, t->n_buckets * sizeof(uint32_t));
        }
        return &r->hdr;
    }
    default: return (opa_value *)v;
    }
}

opa_value *opa_value_deep_copy(const opa_value *v) {
    if (!v) return NULL;
    switch (v->type) {
    case OPA_NULL: return opa_null();
    case OPA_BOOLEAN: return opa_boolean(opa_cast_boolean(v)->v);
    case OPA_NUMBER: {
        const opa_number_t *n = opa_cast_number(v);
        if (n->repr == OPA_NUMBER_REPR_INT) return opa_number_int(n->v.i);
        char *s = opa_malloc(n->v.ref.len);
        memcpy(s, n->v.ref.s, n->v.ref.len);
        opa_value *r = opa_number_ref(s, n->v.ref.len);
        opa_cast_number(r)->v.ref.free = 1;
        return r;
    }
    case OPA_STRING: return opa_string(opa_cast_string(v)->v, opa_cast_string(v)->len);
    case OPA_ARRAY: {
        const opa_array_t *a = opa_cast_array(v);
        opa_value *r = opa_array_with_cap((int32_t)a->len);
        for (uint32_t i = 0; i < a->len; i++) opa_array_append(r, opa_value_deep_copy(a->elems[i]));
        return r;
    }
    case OPA_OBJECT: {
        const opa_object_t *o = opa_cast_object(v);
        opa_value *r = opa_object_with_cap(o->len);
        for (uint32_t i = 0; i < o->len; i++) {
            opa_object_insert(r, opa_value_deep_copy(o->elems[i].key), opa_value_deep_copy(o->elems[i].value));
        }
        return r;
    }
    case OPA_SET: {
        const opa_set_t *s = opa_cast_set(v);
        opa_value *r = opa_set_with_cap(s->len);
        for (uint32_t i = 0; i < s->len; i++) opa_set_add(r, opa_value_deep_copy(s->elems[i].v));
        return r;
    }
    default: opa_abort("illegal value");
    }
}

opa_value *opa_value_merge(opa_value *a, opa_value *b) {
    if (!a) return b;
    if (!b || a->type != OPA_OBJECT || b->type != OPA_OBJECT) return a;
    opa_value *r = opa_value_shallow_copy(a);
    const opa_object_t *ob = opa_cast_object(b);
    for (uint32_t i = 0; i < ob->len; i++) {
        opa_value *k = ob->elems[i].key, *vb = ob->elems[i].value;
        opa_value *va = opa_value_get(a, k);
        opa_object_insert(r, k, va ? opa_value_merge(va, vb) : vb);
    }
    return r;
}

void opa_value_free(opa_value *v) {
    if (!v || IS_STATIC(v)) return;
    switch (v->type) {
    case OPA_NUMBER: {
        opa_number_t *n = opa_cast_number(v);
        if (n->repr == OPA_NUMBER_REPR_REF && n->v.ref.free) opa_free((void *)n->v.ref.s);
        break;
    }
    case OPA_STRING:
        if (opa_cast_string(v)->free) opa_free((void *)opa_cast_string(v)->v);
        break;
    case OPA_ARRAY: {
        opa_array_t *a = opa_cast_array(v);
        for (uint32_t i = 0; i < a->len; i++) opa_value_free(a->elems[i]);
        opa_free(a->elems);
        break;
    }
    case OPA_OBJECT: {
        opa_object_t *o = opa_cast_object(v);
        for (uint32_t i = 0; i < o->len; i++) {
            opa_value_free(o->elems[i].key);
            opa_value_free(o->elems[i].value);
        }
        opa_free(o->elems);
        opa_free(o->buckets);
        break;
    }
    case OPA_SET: {
        opa_set_t *s = opa_cast_set(v);
        for (uint32_t i = 0; i < s->len; i++) opa_value_free(s->elems[i].v);
        opa_free(s->elems);
        opa_free(s->buckets);
        break;
    }
    default: break;
    }
    opa_free(v);
}
