package sam

test_bucket {
	deny["bucket Data has no encryption"] with input as {"Resources": {"Data": {"Type": "AWS::S3::Bucket", "Properties": {}}}}
}

test_bucket_encrypted {
	count(deny) == 0 with input as {"Resources": {"Data": {"Type": "AWS::S3::Bucket", "Properties": {"BucketEncryption": {}}}}}
}

test_star_action {
	deny["function Fn allows every action"] with input as {"Resources": {"Fn": {"Type": "AWS::Serverless::Function", "Properties": {"Policies": [{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}]}}}}
}

test_many_functions {
	fns := {sprintf("F%d", [i]): {"Type": "AWS::Serverless::Function", "Properties": {}} | numbers.range(1, 11)[i]}
	warn["more than 10 functions in one template"] with input as {"Resources": fns}
}
