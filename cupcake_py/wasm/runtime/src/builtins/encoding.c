/* Encoding builtins: base64.encode/decode/is_valid, base64url.encode/decode (padding
 * optional on input, as OPA), json.marshal (compact, sorted keys, Go escaping),
 * json.unmarshal, json.is_valid. */
#include "b64codec.h"
#include "bi_util.h"
#include "jsonvalid.h"

static opa_value *encode(opa_value *a, bool url)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string(url ? "base64url.encode" : "base64.encode", 1, a);
    uint32_t n = b64_encoded_len(s->len);
    uint8_t *out = opa_malloc(n ? n : 1);
    b64_encode((const uint8_t *)s->v, s->len, out, url);
    return opa_string_allocated((const char *)out, n);
}

/* Decodes src[0..n) followed by `pad` '=' characters. */
static opa_value *decode(const char *src, uint32_t n, uint32_t pad, bool url)
{
    uint8_t *in = (uint8_t *)src;
    if (pad) {
        in = opa_malloc(n + pad);
        memcpy(in, src, n);
        memset(in + n, '=', pad);
    }
    uint8_t *out = opa_malloc((n + pad) / 4 * 3 + 3);
    uint32_t len;
    bool ok = b64_decode(in, n + pad, out, &len, url);
    if (pad) opa_free(in);
    if (!ok) {
        opa_free(out);
        return 0;
    }
    return opa_string_allocated((const char *)out, len);
}

OPA_EXPORT opa_value *opa_bi_base64_encode(opa_value *a) { return encode(a, false); }
OPA_EXPORT opa_value *opa_bi_base64url_encode(opa_value *a) { return encode(a, true); }

OPA_EXPORT opa_value *opa_bi_base64_decode(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string("base64.decode", 1, a);
    opa_value *v = decode(s->v, s->len, 0, false);
    return v ? v : bi_fail("base64.decode", "illegal base64 data");
}

OPA_EXPORT opa_value *opa_bi_base64_is_valid(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return opa_boolean(false);
    opa_value *d = decode(s->v, s->len, 0, false);
    if (d) opa_value_free(d);
    return opa_boolean(d != 0);
}

/* Unpadded input is padded first (RFC 7515 appendix C): length % 4 == 1 is invalid. */
OPA_EXPORT opa_value *opa_bi_base64url_decode(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string("base64url.decode", 1, a);
    uint32_t pad = 0;
    if (!s->len || s->v[s->len - 1] != '=') {
        switch (s->len % 4) {
        case 0: break;
        case 2: pad = 2; break;
        case 3: pad = 1; break;
        default: return bi_fail("base64url.decode", "illegal base64 data");
        }
    }
    opa_value *v = decode(s->v, s->len, pad, true);
    return v ? v : bi_fail("base64url.decode", "illegal base64 data");
}

OPA_EXPORT opa_value *opa_bi_json_marshal(opa_value *a)
{
    opa_strbuf sb;
    opa_strbuf_init(&sb, 64);
    opa_strbuf_append_json(&sb, a);
    return opa_strbuf_to_string(&sb);
}

OPA_EXPORT opa_value *opa_bi_json_unmarshal(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    if (!s) return bi_want_string("json.unmarshal", 1, a);
    opa_value *v = opa_json_parse(s->v, s->len);
    return v ? v : bi_fail("json.unmarshal", "invalid JSON");
}

OPA_EXPORT opa_value *opa_bi_json_is_valid(opa_value *a)
{
    const opa_string_t *s = bi_str(a);
    return opa_boolean(s && json_valid((const uint8_t *)s->v, s->len));
}
