package policy.release.java

dep(g, a, repo, src) = {"group": g, "artifact": a, "repository": repo, "built_from_source": src}

test_all_known {
	count(deny) == 0 with input as {"java": {"dependencies": [dep("org.a", "x", "https://maven.corp.example/r", false), dep("org.b", "y", "https://evil/", true)]}}
}

test_foreign {
	deny["2 dependencies come from unknown repositories: com.c:z, org.b:y"] with input as {"java": {"dependencies": [dep("org.b", "y", "https://evil/", false), dep("com.c", "z", "https://repo1/", false)]}}
}

test_rule_data_override {
	count(deny) == 0 with input as {"java": {"dependencies": [dep("org.b", "y", "https://repo1/", false)]}} with data.rule_data.allowed_java_repos as ["https://repo1/"]
}
