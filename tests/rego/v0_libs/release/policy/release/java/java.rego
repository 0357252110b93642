package policy.release.java

import data.lib

# Dependencies built from source are fine; others must come from an allowed repository.
allowed_repos := lib.to_set(lib.rule_data_value("allowed_java_repos"))

foreign[dep] {
	dep := input.java.dependencies[_]
	not dep.built_from_source
	not from_allowed(dep)
}

from_allowed(dep) {
	startswith(dep.repository, allowed_repos[_])
}

deny[msg] {
	count(foreign) > 0
	names := sort([sprintf("%s:%s", [d.group, d.artifact]) | d := foreign[_]])
	msg := sprintf("%d dependencies come from unknown repositories: %s", [count(names), concat(", ", names)])
}
