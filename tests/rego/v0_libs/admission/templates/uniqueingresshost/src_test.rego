package k8suniqueingresshost

review(name, ns, host) = {"kind": {"kind": "Ingress", "group": "networking.k8s.io"}, "object": ing(name, ns, host)}

ing(name, ns, host) = {"metadata": {"name": name, "namespace": ns}, "spec": {"rules": [{"host": host}]}}

inv(objs) = {"namespace": {ns: {"networking.k8s.io/v1": {"Ingress": {o.metadata.name: o | o := objs[_]; o.metadata.namespace == ns}}} | ns := objs[_].metadata.namespace}}

test_no_conflict {
	count(violation) == 0 with input as {"review": review("a", "ns", "a.example.com")} with data.inventory as inv([ing("b", "ns", "b.example.com")])
}

test_conflict_other_namespace {
	v := violation with input as {"review": review("a", "ns1", "x.example.com")} with data.inventory as inv([ing("b", "ns2", "x.example.com")])
	v == {{"msg": "ingress host conflicts with an existing ingress <x.example.com>"}}
}

test_identical_is_fine {
	count(violation) == 0 with input as {"review": review("a", "ns", "x.example.com")} with data.inventory as inv([ing("a", "ns", "x.example.com")])
}

test_empty_inventory {
	count(violation) == 0 with input as {"review": review("a", "ns", "x")} with data.inventory as {}
}
