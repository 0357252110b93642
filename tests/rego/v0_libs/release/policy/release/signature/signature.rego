package policy.release.signature

import data.lib.image

trusted_keys := {k | k := data.rule_data.trusted_keys[_]}

signed_by_trusted[ref] {
	sig := input.signatures[_]
	trusted_keys[sig.keyid]
	ref := sig.image
}

deny[msg] {
	ref := input.images[_]
	not verified(ref)
	msg := sprintf("image %s has no signature from a trusted key", [ref])
}

verified(ref) {
	some signed
	signed_by_trusted[signed]
	image.equal_ref(ref, signed)
}

payload(sig) = json.unmarshal(base64.decode(sig.payload))

deny[msg] {
	sig := input.signatures[_]
	p := payload(sig)
	p.critical.identity["docker-reference"] != image.parse(sig.image).repo
	msg := sprintf("signature payload names %s, not %s", [p.critical.identity["docker-reference"], image.parse(sig.image).repo])
}
