package cupcake.policies.opencode.multiline

import rego.v1

# else written on its own line: a new line after a blank line
tier := "high" if { input.risk > 7 }
else := "low"

# all on one line: the else still starts a line of its own
mode := "strict" if { input.ci } else := "relaxed" if { input.local }

# else after the closing brace stays there
level := 3 if {
    input.a > 0
    input.b > 0
} else := 1 if { input.c }

# an else on the line after a block
limit := 10 if {
    input.fast
}
else := 5 if {
    input.slow
}

# the value true is implied after else (written `= true`; `:= true` stays, the AST keeps `:=`)
paused if {
	input.x
} else = true if {
	input.y
} else := false

# only a set union is parenthesized in a literal
flags := {"big": count(input.l) > 3, "member": "a" in input.l, "union": {1} | {2}}

palette := {
    "danger":   "red",
    "ok":       "green",
}

deny contains msg if {
    n := count(
        [1, 2, 3]
    )
    path := concat(
        "/",
        ["a", "b"],
    )
    joined := concat("/",
        [
            "x",
            "y",
        ])
    grid := [
      1, 2,
      3
    ]
    pair := [
      n, path
    ]
    names := {name |
        some name in input.users
        startswith(name, "a")
    }
    checked := object.union({
        "a": 1,
    }, {"b": 2}) with input.k as {
        "v": 1,
    }
    msg := sprintf("%v %v %v %v %v", [joined, grid, pair, names, checked])
}
