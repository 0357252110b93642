package examples.findings_test

import data.examples.findings
import rego.v1

test_etc_file_is_a_finding if {
	got := findings.deny with input as {"files": [{"path": "/etc/passwd", "__defsec_metadata": {"startline": 3}}]}
	got == {{"msg": "passwd may not be written", "startline": 3}}
}

test_other_files_are_fine if {
	count(findings.deny) == 0 with input as {"files": [{"path": "/home/me/notes"}]}
}

test_last_of_empty_is_undefined if not regal.last([])

test_last if regal.last([1, 2, 3]) == 3
