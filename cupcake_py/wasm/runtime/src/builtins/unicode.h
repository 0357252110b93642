/* Unicode case mapping and white space for the string builtins (no value API).
 * Simple (1:1) case mappings of Unicode 15.0 from UnicodeData.txt, i.e. exactly Go's
 * unicode.ToUpper/ToLower that OPA's upper()/lower() use; multi-rune special casings
 * (German sharp s -> "SS", ...) are not applied, as in Go. UTF-8 coding is the core's
 * (opa_utf8_* in opa.h). */
#ifndef CUPCAKE_BI_UNICODE_H
#define CUPCAKE_BI_UNICODE_H

#include <stdbool.h>
#include <stdint.h>

struct cp_case_row {
    uint32_t lo;
    uint32_t hi; /* bit 31 set: alternating upper/lower pairs starting at lo */
    int32_t du;  /* upper = cp + du */
    int32_t dl;  /* lower = cp + dl */
};

extern const struct cp_case_row cp_case_rows[];
extern const unsigned cp_case_rows_len;

uint32_t cp_upper(uint32_t cp);
uint32_t cp_lower(uint32_t cp);
/* Go's unicode.IsSpace (strings.TrimSpace). */
bool cp_is_space(uint32_t cp);

#endif
