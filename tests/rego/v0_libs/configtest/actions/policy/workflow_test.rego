package github.workflows

wf(steps) = {"on": "push", "jobs": {"build": {"runs-on": "ubuntu-latest", "steps": steps}}}

test_unpinned {
	deny["job build step 0: action actions/checkout@v4 is not pinned to a commit"] with input as wf([{"uses": "actions/checkout@v4"}])
}

test_pinned_and_local {
	count(deny) == 0 with input as wf([{"uses": "actions/checkout@0123456789abcdef0123456789abcdef01234567"}, {"uses": "./.github/actions/x"}, {"run": "make"}])
}

test_write_all {
	deny["workflow asks for write-all permissions"] with input as object.union(wf([]), {"permissions": "write-all"})
}

test_injection {
	warn["job build step 1 interpolates event data into a shell"] with input as wf([{"run": "ls"}, {"run": "echo ${{ github.event.issue.title }}"}])
}
