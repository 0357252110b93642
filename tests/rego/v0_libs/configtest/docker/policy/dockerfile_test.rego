package main

dockerfile(cmds) = [{"Cmd": c[0], "Value": c[1]} | c := cmds[_]]

test_openjdk_denied {
	deny["unallowed image found [\"openjdk:8\"]"] with input as dockerfile([["from", ["openjdk:8"]], ["user", ["app"]]])
}

test_registry_warning {
	warn["image alpine:3 is not pulled from registry.corp.example/"] with input as dockerfile([["from", ["alpine:3"]], ["user", ["app"]]])
}

test_registry_ok {
	count(warn) == 0 with input as dockerfile([["from", ["registry.corp.example/alpine:3"]], ["user", ["app"]]])
}

test_root {
	deny["the image runs as root: add a USER instruction"] with input as dockerfile([["from", ["registry.corp.example/alpine:3"]]])
}

test_settings_mocked {
	count(warn) == 0 with input as dockerfile([["from", ["alpine:3"]]]) with data.docker.settings.registry as "alpine"
}
