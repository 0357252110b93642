package compliance_report

bad := {"resources": [
	{"type": "storage_resource", "name": "s", "config": {"public_access": true, "logging_enabled": true, "tags": {"owner": "x"}, "ingress_cidrs": [], "volumes": [], "retention_days": 100, "tls_version": "1.2", "display_name": "good-name", "rules": [], "admins": ["a"]}},
	{"type": "kms_resource", "name": "k", "config": {"logging_enabled": false, "tags": {"owner": "x"}, "ingress_cidrs": [], "volumes": [], "retention_days": 100, "tls_version": "1.2", "display_name": "good-name", "rules": [], "admins": ["a"]}},
]}

test_summary if {
	s := summary with input as bad
	s.total == 2
	s.failing_ids == {"CPK-STO-002", "CPK-KMS-001"}
}

test_by_severity if {
	r := by_severity with input as bad
	sum([n | some n in r]) == 2
}
