/* Base64 codec, see b64codec.h for the accepted syntax. */
#include "b64codec.h"

static const char STD[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void b64_encode(const uint8_t *in, uint32_t n, uint8_t *out, bool url)
{
    const char *a = url ? URL : STD;
    uint32_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = (uint8_t)a[v >> 18];
        out[o++] = (uint8_t)a[(v >> 12) & 63];
        out[o++] = (uint8_t)a[(v >> 6) & 63];
        out[o++] = (uint8_t)a[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = (uint8_t)a[v >> 18];
        out[o++] = (uint8_t)a[(v >> 12) & 63];
        out[o++] = i + 1 < n ? (uint8_t)a[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
}

static int sextet(uint8_t c, bool url)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == (url ? '-' : '+')) return 62;
    if (c == (url ? '_' : '/')) return 63;
    return -1;
}

bool b64_decode(const uint8_t *in, uint32_t n, uint8_t *out, uint32_t *out_len, bool url)
{
    uint32_t o = 0, q = 0, pad = 0, acc = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = in[i];
        if (c == '\r' || c == '\n') continue;
        if (c == '=') {
            if (q < 2) return false; /* "=" may only fill the last one or two places */
            pad++;
            if (q + pad > 4) return false;
            continue;
        }
        int v = sextet(c, url);
        if (v < 0 || pad) return false; /* data after padding */
        acc = acc << 6 | (uint32_t)v;
        if (++q == 4) {
            out[o++] = (uint8_t)(acc >> 16);
            out[o++] = (uint8_t)(acc >> 8);
            out[o++] = (uint8_t)acc;
            q = 0;
            acc = 0;
        }
    }
    if (pad) {
        if (q + pad != 4) return false;
        acc <<= 6 * pad;
        out[o++] = (uint8_t)(acc >> 16);
        if (q == 3) out[o++] = (uint8_t)(acc >> 8);
    } else if (q) {
        return false;
    }
    *out_len = o;
    return true;
}
