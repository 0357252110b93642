package docker_compose

test_old_version {
	deny["compose file version 2.1 is too old (3+ required)"] with input as {"version": "2.1", "services": {}}
}

test_latest {
	deny["service web uses a latest image"] with input as {"version": "3.8", "services": {"web": {"image": "nginx:latest"}}}
}

test_privileged_ports {
	w := warn with input as {"version": "3", "services": {
		"a": {"image": "x:1", "ports": ["80:80"]},
		"b": {"image": "x:1", "ports": ["127.0.0.1:8080:80"]},
		"c": {"image": "x:1", "ports": [{"published": 443, "target": 443}]},
	}}
	w == {"service a publishes a privileged port", "service c publishes a privileged port"}
}

test_volumes {
	services_with_volumes == {"db": 2} with input as {"version": "3", "services": {"db": {"image": "pg:1", "volumes": ["a:/a", "b:/b"]}, "web": {"image": "w:1"}}}
}
