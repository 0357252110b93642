package policy.release.tasks

import data.lib

required_tasks := {"clone", "build", "scan", "sign"}

task_names[name] {
	name := input.pipeline_run.tasks[_].name
}

succeeded[name] {
	t := input.pipeline_run.tasks[_]
	t.status == "Succeeded"
	name := t.name
}

deny[result] {
	missing := required_tasks - task_names
	count(missing) > 0
	result := lib.result_helper({"code": "tasks.required", "msg": "required tasks are missing: %s", "effective_on": "2022-01-01T00:00:00Z"}, [lib.quoted_values_string(missing)])
}

deny[result] {
	name := task_names[_]
	not succeeded[name]
	result := lib.result_helper({"code": "tasks.failed", "msg": "task %s did not succeed", "effective_on": "2022-01-01T00:00:00Z"}, [name])
}
