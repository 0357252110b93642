"""Generate a Rego v0 policy library shaped like a Kubernetes admission-control library: one
directory per template (`library/<group>/<name>/src.rego` + `src_test.rego`), written entirely in
pre-1.0 syntax (bodies without `if`, `violation[{...}] { ... }` partial sets, `=` heads, `else =`
chains, `default x = v`, deprecated builtins such as `re_match` and `any`), a few files importing
`future.keywords`, shared helpers under `lib/` imported by every template, and one template
carrying a large constant JSON schema. CI for such libraries runs one `opa test --v0-compatible
lib/ <template>/` process per template directory.

    python benches/admission_corpus.py OUT_DIR [TEMPLATES]   # prints {"templates": n, "tests": n}

In: the output directory and the number of template directories. Out: the files, and the
counts. Every test rule passes under OPA's v0 semantics (checked against regorus's v0 mode by
tests/rego/test_v0_library.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LIB = {
    "lib/helpers.rego": """package lib.helpers

has_field(obj, field) {
	_ = obj[field]
}

get_default(obj, field, d) = obj[field] {
	has_field(obj, field)
}

get_default(obj, field, d) = d {
	not has_field(obj, field)
}

containers[c] {
	c := input.review.object.spec.containers[_]
}

containers[c] {
	c := input.review.object.spec.initContainers[_]
}

name = n {
	n := input.review.object.metadata.name
} else = "<unnamed>" {
	true
}
""",
    "lib/exempt.rego": """package lib.exempt

import future.keywords.in

exempt_image(image) {
	some prefix in input.parameters.exemptImages
	startswith(image, prefix)
}
""",
}

KINDS = {
    "requiredlabels": ("""package {pkg}

import data.lib.helpers

violation[{{"msg": msg, "details": {{"missing_labels": missing}}}}] {{
	provided := {{label | input.review.object.metadata.labels[label]}}
	required := {{label | label := input.parameters.labels[_].key}}
	missing := required - provided
	count(missing) > 0
	msg := sprintf("%v: you must provide labels: %v", [helpers.name, missing])
}}

violation[{{"msg": msg}}] {{
	value := input.review.object.metadata.labels[key]
	expected := input.parameters.labels[_]
	expected.key == key
	expected.allowedRegex != ""
	not {re_match}(expected.allowedRegex, value)
	msg := sprintf("label <%v: %v> does not match <%v>", [key, value, expected.allowedRegex])
}}
""", """package {pkg}

review(labels) = out {{
	out := {{"object": {{"metadata": {{"name": "x", "labels": labels}}}}}}
}}

params = {{"labels": [{{"key": "owner", "allowedRegex": "^[a-z]+$"}}]}}

test_missing {{
	count(violation) == 1 with input as {{"review": review({{}}), "parameters": params}}
}}

test_present {{
	count(violation) == 0 with input as {{"review": review({{"owner": "alice"}}), "parameters": params}}
}}

test_bad_regex {{
	count(violation) == 1 with input as {{"review": review({{"owner": "Alice1"}}), "parameters": params}}
}}
"""),
    "allowedrepos": ("""package {pkg}

import data.lib.exempt
import data.lib.helpers

violation[{{"msg": msg}}] {{
	container := helpers.containers[_]
	not exempt.exempt_image(container.image)
	satisfied := [good | repo := input.parameters.repos[_]; good := startswith(container.image, repo)]
	not {any}(satisfied)
	msg := sprintf("container <%v> has an invalid image repo <%v>", [container.name, container.image])
}}
""", """package {pkg}

pod(images) = {{"review": {{"object": {{"metadata": {{"name": "p"}}, "spec": {{"containers": cs}}}}}}}} {{
	cs := [{{"name": sprintf("c%v", [i]), "image": img}} | img := images[i]]
}}

test_allowed {{
	count(violation) == 0 with input as object.union(pod(["ok.io/a"]), {{"parameters": {{"repos": ["ok.io/"], "exemptImages": []}}}})
}}

test_denied {{
	count(violation) == 1 with input as object.union(pod(["ok.io/a", "evil.io/b"]), {{"parameters": {{"repos": ["ok.io/"], "exemptImages": []}}}})
}}

test_exempt {{
	count(violation) == 0 with input as object.union(pod(["evil.io/b"]), {{"parameters": {{"repos": ["ok.io/"], "exemptImages": ["evil.io/"]}}}})
}}
"""),
    "containerlimits": ("""package {pkg}

import data.lib.helpers

mem_multiple("Ki") = 1024
mem_multiple("Mi") = 1048576
mem_multiple("Gi") = 1073741824
mem_multiple("") = 1

canonify_mem(orig) = new {{
	is_number(orig)
	new := orig
}}

canonify_mem(orig) = new {{
	not is_number(orig)
	suffix := substring(orig, count(orig) - 2, -1)
	mem_multiple(suffix)
	new := to_number(substring(orig, 0, count(orig) - 2)) * mem_multiple(suffix)
}}

violation[{{"msg": msg}}] {{
	container := helpers.containers[_]
	not container.resources.limits.memory
	msg := sprintf("container <%v> has no memory limit", [container.name])
}}

violation[{{"msg": msg}}] {{
	container := helpers.containers[_]
	mem := canonify_mem(container.resources.limits.memory)
	max := canonify_mem(input.parameters.memory)
	mem > max
	msg := sprintf("container <%v> memory limit <%v> is higher than the maximum allowed of <%v>", [container.name, container.resources.limits.memory, input.parameters.memory])
}}
""", """package {pkg}

pod(limits) = {{"review": {{"object": {{"metadata": {{"name": "p"}}, "spec": {{"containers": [{{"name": "c", "resources": {{"limits": limits}}}}]}}}}}}, "parameters": {{"memory": "1Gi"}}}} {{
	true
}}

test_no_limit {{
	count(violation) == 1 with input as pod({{}})
}}

test_under {{
	count(violation) == 0 with input as pod({{"memory": "512Mi"}})
}}

test_over {{
	count(violation) == 1 with input as pod({{"memory": "2Gi"}})
}}
"""),
    "httpsonly": ("""package {pkg}

import future.keywords.if
import future.keywords.contains

violation contains {{"msg": msg}} if {{
	input.review.object.kind == "Ingress"
	not https_complete(input.review.object)
	msg := "Ingress should be https. tls configuration and allow-http=false annotation are required"
}}

https_complete(ingress) = true {{
	ingress.spec.tls
	count(ingress.spec.tls) > 0
	ingress.metadata.annotations["kubernetes.io/ingress.allow-http"] == "false"
}}
""", """package {pkg}

ing(tls, ann) = {{"review": {{"object": {{"kind": "Ingress", "metadata": {{"annotations": ann}}, "spec": {{"tls": tls}}}}}}}}

test_https {{
	count(violation) == 0 with input as ing([{{"hosts": ["a"]}}], {{"kubernetes.io/ingress.allow-http": "false"}})
}}

test_http {{
	count(violation) == 1 with input as ing([], {{}})
}}
"""),
    "privileged": ("""package {pkg}

import data.lib.helpers

default allow_privilege_escalation = false

violation[{{"msg": msg, "details": {{}}}}] {{
	c := helpers.containers[_]
	c.securityContext.privileged
	msg := sprintf("Privileged container is not allowed: %v, securityContext: %v", [c.name, c.securityContext])
}}

violation[{{"msg": msg}}] {{
	c := helpers.containers[_]
	escalates(c)
	not allow_privilege_escalation
	msg := sprintf("container <%v> may escalate", [c.name])
}}

escalates(c) {{
	not has_key(c, "securityContext")
}}

escalates(c) {{
	c.securityContext.allowPrivilegeEscalation != false
}}

has_key(x, k) {{
	_ = x[k]
}}
""", """package {pkg}

pod(sc) = {{"review": {{"object": {{"spec": {{"containers": [{{"name": "c", "securityContext": sc}}]}}}}}}}}

test_privileged {{
	count(violation) == 1 with input as pod({{"privileged": true}})
}}

test_locked_down {{
	count(violation) == 0 with input as pod({{"privileged": false, "allowPrivilegeEscalation": false}})
}}
"""),
    "replicalimits": ("""package {pkg}

object_name = input.review.object.metadata.name

object_kind = input.review.object.kind

violation[{{"msg": msg}}] {{
	spec := input.review.object.spec
	not input_replica_limit(spec)
	msg := sprintf("The provided number of replicas is not allowed for %v: %v", [object_kind, object_name])
}}

input_replica_limit(spec) {{
	provided := spec.replicas
	count(input.parameters.ranges) > 0
	range := input.parameters.ranges[_]
	value_within_range(range, provided)
}}

value_within_range(range, value) {{
	range.min_replicas <= value
	range.max_replicas >= value
}}
""", """package {pkg}

dep(n) = {{"review": {{"object": {{"kind": "Deployment", "metadata": {{"name": "d"}}, "spec": {{"replicas": n}}}}}}, "parameters": {{"ranges": [{{"min_replicas": 2, "max_replicas": 5}}]}}}}

test_in_range {{
	count(violation) == 0 with input as dep(3)
}}

test_out_of_range {{
	count(violation) == 1 with input as dep(9)
}}

test_no_ranges {{
	count(violation) == 1 with input as {{"review": {{"object": {{"kind": "Deployment", "metadata": {{"name": "d"}}, "spec": {{"replicas": 3}}}}}}, "parameters": {{"ranges": []}}}}
}}
"""),
}


def _schema(width: int) -> dict[str, object]:
    node: dict[str, object] = {"type": "string", "enum": ["a", "b", "c"]}
    for depth in range(14):
        node = {"type": "object", "title": f"level {depth}", "properties": {"inner": node}}
    props = node["properties"]
    assert isinstance(props, dict)
    props.update({f"field{i}": {"type": "string", "maxLength": 64, "description": "d" * 40}
                  for i in range(width)})
    return node


def _schema_template(pkg: str) -> tuple[str, str]:
    src = (f"package {pkg}\n\nschema = {json.dumps(_schema(1500), indent=1)}\n\n"
           "violation[{\"msg\": \"spec does not match the schema\"}] {\n"
           "\tnot json.match_schema(input.review.object.spec, schema)[0]\n}\n")
    test = (f"package {pkg}\n\ntest_valid {{\n\tcount(violation) == 0 with input as "
            "{\"review\": {\"object\": {\"spec\": {\"field1\": \"x\"}}}}\n}\n\n"
            "test_invalid {\n\tcount(violation) == 1 with input as "
            "{\"review\": {\"object\": {\"spec\": {\"field1\": 3}}}}\n}\n")
    return src, test


# `deprecated=False`: the same checks without OPA's deprecated builtins (regorus has none of them)
DEPRECATED = {True: {"re_match": "re_match", "any": "any"},
              False: {"re_match": "regex.match", "any": "_any_true"}}
ANY_TRUE = "\n_any_true(xs) {\n\txs[_] == true\n}\n"


def generate(out: Path, templates: int = 40, schema_template: bool = True, deprecated: bool = True) -> dict[str, int]:
    """Write the library under `out`; returns the number of template directories and tests."""
    tests = 0
    for rel, text in LIB.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    kinds = sorted(KINDS)
    for i in range(templates):
        kind = kinds[i % len(kinds)]
        name = f"{kind}{i}"
        pkg = f"k8s{name}"
        src, test = KINDS[kind]
        if schema_template and i == templates - 1:
            src_text, test_text = _schema_template(pkg)
        else:
            src_text, test_text = src.format(pkg=pkg, **DEPRECATED[deprecated]), test.format(pkg=pkg)
            if not deprecated and "_any_true(" in src_text:
                src_text += ANY_TRUE
        d = out / "library" / ("general" if i % 2 else "pod-security") / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "src.rego").write_text(src_text)
        (d / "src_test.rego").write_text(test_text)
        tests += test_text.count("\ntest_")
    return {"templates": templates, "tests": tests}


def template_dirs(out: Path) -> list[Path]:
    return sorted(p.parent for p in (out / "library").rglob("src.rego"))


if __name__ == "__main__":
    counts = generate(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40)
    print(json.dumps(counts))
