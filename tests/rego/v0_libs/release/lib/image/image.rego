package lib.image

# Parse "registry/repo:tag@sha256:digest" references.
parse(ref) = out {
	[rest, digest] := split_digest(ref)
	[repo, tag] := split_tag(rest)
	out := {"repo": repo, "tag": tag, "digest": digest}
}

split_digest(ref) = [parts[0], parts[1]] {
	parts := split(ref, "@")
	count(parts) == 2
} else = [ref, ""] {
	true
}

split_tag(ref) = [repo, tag] {
	last := regex.split("/", ref)
	name := last[count(last) - 1]
	contains(name, ":")
	tag := split(name, ":")[1]
	repo := trim_suffix(ref, concat("", [":", tag]))
} else = [ref, ""] {
	true
}

equal_ref(a, b) {
	pa := parse(a)
	pb := parse(b)
	pa.repo == pb.repo
	pa.digest == pb.digest
}

str(p) = concat("", [p.repo, tag_part, digest_part]) {
	tag_part := prefixed(":", p.tag)
	digest_part := prefixed("@", p.digest)
}

prefixed(_, "") = ""

prefixed(sep, s) = concat("", [sep, s]) {
	s != ""
}
