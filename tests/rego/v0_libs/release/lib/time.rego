package lib.time

default effective_on = "2022-01-01T00:00:00Z"

effective_on = data.config.effective_on

# The time the policy is evaluated at, overridable by data.config.when_ns.
now_ns = data.config.when_ns {
	true
} else = time.now_ns() {
	true
}

when(rule_data) = effective {
	effective := time.parse_rfc3339_ns(rule_data.effective_on)
} else = effective {
	effective := time.parse_rfc3339_ns(effective_on)
}

is_effective(rule_data) {
	when(rule_data) <= now_ns
}
