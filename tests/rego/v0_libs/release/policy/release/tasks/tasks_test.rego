package policy.release.tasks

run(tasks) = {"pipeline_run": {"tasks": [{"name": n, "status": s} | t := tasks[_]; n := t[0]; s := t[1]]}}

test_all_good {
	count(deny) == 0 with input as run([["clone", "Succeeded"], ["build", "Succeeded"], ["scan", "Succeeded"], ["sign", "Succeeded"]])
}

test_missing {
	d := deny with input as run([["clone", "Succeeded"], ["build", "Succeeded"]])
	d == {{"code": "tasks.required", "msg": "required tasks are missing: \"scan\", \"sign\"", "effective_on": "2022-01-01T00:00:00Z"}}
}

test_failed {
	d := deny with input as run([["clone", "Succeeded"], ["build", "Failed"], ["scan", "Succeeded"], ["sign", "Succeeded"]])
	[r.msg | r := d[_]] == ["task build did not succeed"]
}

test_mock_required_tasks {
	count(deny) == 0 with input as run([["x", "Succeeded"]]) with required_tasks as {"x"}
}
