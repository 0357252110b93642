/* eval.c: evaluation contexts and the opa_eval fast path, runtime init and
 * the CallDynamic mapping, memoization, runtime errors, and the data path
 * updates (opa_value_add_path / opa_value_remove_path). */
#include "internal.h"

/* ---------------- contexts and opa_eval ---------------- */

opa_eval_ctx_t *opa_eval_ctx_new(void) {
    opa_eval_ctx_t *ctx = opa_malloc(sizeof(opa_eval_ctx_t));
    ctx->input = NULL;
    ctx->data = NULL;
    ctx->result = NULL;
    ctx->entrypoint = 0;
    return ctx;
}

void opa_eval_ctx_set_input(opa_eval_ctx_t *ctx, opa_value *v) { ctx->input = v; }
void opa_eval_ctx_set_data(opa_eval_ctx_t *ctx, opa_value *v) { ctx->data = v; }
void opa_eval_ctx_set_entrypoint(opa_eval_ctx_t *ctx, int32_t ep) { ctx->entrypoint = ep; }
opa_value *opa_eval_ctx_get_result(opa_eval_ctx_t *ctx) { return ctx->result; }

char *opa_eval(int32_t reserved, int32_t entrypoint, opa_value *data, const char *input,
               uint32_t input_len, uint32_t heap_ptr, int32_t format) {
    if (reserved != 0) opa_abort("invalid reserved argument");
    opa_heap_ptr_set(heap_ptr);
    opa_eval_ctx_t *ctx = opa_eval_ctx_new();
    ctx->entrypoint = entrypoint;
    ctx->data = data;
    if (input_len) {
        ctx->input = opa_value_parse(input, input_len);
        if (!ctx->input) opa_abort("invalid input");
    }
    if (gen_eval(ctx) != 0) opa_abort("eval failed");
    return format == 1 ? opa_value_dump(ctx->result) : opa_json_dump(ctx->result);
}

/* ---------------- init and CallDynamic mapping ---------------- */

static opa_value *mapping;

void opa_rt_init(uint32_t heap_base, const char *map, uint32_t map_len) {
    opa_heap_init(heap_base);
    mapping = NULL;
    if (map_len) {
        mapping = opa_json_parse(map, map_len);
        if (!mapping) opa_abort("internal: invalid function mapping");
    }
}

int32_t opa_mapping_lookup(const opa_value *path) {
    if (!mapping || !path || path->type != OPA_ARRAY) return 0;
    const opa_value *node = mapping;
    uint32_t n = opa_cast_array(path)->len;
    for (uint32_t i = 0; i < n && node; i++) {
        if (node->type != OPA_OBJECT) return 0;
        node = opa_value_get(node, opa_array_at(path, i));
    }
    int64_t idx;
    if (!node || node->type != OPA_NUMBER || !opa_number_try_int(node, &idx)) return 0;
    return (int32_t)idx;
}

/* ---------------- memoization ----------------
 * A stack of frames. The evaluation's root frame is an array indexed by
 * function index (opa_memoize_init gets the plan's function count: no hashing,
 * no growth); the frames `with` pushes are open-addressing maps from function
 * index to value (most stay small). */

typedef struct memo_frame {
    struct memo_frame *parent;
    uint32_t cap, len;
    int32_t *keys;      /* -1 = empty; NULL in a direct frame */
    opa_value **vals;
    uint8_t direct;     /* vals[idx] for idx < cap */
} memo_frame;

static memo_frame *memo_top;

static memo_frame *memo_new(memo_frame *parent) {
    memo_frame *f = opa_malloc(sizeof(memo_frame));
    f->parent = parent;
    f->cap = 0;
    f->len = 0;
    f->keys = NULL;
    f->vals = NULL;
    f->direct = 0;
    return f;
}

static void memo_free(memo_frame *f) {
    opa_free(f->keys);
    opa_free(f->vals);
    opa_free(f);
}

void opa_memoize_init(int32_t nfuncs) {
    memo_top = memo_new(NULL);
    if (nfuncs > 0) {
        memo_top->direct = 1;
        memo_top->cap = (uint32_t)nfuncs;
        memo_top->vals = opa_malloc((uint32_t)nfuncs * sizeof(opa_value *));
        memset(memo_top->vals, 0, (uint32_t)nfuncs * sizeof(opa_value *));
    }
}

void opa_memoize_push(void) { memo_top = memo_new(memo_top); }

void opa_memoize_pop(void) {
    if (!memo_top || !memo_top->parent) opa_abort("internal: memoize stack underflow");
    memo_frame *f = memo_top;
    memo_top = f->parent;
    memo_free(f);
}

static uint32_t memo_slot(const memo_frame *f, int32_t idx) {
    uint32_t m = f->cap - 1, i = ((uint32_t)idx * 0x9e3779b1u) & m;
    while (f->keys[i] != -1 && f->keys[i] != idx) i = (i + 1) & m;
    return i;
}

static void memo_put(memo_frame *f, int32_t idx, opa_value *v) {
    if (f->direct) {
        if (idx < 0 || (uint32_t)idx >= f->cap) opa_abort("internal: memoize index out of range");
        f->vals[idx] = v;
        return;
    }
    if ((f->len + 1) * 2 > f->cap) {
        uint32_t ocap = f->cap, ncap = ocap ? ocap * 2 : 16;
        int32_t *ok = f->keys;
        opa_value **ov = f->vals;
        f->cap = ncap;
        f->keys = opa_malloc(ncap * sizeof(int32_t));
        f->vals = opa_malloc(ncap * sizeof(opa_value *));
        memset(f->keys, 0xFF, ncap * sizeof(int32_t));
        f->len = 0;
        for (uint32_t i = 0; i < ocap; i++) {
            if (ok[i] != -1) memo_put(f, ok[i], ov[i]);
        }
        opa_free(ok);
        opa_free(ov);
    }
    uint32_t s = memo_slot(f, idx);
    if (f->keys[s] == -1) { f->keys[s] = idx; f->len++; }
    f->vals[s] = v;
}

void opa_memoize_insert(int32_t idx, opa_value *v) {
    if (!memo_top) opa_memoize_init(0);
    memo_put(memo_top, idx, v);
}

opa_value *opa_memoize_get(int32_t idx) {
    const memo_frame *f = memo_top;
    if (!f || !f->cap) return NULL;
    if (f->direct) return idx >= 0 && (uint32_t)idx < f->cap ? f->vals[idx] : NULL;
    uint32_t s = memo_slot(f, idx);
    return f->keys[s] == idx ? f->vals[s] : NULL;
}

/* ---------------- runtime errors ---------------- */

_Noreturn void opa_runtime_error(const char *file, int32_t row, int32_t col, const char *msg) {
    opa_strbuf sb;
    opa_strbuf_init(&sb, 64);
    opa_strbuf_append_cstr(&sb, file);
    opa_strbuf_putc(&sb, ':');
    opa_strbuf_append_int(&sb, row);
    opa_strbuf_putc(&sb, ':');
    opa_strbuf_append_int(&sb, col);
    opa_strbuf_append(&sb, ": ", 2);
    opa_strbuf_append_cstr(&sb, msg);
    opa_abort(opa_strbuf_to_cstr(&sb));
}

/* ---------------- data path updates ---------------- */

/* Walks base along path[0..n-1), creating missing objects when `create`.
 * Sets *parent to the object holding the last key (NULL when missing). */
static int32_t walk_path(opa_value *base, const opa_value *path, int create, opa_value **parent) {
    *parent = NULL;
    if (!path || path->type != OPA_ARRAY || opa_cast_array(path)->len == 0) return OPA_ERR_INVALID_PATH;
    if (!base || base->type != OPA_OBJECT) return OPA_ERR_INVALID_TYPE;
    uint32_t n = opa_cast_array(path)->len;
    opa_value *node = base;
    for (uint32_t i = 0; i + 1 < n; i++) {
        opa_value *key = opa_array_at(path, i);
        opa_value *child = opa_value_get(node, key);
        if (!child) {
            if (!create) return OPA_ERR_OK;
            child = opa_object();
            opa_object_insert(node, opa_value_deep_copy(key), child);
        } else if (child->type != OPA_OBJECT) {
            return OPA_ERR_INVALID_TYPE;
        }
        node = child;
    }
    *parent = node;
    return OPA_ERR_OK;
}

int32_t opa_value_add_path(opa_value *base, opa_value *path, opa_value *value) {
    opa_value *parent;
    int32_t err = walk_path(base, path, 1, &parent);
    if (err) return err;
    opa_value *last = opa_array_at(path, opa_cast_array(path)->len - 1);
    opa_value *key = opa_value_get(parent, last) ? last : opa_value_deep_copy(last);
    opa_object_insert(parent, key, value);
    return OPA_ERR_OK;
}

int32_t opa_value_remove_path(opa_value *base, opa_value *path) {
    opa_value *parent;
    int32_t err = walk_path(base, path, 0, &parent);
    if (err || !parent) return err;
    opa_object_remove(parent, opa_array_at(path, opa_cast_array(path)->len - 1));
    return OPA_ERR_OK;
}
