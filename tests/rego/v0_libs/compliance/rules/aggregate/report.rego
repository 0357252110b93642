package compliance_report

import data.lib.common

# v1 file (the manifest selects it): gathers every rule's findings.
findings contains f if {
	some svc, kind
	some f in data.rules[svc][kind].deny
}

by_severity[sev] := n if {
	some sev in object.keys(common.severity_rank)
	n := count([f | some f in findings; f.severity == sev])
}

summary := {"total": count(findings), "failing_ids": {f.id | some f in findings}}
