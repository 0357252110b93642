package golden

settings := {"mode": "strict"}

p if {
	settings.mode == "lax" with data.golden.settings.mode as "lax"
}
