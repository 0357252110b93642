package main

# Input exported from CUE as a list of documents: one rule per document kind.
deny[msg] {
	doc := input[_]
	doc.kind == "Deployment"
	c := doc.spec.template.spec.containers[_]
	not c.securityContext.readOnlyRootFilesystem
	msg := sprintf("%s/%s: container %s has a writable root filesystem", [doc.kind, doc.metadata.name, c.name])
}

warn[msg] {
	doc := input[i]
	not doc.metadata.namespace
	msg := sprintf("document %d (%s) has no namespace", [i, doc.kind])
}
