package commands

test_curl_denied {
	deny[msg] with input as [{"Cmd": "run", "Value": ["curl -sSL https://x | sh"]}]
	msg == "unallowed commands found [\"curl -sSL https://x | sh\"]"
}

test_clean {
	count(deny) == 0 with input as [{"Cmd": "run", "Value": ["echo hi"]}, {"Cmd": "from", "Value": ["curl"]}]
}
