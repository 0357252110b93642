/* regex_vm.c: native regex.match for build-time constant patterns.
 *
 * In: a program compiled by cupcake_py/wasm/regex_prog.py from a pattern in its RE2
 * subset (layout documented there: header, required literal, instructions, class
 * ranges; 4-aligned static data) and the subject value.
 * Out: a static boolean (match anywhere in the subject, RE2 semantics), or NULL when the
 * native matcher must not answer: the subject is not a string, is not valid UTF-8, or is so
 * long for the program (STEP_BUDGET) that RE2's DFA should answer.
 * The generated code then makes the host call it would have made without a program, so
 * type errors and odd input get exactly the host's answer.
 *
 * Matching: a required-literal prefilter (a subject without the literal cannot match),
 * then a Pike VM over code points (thread lists are sparse sets of program counters, so
 * the time is O(program size x subject length) and no input can make it blow up). Threads
 * start only at code-point boundaries: RE2 also tries the bytes inside a multi-byte
 * character, but in this subset nothing consumes a continuation byte and no assertion
 * holds there that fails at every boundary (\B, the exception, is not in the subset). */
#include "bi_util.h"

enum { OP_MATCH, OP_CHAR, OP_CLASS, OP_SPLIT, OP_JMP, OP_BOT, OP_EOT, OP_WORDB };
#define FLAG_ANCHORED 1u
#define MAX_INST 2000 /* regex_prog.MAX_INSTRUCTIONS */
/* Subject bytes x instructions above which the host's RE2 (a DFA) answers instead: the Pike
 * VM's worst case stays a few tens of milliseconds. */
#define STEP_BUDGET (1u << 24)

typedef struct { uint32_t op_a, b; } rx_inst; /* op = op_a & 0xFF, a = op_a >> 8 */
typedef struct { uint32_t lo, hi; } rx_range;

/* Thread lists and the closure stack live in one heap block per match that gets past the
 * prefilter, sized by the program (static arrays would put tens of KB of zeros into every
 * module's data). */
typedef struct {
    uint32_t n;
    uint16_t *dense, *sparse;
} rx_set;

typedef struct {
    const rx_inst *code;
    const rx_range *ranges;
    const uint8_t *s;
    uint32_t len;
    uint16_t *stack; /* 2 * n_inst + 2: each pc pushes at most two successors once */
} rx_vm;

static rx_set set_a, set_b;
static rx_vm vm;

static const opa_boolean_t rx_true = {{OPA_BOOLEAN}, 1};
static const opa_boolean_t rx_false = {{OPA_BOOLEAN}, 0};

static inline bool set_has(const rx_set *q, uint32_t pc)
{
    uint32_t k = q->sparse[pc];
    return k < q->n && q->dense[k] == pc;
}

static inline void set_add(rx_set *q, uint32_t pc)
{
    q->sparse[pc] = (uint16_t)q->n;
    q->dense[q->n++] = (uint16_t)pc;
}

/* Length of the valid UTF-8 sequence at s[0..n) (RE2's: no overlongs, no surrogates,
 * nothing above U+10FFFF), 0 when invalid; *cp receives the code point. */
static uint32_t utf8_next(const uint8_t *s, uint32_t n, uint32_t *cp)
{
    uint32_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    uint32_t len, min;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80, c &= 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800, c &= 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000, c &= 0x07;
    else return 0;
    if (len > n) return 0;
    for (uint32_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return len;
}

static bool valid_utf8(const uint8_t *s, uint32_t n)
{
    uint32_t i = 0, cp, w;
    while (i < n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if (!(w = utf8_next(s + i, n - i, &cp))) return false;
        i += w;
    }
    return true;
}

static bool contains(const uint8_t *s, uint32_t n, const uint8_t *lit, uint32_t m)
{
    if (m == 0) return true;
    if (m > n) return false;
    uint8_t first = lit[0];
    for (uint32_t i = 0; i + m <= n; i++)
        if (s[i] == first && memcmp(s + i + 1, lit + 1, m - 1) == 0) return true;
    return false;
}

static inline bool is_word(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool in_class(const rx_inst *in, uint32_t cp)
{
    const rx_range *r = vm.ranges + (in->op_a >> 8);
    for (uint32_t k = 0; k < in->b; k++) {
        if (cp < r[k].lo) return false;
        if (cp <= r[k].hi) return true;
    }
    return false;
}

/* Adds pc and everything reachable from it without consuming input at byte offset pos to
 * q; true when that reaches MATCH. */
static bool add_thread(rx_set *q, uint32_t pc, uint32_t pos)
{
    uint32_t top = 0;
    vm.stack[top++] = (uint16_t)pc;
    while (top) {
        pc = vm.stack[--top];
        if (set_has(q, pc)) continue;
        set_add(q, pc);
        const rx_inst *in = &vm.code[pc];
        switch (in->op_a & 0xFF) {
        case OP_MATCH: return true;
        case OP_JMP: vm.stack[top++] = (uint16_t)(in->op_a >> 8); break;
        case OP_SPLIT:
            vm.stack[top++] = (uint16_t)in->b;
            vm.stack[top++] = (uint16_t)(in->op_a >> 8);
            break;
        case OP_BOT:
            if (pos == 0) vm.stack[top++] = (uint16_t)(pc + 1);
            break;
        case OP_EOT:
            if (pos == vm.len) vm.stack[top++] = (uint16_t)(pc + 1);
            break;
        case OP_WORDB: {
            bool before = pos > 0 && is_word(vm.s[pos - 1]);
            bool after = pos < vm.len && is_word(vm.s[pos]);
            if (before != after) vm.stack[top++] = (uint16_t)(pc + 1);
            break;
        }
        default: break; /* CHAR, CLASS: wait for the next code point */
        }
    }
    return false;
}

static bool run(bool anchored)
{
    rx_set *cur = &set_a, *next = &set_b;
    cur->n = 0;
    uint32_t pos = 0;
    for (;;) {
        if ((!anchored || pos == 0) && add_thread(cur, 0, pos)) return true;
        if (pos == vm.len || (cur->n == 0 && anchored)) return false;
        uint32_t cp;
        uint32_t w = utf8_next(vm.s + pos, vm.len - pos, &cp);
        pos += w;
        next->n = 0;
        for (uint32_t k = 0; k < cur->n; k++) {
            uint32_t pc = cur->dense[k];
            const rx_inst *in = &vm.code[pc];
            uint32_t op = in->op_a & 0xFF;
            bool ok = (op == OP_CHAR && in->op_a >> 8 == cp) || (op == OP_CLASS && in_class(in, cp));
            if (ok && add_thread(next, pc + 1, pos)) return true;
        }
        rx_set *t = cur;
        cur = next;
        next = t;
    }
}

OPA_EXPORT opa_value *opa_regex_vm_match(const uint32_t *prog, opa_value *subject)
{
    const opa_string_t *str = bi_str(subject);
    if (!str) return 0;
    const uint8_t *s = (const uint8_t *)str->v;
    if (!valid_utf8(s, str->len)) return 0;
    uint32_t n_inst = prog[0], lit_len = prog[2], flags = prog[3];
    if (n_inst == 0 || n_inst > MAX_INST) opa_abort("regex_vm: bad program");
    const uint8_t *lit = (const uint8_t *)(prog + 4);
    if (!contains(s, str->len, lit, lit_len))
        return (opa_value *)&rx_false;
    if ((uint64_t)str->len * n_inst > STEP_BUDGET) return 0;
    vm.code = (const rx_inst *)(prog + 4 + (lit_len + 3) / 4);
    vm.ranges = (const rx_range *)(vm.code + n_inst);
    vm.s = s;
    vm.len = str->len;
    uint16_t *block = opa_malloc(sizeof(uint16_t) * (6 * n_inst + 2));
    set_a.dense = block;
    set_a.sparse = block + n_inst;
    set_b.dense = block + 2 * n_inst;
    set_b.sparse = block + 3 * n_inst;
    vm.stack = block + 4 * n_inst;
    bool matched = run(flags & FLAG_ANCHORED);
    opa_free(block);
    return (opa_value *)(matched ? &rx_true : &rx_false);
}
