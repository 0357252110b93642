package lib

result_helper(chain, params) = result {
	result := {
		"code": chain.code,
		"msg": sprintf(chain.msg, params),
		"effective_on": chain.effective_on,
	}
}

# v0 ref heads: rule names with dots, as OPA 0.x parses them
rule_data.defaults.allowed_registries = ["registry.corp.example/"]

rule_data.defaults.max_age_days = 30

rule_data.defaults.allowed_java_repos = ["https://maven.corp.example/"]

rule_data_value(key) = value {
	value := data.rule_data[key]
} else = value {
	value := rule_data.defaults[key]
}

to_set(arr) = {x | x := arr[_]}

quoted_values_string(values) = concat(", ", sorted) {
	sorted := sort([sprintf("%q", [v]) | v := values[_]])
}

pretty_level(n) = "fatal" {
	n >= 4
} else = "high" {
	n >= 3
} else = "medium" {
	n >= 2
} else = "low" {
	n >= 1
} else = "none" {
	true
}

# A result from the METADATA of the rule that produced it (rego.metadata.chain()):
# its code is "<package leaf>.<custom.short_name>", its message custom.failure_msg.
result_from_chain(chain, params) = {"code": code, "msg": msg, "title": title} {
	rule := chain[0]
	code := concat(".", [rule.path[count(rule.path) - 2], rule.annotations.custom.short_name])
	msg := sprintf(rule.annotations.custom.failure_msg, params)
	title := rule.annotations.title
}
