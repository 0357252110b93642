package sam

resources_of(t) = {name: r | r := input.Resources[name]; r.Type == t}

deny[msg] {
	bucket := resources_of("AWS::S3::Bucket")[name]
	not bucket.Properties.BucketEncryption
	msg := sprintf("bucket %s has no encryption", [name])
}

deny[msg] {
	fn := resources_of("AWS::Serverless::Function")[name]
	policy := fn.Properties.Policies[_]
	statement := policy.Statement[_]
	statement.Effect == "Allow"
	statement.Action == "*"
	msg := sprintf("function %s allows every action", [name])
}

warn[msg] {
	count(resources_of("AWS::Serverless::Function")) > 10
	msg := "more than 10 functions in one template"
}
