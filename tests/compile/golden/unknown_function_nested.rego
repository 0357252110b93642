package golden

p := n if {
	n := strings.count_words(input.text) + 1
}
