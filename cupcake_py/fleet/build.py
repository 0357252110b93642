"""`cupcake bundle build`: a configuration directory -> an OPA bundle.

In: a directory laid out like a cupcake configuration (`rulebook.yml`, `system/*.rego`,
`policies/<harness>/**/*.rego`; `*_test.rego` files are left out), a revision, the harnesses to
compile for (default: every `policies/<harness>/` present). Out: the bundle's files:

    .manifest                          revision, roots ["cupcake"], rego_version (and file_rego_versions)
                                       from the rulebook's keys (default 1), wasm entries,
                                       metadata.cupcake {version, harnesses}
    policies/<harness>/**.rego         the policies, at the same paths (an extracted bundle is a
    system/*.rego                      configuration directory again)
    cupcake/rulebook/data.yaml         the rulebook, as OPA data (`data.cupcake.rulebook`)
    policies/<harness>/policy.wasm     the module cupcake's compiler makes for that harness
                                       (shipped system and enabled builtin policies included),
                                       listed in the manifest's `wasm` with its entrypoint

The same sources give byte-identical bundles (opa_bundle.write is deterministic; the compiler
is). Fails: `BuildError` naming the policy that does not parse or compile, or the missing dir.
Signed bundles: `signing.sign` over these files adds `.signatures.json`.
"""

from __future__ import annotations

import os

from cupcake_py import __version__
from cupcake_py.core.errors import CupcakeError
from cupcake_py.fleet.opa_bundle import MANIFEST, Bundle, Manifest

RULEBOOK_DATA = "cupcake/rulebook/data.yaml"
ROOTS = ["cupcake"]


class BuildError(CupcakeError):
    pass


def _rego_files(base: str) -> dict[str, bytes]:
    from cupcake_py.engine.project import ProjectError, rego_paths

    out: dict[str, bytes] = {}
    for sub in ("system", "policies"):
        try:
            paths = rego_paths(os.path.join(base, sub))
        except ProjectError as e:
            raise BuildError(str(e)) from None
        for p in paths:
            with open(p, "rb") as f:
                out[os.path.relpath(p, base)] = f.read()
    return out


def harnesses_in(base: str) -> list[str]:
    d = os.path.join(base, "policies")
    return sorted(n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n))) if os.path.isdir(d) else []


def compile_for(base: str, harness: str) -> tuple[bytes, list[str]]:
    """(module, entrypoints) of the configuration at `base` for one harness, by the engine's build."""
    from cupcake_py.engine import bundle as engine_bundle
    from cupcake_py.engine.project import ConfigDir
    from cupcake_py.host import PolicyModule

    cfg = ConfigDir("org", base, base, harness)
    try:
        b = engine_bundle.build(cfg, "bundle-build")
    except (engine_bundle.BundleError, CupcakeError) as e:
        raise BuildError(f"{harness}: {e}") from None
    if not b.wasm:
        return b"", []
    return b.wasm, sorted(PolicyModule.load(b.wasm).summary().entrypoints)


def _rego_versions(rulebook: bytes | None) -> dict[str, object]:
    """The manifest's `rego_version` (and `file_rego_versions`, paths from the bundle root) from the
    rulebook's keys of the same names (issue 32); rego_version 1 without them."""
    import yaml

    try:
        rb = yaml.safe_load(rulebook.decode("utf-8")) if rulebook else {}
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise BuildError(f"rulebook.yml is not YAML: {e}") from None
    rb = rb if isinstance(rb, dict) else {}
    out: dict[str, object] = {"rego_version": rb.get("rego_version", 1)}
    if rb.get("file_rego_versions"):
        out["file_rego_versions"] = {"/" + str(k).lstrip("/"): v for k, v in rb["file_rego_versions"].items()}
    return out


def build(base: str, revision: str, harnesses: list[str] | None = None, wasm: bool = True) -> Bundle:
    if not os.path.isdir(base):
        raise BuildError(f"{base}: not a directory")
    files = _rego_files(base)
    rulebook = os.path.join(base, "rulebook.yml")
    if os.path.isfile(rulebook):
        with open(rulebook, "rb") as f:
            files[RULEBOOK_DATA] = f.read()
    versions = _rego_versions(files.get(RULEBOOK_DATA))
    chosen = harnesses if harnesses is not None else harnesses_in(base)
    entries: list[dict[str, str]] = []
    if wasm:
        for h in chosen:
            module, entrypoints = compile_for(base, h)
            if module:
                name = f"policies/{h}/policy.wasm"
                files[name] = module
                entries += [{"entrypoint": e, "module": "/" + name} for e in entrypoints]
    manifest = Manifest({"revision": revision, "roots": ROOTS, **versions, "wasm": entries,
                         "metadata": {"cupcake": {"version": __version__, "harnesses": chosen}}})
    files[MANIFEST] = manifest.encode()
    return Bundle(files)
