package policy.release.test_results

results := input.tests.results

totals := {"passed": count([r | r := results[_]; r.outcome == "passed"]), "failed": count([r | r := results[_]; r.outcome == "failed"]), "skipped": count([r | r := results[_]; r.outcome == "skipped"])}

deny[msg] {
	totals.failed > 0
	names := sort([r.name | r := results[_]; r.outcome == "failed"])
	msg := sprintf("%d test(s) failed: %s", [totals.failed, concat(", ", names)])
}

deny[msg] {
	count(results) == 0
	msg := "no test results"
}

warn[msg] {
	ratio := totals.skipped / count(results)
	ratio > 0.1
	msg := sprintf("%d%% of tests were skipped", [round(ratio * 100)])
}
