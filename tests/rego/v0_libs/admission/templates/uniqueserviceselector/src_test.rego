package k8suniqueserviceselector

svc(name, ns, sel) = {"kind": "Service", "apiVersion": "v1", "metadata": {"name": name, "namespace": ns}, "spec": {"selector": sel}}

review(o) = {"kind": {"kind": "Service", "version": "v1", "group": ""}, "name": o.metadata.name, "namespace": o.metadata.namespace, "object": o}

inventory = {"namespace": {"prod": {"v1": {"Service": {"web": svc("web", "prod", {"app": "web", "tier": "fe"})}}}}}

test_conflict {
	v := violation with input as {"review": review(svc("web2", "dev", {"tier": "fe", "app": "web"}))} with data.inventory as inventory
	v == {{"msg": "same selector as service <web> in namespace <prod>"}}
}

test_identical {
	count(violation) == 0 with input as {"review": review(svc("web", "prod", {"tier": "fe", "app": "web"}))} with data.inventory as inventory
}

test_different {
	count(violation) == 0 with input as {"review": review(svc("db", "prod", {"app": "db"}))} with data.inventory as inventory
}

test_flatten {
	flatten_selector({"spec": {"selector": {"b": "2", "a": "1"}}}) == "a:1,b:2"
	make_apiversion({"group": "apps", "version": "v1"}) == "apps/v1"
	make_apiversion({"group": "", "version": "v1"}) == "v1"
}
