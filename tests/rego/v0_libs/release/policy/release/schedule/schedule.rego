package policy.release.schedule

import data.lib.time as lib_time

weekday := time.weekday(lib_time.now_ns)

blocked_days := {"Saturday", "Sunday"}

deny[msg] {
	blocked_days[weekday]
	not input.emergency
	msg := sprintf("releases are not allowed on %s", [weekday])
}

freeze_windows := [w | w := data.rule_data.freezes[_]]

in_window(w) {
	time.parse_rfc3339_ns(w.start) <= lib_time.now_ns
	lib_time.now_ns < time.parse_rfc3339_ns(w.end)
}

deny[msg] {
	w := freeze_windows[_]
	in_window(w)
	msg := sprintf("release freeze %s is in effect", [w.name])
}
