package lib.exclude_update

is_update(review) {
	review.operation == "UPDATE"
}
