package k8scontainerlimits

import data.lib.exempt_container.is_exempt

missing(obj, field) = true {
	not obj[field]
}

missing(obj, field) = true {
	obj[field] == ""
}

canonify_cpu(orig) = new {
	is_number(orig)
	new := orig * 1000
}

canonify_cpu(orig) = new {
	not is_number(orig)
	endswith(orig, "m")
	new := to_number(replace(orig, "m", ""))
}

canonify_cpu(orig) = new {
	not is_number(orig)
	not endswith(orig, "m")
	re_match("^[0-9]+(\\.[0-9]+)?$", orig)
	new := to_number(orig) * 1000
}

mem_multiple("E") = 1000000000000000000000

mem_multiple("P") = 1000000000000000000

mem_multiple("T") = 1000000000000000

mem_multiple("G") = 1000000000000

mem_multiple("M") = 1000000000

mem_multiple("k") = 1000000

mem_multiple("") = 1000

mem_multiple("Ki") = 1024000

mem_multiple("Mi") = 1048576000

mem_multiple("Gi") = 1073741824000

get_suffix(mem) = suffix {
	not is_string(mem)
	suffix := ""
}

get_suffix(mem) = suffix {
	is_string(mem)
	count(mem) > 0
	suffix := substring(mem, count(mem) - 1, -1)
	mem_multiple(suffix)
}

get_suffix(mem) = suffix {
	is_string(mem)
	count(mem) > 1
	suffix := substring(mem, count(mem) - 2, -1)
	mem_multiple(suffix)
}

get_suffix(mem) = suffix {
	is_string(mem)
	not substring(mem, count(mem) - 1, -1) == "i"
	re_match("^[0-9]+$", mem)
	suffix := ""
}

canonify_mem(orig) = new {
	is_number(orig)
	new := orig * 1000
}

canonify_mem(orig) = new {
	not is_number(orig)
	suffix := get_suffix(orig)
	raw := replace(orig, suffix, "")
	re_match("^[0-9]+(\\.[0-9]+)?$", raw)
	new := to_number(raw) * mem_multiple(suffix)
}

general_violation[{"msg": msg, "field": field}] {
	field := "containers"
	container := input.review.object.spec[field][_]
	not is_exempt(container)
	missing(container.resources, "limits")
	msg := sprintf("container <%v> has no resource limits", [container.name])
}

general_violation[{"msg": msg, "field": field}] {
	field := "containers"
	container := input.review.object.spec[field][_]
	not is_exempt(container)
	cpu_orig := container.resources.limits.cpu
	not canonify_cpu(cpu_orig)
	msg := sprintf("container <%v> cpu limit <%v> could not be parsed", [container.name, cpu_orig])
}

general_violation[{"msg": msg, "field": field}] {
	field := "containers"
	container := input.review.object.spec[field][_]
	not is_exempt(container)
	mem_orig := container.resources.limits.memory
	not canonify_mem(mem_orig)
	msg := sprintf("container <%v> memory limit <%v> could not be parsed", [container.name, mem_orig])
}

general_violation[{"msg": msg, "field": field}] {
	field := "containers"
	container := input.review.object.spec[field][_]
	not is_exempt(container)
	cpu := canonify_cpu(container.resources.limits.cpu)
	max_cpu := canonify_cpu(input.parameters.cpu)
	cpu > max_cpu
	msg := sprintf("container <%v> cpu limit <%v> is higher than the maximum allowed of <%v>", [container.name, container.resources.limits.cpu, input.parameters.cpu])
}

general_violation[{"msg": msg, "field": field}] {
	field := "containers"
	container := input.review.object.spec[field][_]
	not is_exempt(container)
	mem := canonify_mem(container.resources.limits.memory)
	max_mem := canonify_mem(input.parameters.memory)
	mem > max_mem
	msg := sprintf("container <%v> memory limit <%v> is higher than the maximum allowed of <%v>", [container.name, container.resources.limits.memory, input.parameters.memory])
}

violation[{"msg": msg}] {
	general_violation[{"msg": msg, "field": "containers"}]
}
