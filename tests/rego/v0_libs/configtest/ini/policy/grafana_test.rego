package main

test_http {
	deny["Grafana should serve HTTPS"] with input as {"server": {"protocol": "http"}}
}

test_anonymous {
	deny["anonymous access must be disabled"] with input as {"auth.anonymous": {"enabled": true}}
}

test_password_in_value {
	deny["[database] url looks like it holds a password"] with input as {"database": {"url": "postgres://u:PASSWORD@h"}}
}

test_clean {
	count(deny) == 0 with input as {"server": {"protocol": "https"}, "auth.anonymous": {"enabled": false}}
}
