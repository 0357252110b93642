package golden

deny contains msg if {
	input.user == "mallory"
}
