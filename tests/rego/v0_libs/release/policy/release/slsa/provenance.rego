package policy.release.slsa.provenance

import data.lib
import data.lib.time as lib_time

# METADATA
# title: Builder is trusted
# custom:
#   short_name: builder_trusted
deny[result] {
	att := input.attestations[_]
	builder := att.predicate.builder.id
	not lib.to_set(data.rule_data.trusted_builders)[builder]
	result := lib.result_helper(rules.builder_trusted, [builder])
}

deny[result] {
	att := input.attestations[_]
	material := att.predicate.materials[_]
	not startswith(material.uri, "git+")
	result := lib.result_helper(rules.material_is_git, [material.uri])
}

warn[result] {
	count(input.attestations) == 0
	result := lib.result_helper(rules.no_attestations, [])
}

rules.builder_trusted = {"code": "slsa.builder_trusted", "msg": "Builder %s is not trusted", "effective_on": lib_time.effective_on}

rules.material_is_git = {"code": "slsa.material_is_git", "msg": "Material %s is not a git source", "effective_on": lib_time.effective_on}

rules.no_attestations = {"code": "slsa.no_attestations", "msg": "No attestations were found", "effective_on": lib_time.effective_on}

# Params with secrets redacted (object comprehension + walk)
redacted_params = {k: v |
	p := input.attestations[_].predicate.invocation.parameters
	v0 := p[k]
	v := redact(k, v0)
}

redact(k, v) = "***" {
	contains(lower(k), "token")
} else = v {
	true
}

secret_paths[path] {
	walk(input.attestations, [path, value])
	is_string(value)
	startswith(value, "ghp_")
}
