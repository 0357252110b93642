/* Base64 (RFC 4648 standard and URL alphabets, padded) with Go's encoding/base64
 * decoding rules: padding required, CR/LF ignored, non-zero trailing bits accepted. */
#ifndef CUPCAKE_BI_B64CODEC_H
#define CUPCAKE_BI_B64CODEC_H

#include <stdbool.h>
#include <stdint.h>

/* Output size of b64_encode for n input bytes. */
static inline uint32_t b64_encoded_len(uint32_t n) { return (n + 2) / 3 * 4; }
/* Writes b64_encoded_len(n) bytes to out. */
void b64_encode(const uint8_t *in, uint32_t n, uint8_t *out, bool url);
/* Decodes into out (room for n*3/4 bytes); returns false on malformed input. */
bool b64_decode(const uint8_t *in, uint32_t n, uint8_t *out, uint32_t *out_len, bool url);

#endif
