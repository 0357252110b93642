package lib.v1_helpers

# Written in Rego v1: selected per file by the .manifest's file_rego_versions.
port_open(rule, port) if {
	rule.from_port <= port
	port <= rule.to_port
}

names contains n if {
	some r in input.resources
	n := r.name
}
