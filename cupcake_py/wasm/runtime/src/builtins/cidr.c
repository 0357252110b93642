/* net.cidr_contains (and its deprecated alias net.cidr_overlap), net.cidr_intersects
 * for IPv4 and IPv6, with Go's net.ParseCIDR / net.ParseIP rules (netaddr.c). Malformed
 * addresses are OPA's builtin errors (undefined unless strict). */
#include "bi_util.h"
#include "netaddr.h"

/* Go's net.ParseCIDR error, "invalid CIDR address: <text>"; NULL unless strict. */
static opa_value *cidr_error(const char *name, const opa_string_t *s)
{
    return bi_fail_about(name, "invalid CIDR address: ", s, false, "");
}

/* False after reporting the error of builtin `name` (operand n). */
static bool parse_cidr(const char *name, int n, const opa_value *v, struct ipnet *out)
{
    const opa_string_t *s = bi_str(v);
    if (!s) return bi_want_string(name, n, v), false;
    if (!cidr_parse((const uint8_t *)s->v, s->len, out)) return cidr_error(name, s), false;
    return true;
}

/* Does a contain b (an address, or a whole network: its first and last address)? */
OPA_EXPORT opa_value *opa_bi_net_cidr_contains(opa_value *a, opa_value *b)
{
    struct ipnet na, nb;
    const opa_string_t *s = bi_str(b);
    uint8_t ip[16];
    if (!parse_cidr("net.cidr_contains", 1, a, &na)) return 0;
    if (!s) return bi_want_string("net.cidr_contains", 2, b);
    if (ip_parse((const uint8_t *)s->v, s->len, ip)) return opa_boolean(ipnet_contains(&na, ip));
    if (!cidr_parse((const uint8_t *)s->v, s->len, &nb)) return cidr_error("net.cidr_contains", s);
    uint8_t first[16], last[16];
    ipnet_first(&nb, first);
    ipnet_last(&nb, last);
    return opa_boolean(ipnet_contains(&na, first) && ipnet_contains(&na, last));
}

OPA_EXPORT opa_value *opa_bi_net_cidr_overlap(opa_value *a, opa_value *b)
{
    return opa_bi_net_cidr_contains(a, b);
}

/* Either network contains the other's first address. */
OPA_EXPORT opa_value *opa_bi_net_cidr_intersects(opa_value *a, opa_value *b)
{
    struct ipnet na, nb;
    if (!parse_cidr("net.cidr_intersects", 1, a, &na) || !parse_cidr("net.cidr_intersects", 2, b, &nb)) return 0;
    uint8_t fa[16], fb[16];
    ipnet_first(&na, fa);
    ipnet_first(&nb, fb);
    return opa_boolean(ipnet_contains(&na, fb) || ipnet_contains(&nb, fa));
}
