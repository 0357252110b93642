/* IP address and CIDR parsing with Go's net.ParseIP / net.ParseCIDR rules, and the
 * containment test of net.IPNet.Contains (IPv4 and IPv4-mapped IPv6 compare as IPv4). */
#ifndef CUPCAKE_BI_NETADDR_H
#define CUPCAKE_BI_NETADDR_H

#include <stdbool.h>
#include <stdint.h>

struct ipnet {
    uint8_t ip[16]; /* network address (masked), first `len` bytes used */
    uint8_t len;    /* 4 or 16 */
    uint8_t bits;   /* prefix length within len*8 bits */
};

/* Parses an address into 16 bytes (IPv4 as IPv4-mapped IPv6). */
bool ip_parse(const uint8_t *s, uint32_t n, uint8_t out[16]);
/* Parses "addr/prefix" and normalizes to the form Go's IPNet.Contains compares. */
bool cidr_parse(const uint8_t *s, uint32_t n, struct ipnet *out);
/* Does the network contain the 16-byte address? */
bool ipnet_contains(const struct ipnet *net, const uint8_t ip[16]);
/* Last address of the network, as a 16-byte address. */
void ipnet_last(const struct ipnet *net, uint8_t out[16]);
/* First address of the network, as a 16-byte address. */
void ipnet_first(const struct ipnet *net, uint8_t out[16]);

#endif
