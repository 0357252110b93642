package   cupcake.policies.opencode.layout
import rego.v1
import data.lib.paths    # path helpers



import data.lib.words
# METADATA
# title: Deny edits of generated files
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Edit, Write]
deny contains decision if {
    some path in input.tool_paths   # every path the tool names
    # generated code is rebuilt, never edited
    endswith(path.path,".pb.go")


    decision := {"rule_id": "GEN-1", "reason": sprintf("%s is generated",[path.path]), "severity": "HIGH"}
}  # end of deny
limit:=10
window := 5
short(x) if x>limit
ratio := (limit+window)*2
nested := f((limit - 1) / 2)
f(x) = y if { y := x * 2 }
raw := `^\s*rm\s`
every_one_line if {
  every n in [1, 2] { n > 0 }
}
partial["a"] := 1
partial["b"] := 2
sets contains x if {
	x := {1,2,3}[_]
	not x == 2
}
# the end
