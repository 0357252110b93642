package golden

allow if input.admin

check if {
	allow with input as {"admin": flag}
}
