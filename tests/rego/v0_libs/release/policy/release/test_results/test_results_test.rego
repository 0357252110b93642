package policy.release.test_results

r(pairs) = {"tests": {"results": [{"name": p[0], "outcome": p[1]} | p := pairs[_]]}}

test_all_passed {
	count(deny) == 0 with input as r([["a", "passed"], ["b", "passed"]])
}

test_failures {
	deny["2 test(s) failed: a, c"] with input as r([["c", "failed"], ["b", "passed"], ["a", "failed"]])
}

test_none {
	deny["no test results"] with input as r([])
}

test_skipped_warning {
	warn["50% of tests were skipped"] with input as r([["a", "passed"], ["b", "skipped"]])
}
