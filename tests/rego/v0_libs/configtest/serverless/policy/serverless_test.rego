package serverless

test_runtime_from_provider {
	deny["function hello uses deprecated runtime python3.6"] with input as {"provider": {"runtime": "python3.6"}, "functions": {"hello": {}}}
}

test_runtime_override {
	count(deny) == 0 with input as {"provider": {"runtime": "python3.6"}, "functions": {"hello": {"runtime": "python3.12"}}}
}

test_timeout {
	deny["function f timeout 60 exceeds 30"] with input as {"provider": {"runtime": "nodejs20.x"}, "functions": {"f": {"timeout": 60}}}
}

test_secrets {
	deny["function f has plain secrets in its environment: API_KEY, DB_PASSWORD"] with input as {"provider": {"runtime": "x"}, "functions": {"f": {"environment": {"API_KEY": "abc", "DB_PASSWORD": "p", "TOKEN_REF": "${ssm:/x}", "SECRET_OK": "${ssm:/y}", "MODE": "prod"}}}}
}

test_limits_mocked {
	count(deny) == 0 with input as {"provider": {"runtime": "python3.6"}, "functions": {"f": {"timeout": 60}}} with data.serverless.limits as {"deprecated_runtimes": [], "default_timeout": 1, "max_timeout": 100}
}
