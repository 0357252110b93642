package github.workflows

pinned(uses) {
	regex.match(`@[0-9a-f]{40}$`, uses)
}

local_action(uses) {
	startswith(uses, "./")
}

steps[[job, i, step]] {
	step := input.jobs[job].steps[i]
}

deny[msg] {
	steps[[job, i, step]]
	step.uses
	not local_action(step.uses)
	not pinned(step.uses)
	msg := sprintf("job %s step %d: action %s is not pinned to a commit", [job, i, step.uses])
}

deny[msg] {
	input.permissions == "write-all"
	msg := "workflow asks for write-all permissions"
}

warn[msg] {
	steps[[job, i, step]]
	contains(step.run, "${{ github.event.")
	msg := sprintf("job %s step %d interpolates event data into a shell", [job, i])
}
