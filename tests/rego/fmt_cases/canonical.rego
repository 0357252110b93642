# Already in opa fmt's layout: cupcake fmt leaves every byte as it is.
package cupcake.policies.claude.canonical

import rego.v1

default allow := false

allow if {
	input.user in {"alice", "bob"}
	not blocked
}

blocked if input.tool_name == "Bash"

labels := {
	"bash": "shell",
	"edit": "file",
}

q := 1 if {
	input.a > 0
	input.b > 1
} else := 2 if input.c

names := [name | some name, _ in input.env; startswith(name, "AWS_")]

totals := {k: count(v) | some k, v in input.groups}

checks if {
	every f in input.files {
		# each file must be small
		f.size < 1000
	}
	count(input.files) > 0 with input.files as [{"size": 1}]
}

a.b.c := 1
a.b.d := 2

# trailing notes
