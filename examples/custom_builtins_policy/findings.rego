package examples.findings

import rego.v1

# The last path segment of each written file, and one finding per file under /etc.
deny contains result.new(sprintf("%s may not be written", [regal.last(parts)]), f) if {
	some f in input.files
	parts := split(f.path, "/")
	parts[1] == "etc"
}
