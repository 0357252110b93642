package main

import data.docker.settings

denylist = ["openjdk"]

deny[msg] {
	some i
	input[i].Cmd == "from"
	val := input[i].Value
	contains(val[0], denylist[_])
	msg = sprintf("unallowed image found %s", [val])
}

warn[msg] {
	input[i].Cmd == "from"
	image := input[i].Value[0]
	not startswith(image, settings.registry)
	msg := sprintf("image %s is not pulled from %s", [image, settings.registry])
}

deny[msg] {
	not any_user
	msg := "the image runs as root: add a USER instruction"
}

any_user {
	input[_].Cmd == "user"
}
