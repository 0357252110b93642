# METADATA
# title: Attestation type
# description: >-
#   Every attestation is an in-toto statement of a known predicate type.
package policy.release.attestation_type

import data.lib

known_types := {"https://slsa.dev/provenance/v0.2", "https://slsa.dev/provenance/v1", "https://spdx.dev/Document"}

# METADATA
# title: Known attestation type
# custom:
#   short_name: known_attestation_type
#   failure_msg: Unknown attestation type '%s'
deny[result] {
	att := input.attestations[_]
	t := att.statement.predicateType
	not known_types[t]
	result := lib.result_from_chain(rego.metadata.chain(), [t])
}

# METADATA
# title: In-toto statement
# custom:
#   short_name: statement_type
#   failure_msg: Attestation %d is not an in-toto statement
deny[result] {
	some i
	att := input.attestations[i]
	att.statement._type != "https://in-toto.io/Statement/v0.1"
	result := lib.result_from_chain(rego.metadata.chain(), [i])
}

package_title := rego.metadata.chain()[1].annotations.title

rule_entry := rego.metadata.chain()[0]
