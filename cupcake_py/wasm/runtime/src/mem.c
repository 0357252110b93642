/* mem.c: heap allocator (bump + size-class free lists), libc replacements,
 * abort. Memory is the imported env.memory; it grows with memory.grow. */
#include "internal.h"

extern char __heap_base;

#define HDR 8u               /* block header: u32 capacity, u32 tag */
#define TAG_LIVE 0x6C697665u
#define TAG_FREE 0x66726565u
#define SMALL_MAX 1024u      /* classes of 8-byte steps up to here */
#define N_SMALL (SMALL_MAX / 8u)
#define N_CLASSES (N_SMALL + 22u) /* then powers of two 2 KiB .. 4 GiB */
#define PAGE 65536u

static uint32_t heap_start_;
static uint32_t heap_top;
static uint32_t free_lists[N_CLASSES];
static uint32_t stash_lists[N_CLASSES];

_Noreturn void opa_abort(const char *msg) {
    opa_abort_import(msg);
    __builtin_trap();
}

static void init_at(uint32_t base) {
    heap_start_ = (base + 7u) & ~7u;
    heap_top = heap_start_;
    for (uint32_t i = 0; i < N_CLASSES; i++) free_lists[i] = stash_lists[i] = 0;
    opa_index_table_init(); /* first block of the heap, below any reset point */
}

static inline void ensure_init(void) {
    if (heap_start_ == 0) init_at((uint32_t)(uintptr_t)&__heap_base);
}

uint32_t opa_heap_start(void) {
    ensure_init();
    return heap_start_;
}

/* Called by opa_rt_init only. */
void opa_heap_init(uint32_t base) { init_at(base); }

/* Smallest class whose blocks hold `size` bytes. */
static uint32_t class_ceil(uint32_t size) {
    if (size <= SMALL_MAX) return size == 0 ? 0 : (size - 1) / 8u;
    uint32_t c = N_SMALL, cap = 2048;
    while (cap < size) { cap <<= 1; c++; }
    return c;
}

static uint32_t class_size(uint32_t c) {
    return c < N_SMALL ? (c + 1) * 8u : 2048u << (c - N_SMALL);
}

/* Largest class whose size is <= cap (cap >= 8). */
static uint32_t class_floor(uint32_t cap) {
    if (cap <= SMALL_MAX) return cap / 8u - 1;
    uint32_t c = N_SMALL, sz = 2048;
    if (cap < sz) return N_SMALL - 1;
    while ((uint64_t)sz * 2 <= cap && c + 1 < N_CLASSES) { sz <<= 1; c++; }
    return c;
}

static void grow_to(uint32_t end) {
    uint32_t have = (uint32_t)__builtin_wasm_memory_size(0);
    uint64_t need_bytes = (uint64_t)end;
    if (need_bytes <= (uint64_t)have * PAGE) return;
    uint32_t need = (uint32_t)((need_bytes + PAGE - 1) / PAGE) - have;
    uint32_t extra = need + have / 4u; /* some slack, retried exactly */
    if (__builtin_wasm_memory_grow(0, extra) != (size_t)-1) return;
    if (__builtin_wasm_memory_grow(0, need) != (size_t)-1) return;
    opa_abort("out of memory");
}

void *opa_malloc(size_t size) {
    ensure_init();
    if (size > 0x80000000u) opa_abort("out of memory"); /* classes stop at 2 GiB */
    uint32_t c = class_ceil((uint32_t)size);
    uint32_t blk = free_lists[c];
    if (blk) {
        uint32_t *h = (uint32_t *)(uintptr_t)(blk - HDR);
        free_lists[c] = *(uint32_t *)(uintptr_t)blk;
        h[1] = TAG_LIVE;
        return (void *)(uintptr_t)blk;
    }
    uint32_t cap = class_size(c);
    uint64_t end = (uint64_t)heap_top + HDR + cap;
    if (end > 0xFFFFFFF0u) opa_abort("out of memory");
    grow_to((uint32_t)end);
    uint32_t *h = (uint32_t *)(uintptr_t)heap_top;
    h[0] = cap;
    h[1] = TAG_LIVE;
    heap_top = (uint32_t)end;
    return (void *)(h + 2);
}

static uint32_t *live_header(void *ptr) {
    uint32_t p = (uint32_t)(uintptr_t)ptr;
    if ((p & 7u) || p < heap_start_ + HDR || p >= heap_top) opa_abort("invalid free");
    uint32_t *h = (uint32_t *)(uintptr_t)(p - HDR);
    if (h[1] != TAG_LIVE || (uint64_t)p + h[0] > heap_top) opa_abort("invalid free");
    return h;
}

void opa_free(void *ptr) {
    ensure_init();
    uint32_t p = (uint32_t)(uintptr_t)ptr;
    if (p < heap_start_) return; /* NULL and static data */
    uint32_t *h = live_header(ptr);
    if (p + h[0] == heap_top) { /* last block: give it back to the bump area */
        heap_top = p - HDR;
        h[1] = TAG_FREE;
        return;
    }
    uint32_t c = class_floor(h[0]);
    h[1] = TAG_FREE;
    *(uint32_t *)ptr = free_lists[c];
    free_lists[c] = p;
}

void *opa_realloc(void *ptr, size_t size) {
    ensure_init();
    uint32_t p = (uint32_t)(uintptr_t)ptr;
    if (p == 0) return opa_malloc(size);
    if (p < heap_start_) opa_abort("invalid realloc");
    uint32_t *h = live_header(ptr);
    if (size <= h[0]) return ptr;
    if (size > 0x80000000u) opa_abort("out of memory");
    if (p + h[0] == heap_top) { /* extend the last block in place */
        uint32_t cap = class_size(class_ceil((uint32_t)size));
        uint64_t end = (uint64_t)p + cap;
        if (end > 0xFFFFFFF0u) opa_abort("out of memory");
        grow_to((uint32_t)end);
        h[0] = cap;
        heap_top = (uint32_t)end;
        return ptr;
    }
    void *n = opa_malloc(size);
    memcpy(n, ptr, h[0]);
    opa_free(ptr);
    return n;
}

uint32_t opa_heap_ptr_get(void) {
    ensure_init();
    return heap_top;
}

void opa_heap_ptr_set(uint32_t ptr) {
    ensure_init();
    heap_top = (ptr + 7u) & ~7u;
    for (uint32_t i = 0; i < N_CLASSES; i++) free_lists[i] = 0;
}

void opa_heap_blocks_stash(void) {
    for (uint32_t i = 0; i < N_CLASSES; i++) {
        uint32_t b = free_lists[i];
        if (!b) continue;
        uint32_t last = b; /* append the stash after this list */
        while (*(uint32_t *)(uintptr_t)last) last = *(uint32_t *)(uintptr_t)last;
        *(uint32_t *)(uintptr_t)last = stash_lists[i];
        stash_lists[i] = b;
        free_lists[i] = 0;
    }
}

void opa_heap_blocks_restore(void) {
    for (uint32_t i = 0; i < N_CLASSES; i++) {
        uint32_t b = stash_lists[i];
        if (!b) continue;
        uint32_t last = b;
        while (*(uint32_t *)(uintptr_t)last) last = *(uint32_t *)(uintptr_t)last;
        *(uint32_t *)(uintptr_t)last = free_lists[i];
        free_lists[i] = b;
        stash_lists[i] = 0;
    }
}

void opa_heap_stash_clear(void) {
    for (uint32_t i = 0; i < N_CLASSES; i++) stash_lists[i] = 0;
}

/* ---- libc replacements (-ffreestanding keeps the compiler from turning
 * these loops back into calls) ---- */

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        for (; n >= 4; n -= 4, d += 4, s += 4) *(uint32_t *)d = *(const uint32_t *)s;
    }
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d == s || n == 0) return dst;
    if (d < s || d >= s + n) return memcpy(dst, src, n);
    while (n--) d[n] = s[n];
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    uint32_t w = (uint8_t)c * 0x01010101u;
    while (n && ((uintptr_t)d & 3u)) { *d++ = (unsigned char)c; n--; }
    for (; n >= 4; n -= 4, d += 4) *(uint32_t *)d = w;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

size_t strlen(const char *s) {
    const char *p = s;
    while (*p) p++;
    return (size_t)(p - s);
}

/* 128-bit multiply helper that clang emits for __builtin_mul_overflow on
 * int64 (compiler-rt is not linked). */
__int128 __multi3(__int128 a, __int128 b) {
    unsigned __int128 ua = (unsigned __int128)a, ub = (unsigned __int128)b;
    uint64_t al = (uint64_t)ua, ah = (uint64_t)(ua >> 64), bl = (uint64_t)ub, bh = (uint64_t)(ub >> 64);
    uint64_t a0 = al & 0xFFFFFFFFu, a1 = al >> 32, b0 = bl & 0xFFFFFFFFu, b1 = bl >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    uint64_t lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32) + al * bh + ah * bl;
    return (__int128)(((unsigned __int128)hi << 64) | lo);
}
