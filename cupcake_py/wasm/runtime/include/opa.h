/*
 * opa.h: the internal API of the cupcake-py C runtime (runtime.wasm).
 *
 * This header is the contract between
 *   - the runtime core (runtime/src/<name>.c),
 *   - the native builtins (runtime/src/builtins/<name>.c),
 *   - the code generator / linker (calls the exported functions by name),
 *   - the wasmtime host (calls the OPA ABI 1.3 exports).
 *
 * Target: wasm32, freestanding C11, no libc. Compiled by the pinned zig
 * (`python -m ziglang cc`) with `-mcpu=mvp`: the emitted code uses only
 * WebAssembly MVP instructions (no bulk-memory, no sign-ext, ...), no
 * function pointers / call_indirect, and imports only
 *   env.memory, env.opa_abort, env.gen_eval.
 *
 * ------------------------------------------------------------------------
 * CONVENTIONS
 *
 * - A value is an `opa_value *` (an i32 address). NULL (0) = undefined.
 * - Every function marked OPA_EXPORT is exported from runtime.wasm under its
 *   C name (the build compiles with -fvisibility=hidden and links with
 *   --export-dynamic, so exactly the OPA_EXPORT symbols are exported).
 * - Values whose address is below the heap start (opa_heap_start(); the
 *   linker's data placed at __heap_base and below) are STATIC: they are never
 *   freed and never mutated. The code generator emits constant strings and
 *   booleans as static data with the exact layouts below.
 * - Values are immutable once shared. Containers are mutated only by the
 *   code that created them (generated code builds objects/sets/arrays with
 *   *_insert / *_add / *_append, then publishes them).
 *
 * NATIVE BUILTINS
 *   A Rego builtin `a.b_c` is implemented natively as
 *       OPA_EXPORT opa_value *opa_bi_a_b_c(opa_value *arg1, ..., opa_value *argN);
 *   (`.` replaced by `_`; e.g. internal.member_2 -> opa_bi_internal_member_2).
 *   Arguments are never NULL. The result is a value, or NULL = undefined
 *   (also for errors, unless strict: see STRICT BUILTIN ERRORS).
 *   Builtins must not mutate their arguments. They may return an argument.
 *   The code generator treats a builtin as native exactly when runtime.wasm
 *   exports its `opa_bi_*` symbol; every other builtin goes to the host.
 *
 * STRICT BUILTIN ERRORS
 *   By default a native builtin's error (a type error, division by zero, a
 *   string that does not parse...) is NULL = undefined, as OPA's default.
 *   After opa_strict_builtin_errors_set(1) (the host calls it once per
 *   instance under --strict-builtin-errors; OPA's StrictBuiltinErrors) the
 *   same error aborts the evaluation with OPA's error code and message:
 *       "eval_builtin_error: <builtin>: <message>"
 *       "eval_type_error: <builtin>: operand <n> must be <type> but got <type>"
 *   Builtins report errors only through opa_builtin_error /
 *   opa_builtin_type_error (they return NULL when not strict); a builtin
 *   that is undefined without an error in OPA (max of an empty array) keeps
 *   returning plain NULL.
 *
 * NATIVE BUILTINS WITH A HOST FALLBACK
 *       OPA_EXPORT opa_value *opa_bi_try_a_b_c(opa_value *arg1, ..., opa_value *argN);
 *   handles the common cases of a host builtin natively. NULL means "not handled
 *   here" (not undefined): the generated code then calls the host builtin with the
 *   same arguments, and the host's answer (a value, undefined or an error) is the
 *   result. Such a builtin stays a host builtin (it keeps its builtin id and host
 *   import); the code generator calls `opa_bi_try_*` first exactly when runtime.wasm
 *   exports it. Every non-NULL result must equal the host builtin's answer.
 *
 * ORDERING (decided from the compliance suite, see docs below)
 *   Objects and sets ITERATE AND DUMP IN SORTED ORDER of their keys/elements
 *   (Rego's total order, opa_value_compare), like OPA's Go evaluator, whose
 *   results the compliance suite's want_result values show: e.g.
 *   walk({{1,2,3}}) visits set elements sorted; json.marshal_with_options
 *   prints object keys sorted. (OPA's own WASM runtime keeps insertion order;
 *   we deliberately do not.) Sorting is lazy: inserts append, the first
 *   ordered access after an out-of-order insert sorts once, IN PLACE
 *   (heapsort, no allocation), so reading data that was loaded before an
 *   evaluation never stores pointers into the evaluation's heap (which the
 *   host resets). Arrays keep their order.
 *
 * NUMBERS
 *   A number is either an INT (exact int64) or a REF (its exact decimal text,
 *   e.g. "1.50", "1e3", "28857836529306024611913"). The text of a REF is
 *   kept as is and dumped as is (numbers round-trip exactly). Arithmetic is
 *   exact decimal arithmetic on arbitrary-precision decimals (no binary
 *   floats anywhere); results that are integral and fit int64 become INT,
 *   others become REF with canonical text:
 *     integral            -> plain digits, no exponent ("1000000000", like Go's
 *                            big.Float Text('f', -1) used by OPA)
 *     non-integral        -> shortest exact decimal ("2.5", "0.1"), using an
 *                            exponent only when the adjusted exponent < -4
 *                            ("1e-05", "1.5e-07"), like Go's %g.
 *   Division is exact when the quotient is an integer or a finite decimal
 *   of at most OPA_DIV_DIGITS (20) significant digits (10/4 = 2.5,
 *   1e109/1e100 = 1000000000); otherwise it is rounded half-even to 20
 *   significant digits (1/3 = 0.33333333333333333333;
 *   Go's 64-bit-mantissa big.Float prints 0.33333333333333333334: documented
 *   deviation in the last digit). Results needing more than 100000 digits
 *   (e.g. 1e99999 + 1e-99999) are undefined. Numbers compare by value: 1 == 1.0 == 1e0,
 *   and hash equally.
 *
 * STRINGS
 *   UTF-8 bytes, length-prefixed, NOT NUL-terminated. The runtime never
 *   validates UTF-8 of strings it is given; helpers treat each invalid byte
 *   as one rune U+FFFD (Go semantics).
 *
 * JSON / REGO TEXT
 *   opa_json_dump: compact JSON (no spaces), sets as arrays (sorted), object
 *   keys sorted, non-string keys stringified with their JSON text
 *   ({[1]:"a"} -> {"[1]":"a"}). String escaping follows Go's encoding/json
 *   (json.Marshal, as OPA's Go engine prints): \" \\ \n \r \t, other
 *   control chars as \u00XX, '<' '>' '&' as \u003c \u003e \u0026, U+2028 and
 *   U+2029 as \u2028 \u2029, invalid UTF-8 bytes as \ufffd.
 *   opa_value_dump: Rego literal text like Go's ast term String():
 *   `[1, 2]`, `{"a": 1, 2: [3]}`, `{1, 2}`, `set()`; strings escaped as
 *   above except that '<' '>' '&' stay as they are.
 *   opa_json_parse: strict JSON (RFC 8259), UTF-8, \u escapes incl. surrogate
 *   pairs; returns NULL on any error. opa_value_parse: additionally sets
 *   (`{1, 2}`, `set()`), non-string object keys, trailing commas, and
 *   backtick raw strings. Duplicate object keys: the last one wins.
 * ------------------------------------------------------------------------
 */
#ifndef CUPCAKE_OPA_H
#define CUPCAKE_OPA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define OPA_EXPORT __attribute__((visibility("default")))
#define OPA_IMPORT(name) __attribute__((import_module("env"), import_name(name)))

/* ======================================================================
 * Value layouts (wasm32: pointers are 4 bytes)
 * ==================================================================== */

enum {
    OPA_NULL = 1,
    OPA_BOOLEAN = 2,
    OPA_NUMBER = 3,
    OPA_STRING = 4,
    OPA_ARRAY = 5,
    OPA_OBJECT = 6,
    OPA_SET = 7,
};

enum { OPA_NUMBER_REPR_INT = 1, OPA_NUMBER_REPR_REF = 2 };

typedef struct opa_value { uint8_t type; } opa_value;

/* {u8 type} */
typedef struct { opa_value hdr; } opa_null_t;

/* {u8 type @0, u8 v @1} (2 bytes; static booleans are emitted by codegen) */
typedef struct { opa_value hdr; uint8_t v; } opa_boolean_t;

/* {u8 type @0, u8 repr @1, union @8}: INT i64 @8; REF {char* s @8, u32 len @12, u8 free @16} */
typedef struct {
    opa_value hdr;
    uint8_t repr;
    union {
        int64_t i;
        struct { const char *s; uint32_t len; uint8_t free; } ref;
    } v;
} opa_number_t;

/* {u8 type @0, u8 free @1, u32 len @4, char* v @8} (12 bytes; static strings
 * are emitted by codegen with free = 0). free = 1: v was opa_malloc'ed and
 * is owned by this value (opa_value_free frees it); free = 0: v is not
 * separately owned. */
typedef struct {
    opa_value hdr;
    uint8_t free;
    uint32_t len;
    const char *v;
} opa_string_t;

/* Arrays: contiguous element pointers. */
typedef struct {
    opa_value hdr;
    uint32_t len;         /* @4 */
    uint32_t cap;         /* @8 */
    opa_value **elems;    /* @12 */
} opa_array_t;

/* Objects and sets: an entry array (sorted lazily, see ORDERING) plus a hash
 * index of chained entry numbers. Internal: use the functions below. */
typedef struct {
    opa_value *key;
    opa_value *value;
    uint32_t hash;
    uint32_t next;        /* 1-based index of the next entry in the bucket, 0 = end */
} opa_object_elem_t;

typedef struct {
    opa_value hdr;
    uint8_t sorted;       /* @1: entries are in sorted key order */
    uint32_t len;         /* @4 */
    uint32_t cap;         /* @8 */
    opa_object_elem_t *elems; /* @12 */
    uint32_t *buckets;    /* @16: 1-based entry index, 0 = empty */
    uint32_t n_buckets;   /* @20: power of two (0 while empty) */
    uint32_t hint;        /* @24: iteration cursor hint (internal) */
} opa_object_t;

typedef struct {
    opa_value *v;
    uint32_t hash;
    uint32_t next;
} opa_set_elem_t;

typedef struct {
    opa_value hdr;
    uint8_t sorted;
    uint32_t len;
    uint32_t cap;
    opa_set_elem_t *elems;
    uint32_t *buckets;
    uint32_t n_buckets;
    uint32_t hint;
} opa_set_t;

#define opa_cast_boolean(v) ((opa_boolean_t *)(v))
#define opa_cast_number(v)  ((opa_number_t *)(v))
#define opa_cast_string(v)  ((opa_string_t *)(v))
#define opa_cast_array(v)   ((opa_array_t *)(v))
#define opa_cast_object(v)  ((opa_object_t *)(v))
#define opa_cast_set(v)     ((opa_set_t *)(v))

/* ======================================================================
 * Host imports
 * ==================================================================== */

/* Fatal error: the host raises. Never returns (the runtime traps if it does). */
OPA_IMPORT("opa_abort") void opa_abort_import(const char *msg);
_Noreturn void opa_abort(const char *msg);

/* ======================================================================
 * Memory
 * ==================================================================== */

/* Allocation: 8-byte aligned, never returns NULL (aborts "out of memory"
 * when memory.grow fails, e.g. at the host's maximum). opa_malloc(0) returns
 * a valid unique block. */
OPA_EXPORT void *opa_malloc(size_t size);
OPA_EXPORT void *opa_realloc(void *ptr, size_t size);
/* Frees a block from opa_malloc. Addresses below the heap start and NULL are
 * ignored; anything else that is not a live block aborts "invalid free". */
OPA_EXPORT void opa_free(void *ptr);
/* The bump pointer. opa_heap_ptr_set(p) discards everything allocated at or
 * above p (and all free lists). */
OPA_EXPORT uint32_t opa_heap_ptr_get(void);
OPA_EXPORT void opa_heap_ptr_set(uint32_t ptr);
/* First heap address (set by opa_rt_init; defaults to __heap_base). */
uint32_t opa_heap_start(void);
/* ABI 1.3: move the free lists aside / put them back / drop the stash. */
OPA_EXPORT void opa_heap_blocks_stash(void);
OPA_EXPORT void opa_heap_blocks_restore(void);
OPA_EXPORT void opa_heap_stash_clear(void);

/* libc replacements (defined by the runtime; the compiler may emit calls). */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

/* ======================================================================
 * Constructors. All results are fresh heap values.
 * ==================================================================== */

OPA_EXPORT opa_value *opa_null(void);
OPA_EXPORT opa_value *opa_boolean(bool v);
OPA_EXPORT opa_value *opa_number_int(int64_t v);
/* REF number over existing text (NOT copied; codegen passes static data).
 * The text must be a valid JSON number. */
OPA_EXPORT opa_value *opa_number_ref(const char *s, size_t len);
/* Number from text, COPIED and validated (JSON number grammar). Integral
 * texts without fraction/exponent that fit int64 become INT. NULL if the
 * text is not a number. */
OPA_EXPORT opa_value *opa_number_parse(const char *s, size_t len);
/* opa_number_int((int64)n): LenStmt. */
OPA_EXPORT opa_value *opa_number_size(size_t n);
/* AssignIntStmt: set a (fresh, heap) number to an INT in place. */
OPA_EXPORT void opa_value_number_set_int(opa_value *v, int64_t i);
/* No float constructor by design: there are no binary floats. */

/* String from bytes, COPIED (value and bytes share one block: free = 0). */
OPA_EXPORT opa_value *opa_string(const char *s, size_t len);
/* String taking ownership of an opa_malloc'ed buffer (free = 1). */
OPA_EXPORT opa_value *opa_string_allocated(const char *s, size_t len);
/* String over bytes that outlive it (not copied, free = 0). */
OPA_EXPORT opa_value *opa_string_ref(const char *s, size_t len);
/* String from a NUL-terminated C string, copied. */
opa_value *opa_string_cstr(const char *s);

OPA_EXPORT opa_value *opa_array(void);
OPA_EXPORT opa_value *opa_array_with_cap(int32_t cap);
OPA_EXPORT opa_value *opa_object(void);
OPA_EXPORT opa_value *opa_set(void);
/* Preallocates room for n entries. */
opa_value *opa_set_with_cap(uint32_t n);
opa_value *opa_object_with_cap(uint32_t n);

/* ======================================================================
 * Container mutation (only on containers you created)
 * ==================================================================== */

OPA_EXPORT void opa_array_append(opa_value *arr, opa_value *v);
/* Adds v unless an equal element exists. */
OPA_EXPORT void opa_set_add(opa_value *set, opa_value *v);
/* Insert or overwrite (the stored key of an existing entry is kept). */
OPA_EXPORT void opa_object_insert(opa_value *obj, opa_value *key, opa_value *value);
/* Removes key if present; returns 1 if removed. */
OPA_EXPORT int32_t opa_object_remove(opa_value *obj, const opa_value *key);
OPA_EXPORT int32_t opa_set_remove(opa_value *set, const opa_value *v);

/* ======================================================================
 * Accessors
 * ==================================================================== */

OPA_EXPORT int32_t opa_value_type(const opa_value *v);
/* array/object/set: element count; string: number of runes (Rego count());
 * scalars: 0. */
OPA_EXPORT int32_t opa_value_length(const opa_value *v);
/* v[key]: array by integral number index, object by key, set: the stored
 * element equal to key. NULL if absent or v is a scalar. */
OPA_EXPORT opa_value *opa_value_get(const opa_value *v, const opa_value *key);
/* Iteration: prev = NULL gives the first key. Arrays: index numbers;
 * objects: keys (sorted); sets: elements (sorted). NULL at the end. */
OPA_EXPORT opa_value *opa_value_iter(const opa_value *v, const opa_value *prev);
/* Membership for sets (1/0). */
OPA_EXPORT int32_t opa_set_contains(const opa_value *set, const opa_value *v);

/* Index access (i < length). Object/set positions follow the sorted order. */
opa_value *opa_array_at(const opa_value *arr, uint32_t i);
opa_value *opa_object_key_at(const opa_value *obj, uint32_t i);
opa_value *opa_object_value_at(const opa_value *obj, uint32_t i);
opa_value *opa_set_at(const opa_value *set, uint32_t i);

/* Convenience: bool value of a boolean (0 for anything else). */
int opa_value_is_true(const opa_value *v);
/* Lookup of a string key in an object without building a value. */
opa_value *opa_object_get_str(const opa_value *obj, const char *key, size_t len);

/* ======================================================================
 * Total order, equality, hashing, copies
 * ==================================================================== */

/* <0, 0, >0 in Rego's total order: null < boolean < number < string < array
 * < object < set; false < true; numbers by value; strings bytewise; arrays
 * lexicographic (shorter prefix first); objects: sorted keys pairwise
 * (key, then value), then length; sets: sorted elements, then length. */
OPA_EXPORT int32_t opa_value_compare(const opa_value *a, const opa_value *b);
/* Scanning by position: the i-th key (arrays: the index; objects and sets: in
 * the sorted order opa_value_iter follows) and the i-th value (objects: the
 * key's value; sets: the element); NULL past the end or for a scalar. */
OPA_EXPORT opa_value *opa_value_key_at(const opa_value *v, uint32_t i);
OPA_EXPORT opa_value *opa_value_value_at(const opa_value *v, uint32_t i);
/* 1 if v is the string of the n bytes at s (a membership test against
 * constant strings without a total-order compare). */
OPA_EXPORT int32_t opa_value_is_string(const opa_value *v, const char *s, uint32_t n);
int opa_value_equal(const opa_value *a, const opa_value *b);
/* Consistent with equality (1, 1.0 and 1e0 hash equally; set/object hashes
 * do not depend on insertion order). */
OPA_EXPORT uint32_t opa_value_hash(const opa_value *v);
/* New top-level container sharing the children; scalars are returned as is. */
OPA_EXPORT opa_value *opa_value_shallow_copy(const opa_value *v);
/* Fully independent copy (static strings are copied to the heap too). */
OPA_EXPORT opa_value *opa_value_deep_copy(const opa_value *v);
/* ObjectMergeStmt: a NULL -> b; either not an object -> a; otherwise a new
 * object with a's keys, keys only in b added, shared keys merged
 * recursively. */
OPA_EXPORT opa_value *opa_value_merge(opa_value *a, opa_value *b);
/* Frees v and (recursively) everything it owns. Static values are ignored.
 * Only for values that are not shared. */
OPA_EXPORT void opa_value_free(opa_value *v);
/* New array with the elements of arr sorted by the total order. */
opa_value *opa_array_sorted(const opa_value *arr);

/* ======================================================================
 * Numbers (value level). All take number values; non-numbers -> NULL.
 * Results are fresh values, exact (see NUMBERS).
 * ==================================================================== */

#define OPA_DIV_DIGITS 20

OPA_EXPORT opa_value *opa_number_add(const opa_value *a, const opa_value *b);
OPA_EXPORT opa_value *opa_number_sub(const opa_value *a, const opa_value *b);
OPA_EXPORT opa_value *opa_number_mul(const opa_value *a, const opa_value *b);
/* NULL on division by zero. */
OPA_EXPORT opa_value *opa_number_div(const opa_value *a, const opa_value *b);
/* Integers only (NULL if either is not integral, or b == 0); the result
 * has the sign of a (Go's %), e.g. -7 % 3 = -1. */
OPA_EXPORT opa_value *opa_number_rem(const opa_value *a, const opa_value *b);
OPA_EXPORT opa_value *opa_number_neg(const opa_value *a);
OPA_EXPORT opa_value *opa_number_abs(const opa_value *a);
/* round: half away from zero (round(2.5) = 3, round(-2.5) = -3). */
OPA_EXPORT opa_value *opa_number_round(const opa_value *a);
OPA_EXPORT opa_value *opa_number_floor(const opa_value *a);
OPA_EXPORT opa_value *opa_number_ceil(const opa_value *a);
/* Numeric comparison (<0, 0, >0). Both must be numbers. */
int opa_number_compare(const opa_value *a, const opa_value *b);
/* 1 and *out set if v is an integral number within int64 (1.0, 1e3 count). */
OPA_EXPORT int32_t opa_number_try_int(const opa_value *v, int64_t *out);
/* 1 if v is an integral number (any size). */
int opa_number_is_integral(const opa_value *v);
/* -1, 0, 1. */
int opa_number_sign(const opa_value *v);
/* Text of a number as a new string value: INT -> decimal digits, REF -> its
 * text unchanged. */
opa_value *opa_number_to_string(const opa_value *v);
/* Canonical text (as arithmetic results print) of a number. */
opa_value *opa_number_canonical(const opa_value *v);
/* Appends the number's text (INT digits / REF text) to a buffer. */
struct opa_strbuf;
void opa_number_append(struct opa_strbuf *sb, const opa_value *v);

/* ======================================================================
 * UTF-8 helpers
 * ==================================================================== */

#define OPA_UTF8_REPLACEMENT 0xFFFDu
/* Decodes one rune at s[0..len). Sets *size to the bytes consumed (>= 1 when
 * len > 0). Invalid/overlong/surrogate/truncated sequences decode to U+FFFD
 * with *size = 1 (Go's utf8.DecodeRune). */
uint32_t opa_utf8_decode(const char *s, size_t len, size_t *size);
/* Encodes cp (invalid code points as U+FFFD) into out[0..4); returns the
 * byte count. */
size_t opa_utf8_encode(uint32_t cp, char *out);
/* Rune count (invalid bytes count one each). */
size_t opa_utf8_count(const char *s, size_t len);
int opa_utf8_valid(const char *s, size_t len);
/* Byte offset of rune index i (clamped to len). */
size_t opa_utf8_offset(const char *s, size_t len, size_t i);

/* ======================================================================
 * String builder (heap buffer, grows by doubling)
 * ==================================================================== */

typedef struct opa_strbuf {
    char *buf;
    size_t len;
    size_t cap;
} opa_strbuf;

void opa_strbuf_init(opa_strbuf *sb, size_t cap);
void opa_strbuf_reserve(opa_strbuf *sb, size_t extra);
void opa_strbuf_append(opa_strbuf *sb, const char *s, size_t n);
void opa_strbuf_append_cstr(opa_strbuf *sb, const char *s);
void opa_strbuf_putc(opa_strbuf *sb, char c);
void opa_strbuf_append_int(opa_strbuf *sb, int64_t v);
void opa_strbuf_append_uint(opa_strbuf *sb, uint64_t v);
void opa_strbuf_append_rune(opa_strbuf *sb, uint32_t cp);
/* JSON string literal (quotes + escaping as in JSON / REGO TEXT). */
void opa_strbuf_append_json_string(opa_strbuf *sb, const char *s, size_t n);
/* A value as compact JSON (opa_json_dump) / Rego text (opa_value_dump). */
void opa_strbuf_append_json(opa_strbuf *sb, const opa_value *v);
void opa_strbuf_append_rego(opa_strbuf *sb, const opa_value *v);
/* Finish: a string value owning the buffer (sb is emptied). */
opa_value *opa_strbuf_to_string(opa_strbuf *sb);
/* Finish: a NUL-terminated C string owning the buffer (sb is emptied). */
char *opa_strbuf_to_cstr(opa_strbuf *sb);
void opa_strbuf_free(opa_strbuf *sb);

/* ======================================================================
 * JSON / Rego text (OPA ABI)
 * ==================================================================== */

OPA_EXPORT opa_value *opa_json_parse(const char *s, size_t len);
OPA_EXPORT opa_value *opa_value_parse(const char *s, size_t len);
OPA_EXPORT char *opa_json_dump(const opa_value *v);
OPA_EXPORT char *opa_value_dump(const opa_value *v);

/* ======================================================================
 * Paths (OPA ABI). Error codes:
 * ==================================================================== */

enum {
    OPA_ERR_OK = 0,
    OPA_ERR_INTERNAL = 1,
    OPA_ERR_INVALID_TYPE = 2,
    OPA_ERR_INVALID_PATH = 3,
};

/* Upserts value at path (a non-empty array of keys) inside the object base;
 * missing intermediate keys become new objects. Errors: base or an
 * intermediate node not an object -> INVALID_TYPE; path not a non-empty
 * array -> INVALID_PATH. */
OPA_EXPORT int32_t opa_value_add_path(opa_value *base, opa_value *path, opa_value *value);
/* Removes the node at path. A missing node is OK (nothing to do). Same
 * errors as add_path. */
OPA_EXPORT int32_t opa_value_remove_path(opa_value *base, opa_value *path);

/* ======================================================================
 * Evaluation (OPA ABI) and support for generated code
 * ==================================================================== */

/* Context: input@0 data@4 result@8 entrypoint@12. */
typedef struct {
    opa_value *input;
    opa_value *data;
    opa_value *result;
    int32_t entrypoint;
} opa_eval_ctx_t;

/* The generated `eval` function; the linker replaces this import. */
OPA_IMPORT("gen_eval") int32_t gen_eval(opa_eval_ctx_t *ctx);

OPA_EXPORT opa_eval_ctx_t *opa_eval_ctx_new(void);
OPA_EXPORT void opa_eval_ctx_set_input(opa_eval_ctx_t *ctx, opa_value *v);
OPA_EXPORT void opa_eval_ctx_set_data(opa_eval_ctx_t *ctx, opa_value *v);
OPA_EXPORT void opa_eval_ctx_set_entrypoint(opa_eval_ctx_t *ctx, int32_t ep);
OPA_EXPORT opa_value *opa_eval_ctx_get_result(opa_eval_ctx_t *ctx);
/* ABI 5.1 fast path; returns the dumped result (format 0 JSON, 1 Rego). */
OPA_EXPORT char *opa_eval(int32_t reserved, int32_t entrypoint, opa_value *data,
                          const char *input, uint32_t input_len, uint32_t heap_ptr,
                          int32_t format);

/* Called once by the linker's start function: the heap starts at heap_base
 * (rounded up to 8), and the CallDynamic mapping JSON
 * {"g0":{"pkg":{"rule": <table index>}}} is parsed (len 0 = no mapping). */
OPA_EXPORT void opa_rt_init(uint32_t heap_base, const char *mapping, uint32_t mapping_len);
/* path: array of keys. The table index found, or 0 when absent / not a
 * leaf. */
OPA_EXPORT int32_t opa_mapping_lookup(const opa_value *path);

/* Memoization of zero-argument functions (keyed by function index). init
 * clears everything (start of eval); push/pop open/close a scope (WithStmt);
 * get returns NULL when not memoized in the current scope. */
OPA_EXPORT void opa_memoize_init(int32_t nfuncs);
OPA_EXPORT void opa_memoize_push(void);
OPA_EXPORT void opa_memoize_pop(void);
OPA_EXPORT void opa_memoize_insert(int32_t idx, opa_value *v);
OPA_EXPORT opa_value *opa_memoize_get(int32_t idx);

/* Strict builtin errors (see STRICT BUILTIN ERRORS above): on != 0 turns them on. */
OPA_EXPORT void opa_strict_builtin_errors_set(int32_t on);
/* Whether builtin errors abort (a builtin may skip building a message when not). */
bool opa_builtin_errors_strict(void);
/* NULL, or (strict) aborts "eval_builtin_error: <name>: <msg>". */
opa_value *opa_builtin_error(const char *name, const char *msg);
/* NULL, or (strict) aborts "eval_type_error: <name>: operand <operand> must be <want> but got <got>"
 * (got: opa_type_name(value) or a finer description such as "floating-point number"). */
opa_value *opa_builtin_type_error(const char *name, int operand, const char *want, const char *got);
/* OPA's name of a value's type: "null", "boolean", "number", "string", "array", "object", "set". */
const char *opa_type_name(const opa_value *v);

/* Builds "<file>:<row>:<col>: <msg>" (NUL-terminated inputs) and aborts. */
OPA_EXPORT _Noreturn void opa_runtime_error(const char *file, int32_t row, int32_t col,
                                            const char *msg);

/* regex.match with a constant pattern compiled at build time (wasm/regex_prog.py) into
 * `prog`; runs it over `subject`. Returns a boolean, or NULL when the runtime gives no
 * answer (subject not a string or not UTF-8, or too long for the program): the
 * generated code then calls the host builtin (wasm/regex_call.py). */
OPA_EXPORT opa_value *opa_regex_vm_match(const uint32_t *prog, opa_value *subject);

#endif /* CUPCAKE_OPA_H */
