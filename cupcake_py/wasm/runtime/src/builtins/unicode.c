/* Simple case mapping over the generated casetab.c, and Go's white space set. */
#include "unicode.h"

static const struct cp_case_row *case_row(uint32_t cp)
{
    uint32_t a = 0, b = cp_case_rows_len;
    while (a < b) {
        uint32_t m = (a + b) / 2;
        const struct cp_case_row *r = &cp_case_rows[m];
        uint32_t hi = r->hi & 0x7FFFFFFFu;
        if (cp < r->lo) b = m;
        else if (cp > hi) a = m + 1;
        else return r;
    }
    return 0;
}

uint32_t cp_upper(uint32_t cp)
{
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
    const struct cp_case_row *r = case_row(cp);
    if (!r) return cp;
    if (r->hi & 0x80000000u) return ((cp - r->lo) & 1) ? cp - 1 : cp;
    return (uint32_t)((int32_t)cp + r->du);
}

uint32_t cp_lower(uint32_t cp)
{
    if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    const struct cp_case_row *r = case_row(cp);
    if (!r) return cp;
    if (r->hi & 0x80000000u) return ((cp - r->lo) & 1) ? cp : cp + 1;
    return (uint32_t)((int32_t)cp + r->dl);
}

bool cp_is_space(uint32_t cp)
{
    switch (cp) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}
