/* Strict JSON syntax check with the acceptance rules of Go's encoding/json.Valid:
 * one RFC 8259 value, surrounding whitespace allowed, bytes >= 0x20 allowed in strings. */
#ifndef CUPCAKE_BI_JSONVALID_H
#define CUPCAKE_BI_JSONVALID_H

#include <stdbool.h>
#include <stdint.h>

bool json_valid(const uint8_t *s, uint32_t n);

#endif
