package golden

p if {
	is_admin(input.user)
}
