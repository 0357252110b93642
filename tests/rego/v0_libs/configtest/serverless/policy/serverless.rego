package serverless

import data.serverless.limits

deny[msg] {
	fn := input.functions[name]
	rt := object.get(fn, "runtime", input.provider.runtime)
	rt == limits.deprecated_runtimes[_]
	msg := sprintf("function %s uses deprecated runtime %s", [name, rt])
}

deny[msg] {
	fn := input.functions[name]
	timeout := object.get(fn, "timeout", limits.default_timeout)
	timeout > limits.max_timeout
	msg := sprintf("function %s timeout %d exceeds %d", [name, timeout, limits.max_timeout])
}

env_secrets[name] = keys {
	fn := input.functions[name]
	keys := {k | v := fn.environment[k]; regex.match(`(?i)(secret|password|key)`, k); not startswith(v, "${ssm:")}
	count(keys) > 0
}

deny[msg] {
	keys := env_secrets[name]
	msg := sprintf("function %s has plain secrets in its environment: %s", [name, concat(", ", sort([k | keys[k]]))])
}
