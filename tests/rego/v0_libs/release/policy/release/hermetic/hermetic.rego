package policy.release.hermetic

params := {p.name: p.value | p := input.build.params[_]}

default hermetic = false

hermetic {
	params.HERMETIC == "true"
}

deny[msg] {
	not hermetic
	msg := "the build was not hermetic"
}

deny[msg] {
	hermetic
	url := input.build.fetched[_]
	not net_allowed(url)
	msg := sprintf("hermetic build fetched %s", [url])
}

net_allowed(url) {
	glob.match("https://proxy.corp.example/**", ["/"], url)
}
