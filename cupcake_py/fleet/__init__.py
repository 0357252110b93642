"""Fleet distribution (docs/fleet.md): OPA-format bundles (`bundle build|sign|verify|push|pull`),
bundle sources (HTTP with ETags, OCI registry, local path), activation into the MAC'd per-user
store that the engine's org tier reads (`engine/fleet_active.py`), `cupcake status`, and the
export of decision logs (OpenTelemetry OTLP/HTTP, syslog RFC 5424 / CEF).

Nothing here runs on the `cupcake eval` path: the engine never imports this package (it sits
above the engine in the import layers, tests/architecture/test_import_layers.py).
"""
