/* IP/CIDR parsing and containment, see netaddr.h. */
#include "netaddr.h"

static const uint8_t V4_PREFIX[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

static bool is_v4_mapped(const uint8_t ip[16])
{
    for (int i = 0; i < 12; i++)
        if (ip[i] != V4_PREFIX[i]) return false;
    return true;
}

/* Dotted quad, decimal, no leading zeros (Go >= 1.17). */
static bool parse_v4(const uint8_t *s, uint32_t n, uint8_t out[4])
{
    uint32_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part) {
            if (i >= n || s[i] != '.') return false;
            i++;
        }
        uint32_t start = i, v = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 3) v = v * 10 + (s[i++] - '0');
        if (i == start || v > 255 || (i - start > 1 && s[start] == '0')) return false;
        out[part] = (uint8_t)v;
    }
    return i == n;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool parse_v6(const uint8_t *s, uint32_t n, uint8_t out[16])
{
    int ellipsis = -1, j = 0;
    uint32_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        i = 2;
        if (i == n) { for (int k = 0; k < 16; k++) out[k] = 0; return true; }
    }
    while (j < 16) {
        uint32_t start = i, v = 0;
        while (i < n && hexval(s[i]) >= 0 && i - start < 4) v = v * 16 + (uint32_t)hexval(s[i++]);
        if (i == start) return false;
        if (i < n && hexval(s[i]) >= 0) return false; /* more than 4 hex digits */
        if (i < n && s[i] == '.') { /* embedded IPv4 in the last 32 bits */
            if (ellipsis < 0 && j != 12) return false;
            if (j + 4 > 16) return false;
            if (!parse_v4(s + start, n - start, out + j)) return false;
            j += 4;
            i = n;
            break;
        }
        out[j++] = (uint8_t)(v >> 8);
        out[j++] = (uint8_t)v;
        if (i == n) break;
        if (s[i] != ':' || i + 1 == n) return false;
        i++;
        if (s[i] == ':') {
            if (ellipsis >= 0) return false;
            ellipsis = j;
            if (++i == n) break;
        }
    }
    if (i != n) return false;
    if (j < 16) {
        if (ellipsis < 0) return false;
        int shift = 16 - j;
        for (int k = j - 1; k >= ellipsis; k--) out[k + shift] = out[k];
        for (int k = ellipsis; k < ellipsis + shift; k++) out[k] = 0;
    } else if (ellipsis >= 0) {
        return false; /* "::" must stand for at least one group */
    }
    return true;
}

bool ip_parse(const uint8_t *s, uint32_t n, uint8_t out[16])
{
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            for (int k = 0; k < 12; k++) out[k] = V4_PREFIX[k];
            return parse_v4(s, n, out + 12);
        }
        if (s[i] == ':') return parse_v6(s, n, out);
    }
    return false;
}

bool cidr_parse(const uint8_t *s, uint32_t n, struct ipnet *out)
{
    uint32_t slash = n;
    for (uint32_t i = 0; i < n; i++)
        if (s[i] == '/') { slash = i; break; }
    if (slash == n || slash + 1 == n) return false;
    uint8_t ip[16];
    bool v4 = false;
    for (uint32_t i = 0; i < slash; i++)
        if (s[i] == ':') break; else if (s[i] == '.') { v4 = true; break; }
    if (!ip_parse(s, slash, ip)) return false;
    uint32_t bits = 0, maxbits = v4 ? 32 : 128;
    for (uint32_t i = slash + 1; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        bits = bits * 10 + (s[i] - '0');
        if (bits > maxbits) return false;
    }
    /* Go compares IPv4 and IPv4-mapped networks as 4-byte ones, taking the
     * last 32 bits of a 128-bit mask. */
    if (is_v4_mapped(ip)) {
        if (!v4) bits = bits > 96 ? bits - 96 : 0;
        out->len = 4;
        for (int k = 0; k < 4; k++) out->ip[k] = ip[12 + k];
    } else {
        out->len = 16;
        for (int k = 0; k < 16; k++) out->ip[k] = ip[k];
    }
    out->bits = (uint8_t)bits;
    for (uint32_t b = 0; b < out->len; b++) {
        uint32_t keep = bits >= 8 * (b + 1) ? 8 : (bits > 8 * b ? bits - 8 * b : 0);
        out->ip[b] &= (uint8_t)(0xFF00u >> keep);
    }
    return true;
}

bool ipnet_contains(const struct ipnet *net, const uint8_t ip[16])
{
    const uint8_t *a = ip;
    if (net->len == 4) {
        if (!is_v4_mapped(ip)) return false;
        a = ip + 12;
    } else if (is_v4_mapped(ip)) {
        return false;
    }
    for (uint32_t b = 0; b < net->len; b++) {
        uint32_t keep = net->bits >= 8 * (b + 1) ? 8 : (net->bits > 8 * b ? net->bits - 8 * b : 0);
        uint8_t m = (uint8_t)(0xFF00u >> keep);
        if ((a[b] & m) != net->ip[b]) return false;
    }
    return true;
}

static void ipnet_edge(const struct ipnet *net, uint8_t out[16], bool last)
{
    uint8_t *d = out;
    if (net->len == 4) {
        for (int k = 0; k < 12; k++) out[k] = V4_PREFIX[k];
        d = out + 12;
    }
    for (uint32_t b = 0; b < net->len; b++) {
        uint32_t keep = net->bits >= 8 * (b + 1) ? 8 : (net->bits > 8 * b ? net->bits - 8 * b : 0);
        uint8_t host = (uint8_t)~(0xFF00u >> keep);
        d[b] = last ? (uint8_t)(net->ip[b] | host) : net->ip[b];
    }
}

void ipnet_last(const struct ipnet *net, uint8_t out[16]) { ipnet_edge(net, out, true); }
void ipnet_first(const struct ipnet *net, uint8_t out[16]) { ipnet_edge(net, out, false); }
