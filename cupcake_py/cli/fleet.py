"""`cupcake bundle build|sign|verify|push|pull`, `cupcake status`, `cupcake logs export`: the fleet
commands (docs/fleet.md), driving `cupcake_py/fleet` through its plain functions. Flags are
spelt as `opa build` / `opa sign` spell them: `-b DIR`, `-o FILE`, `--signing-key`,
`--verification-key`, `--signing-alg`, `--claims-file`, `--scope`.

Out: the written file or a report on stdout (JSON with --json). Exit status: 0 done; 1 the
bundle, signature, source or collector failed (`cupcake <cmd>: reason` on stderr); 2 usage.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from cupcake_py.cli import options
from cupcake_py.core.errors import CupcakeError

bundle_app = typer.Typer(help="OPA-format policy bundles: build, sign, verify, push to and pull from a registry.",
                         no_args_is_help=True)
logs_app = typer.Typer(help="Decision logs: export audit records to OpenTelemetry and syslog collectors.",
                       no_args_is_help=True)


def _fail(cmd: str, message: str) -> NoReturn:
    typer.echo(f"cupcake {cmd}: {message}", err=True)
    raise typer.Exit(1)


def _key_text(value: str) -> str:
    """OPA's convention: the path of a PEM file, else the value itself (an HMAC secret)."""
    p = Path(value)
    try:
        if p.is_file():
            return p.read_text(encoding="utf-8")
    except OSError as e:
        raise CupcakeError(f"cannot read key file {value}: {e.strerror or e}") from None
    return value


def _claims(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    import json

    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CupcakeError(f"--claims-file {path}: {e}") from None
    if not isinstance(value, dict):
        raise CupcakeError(f"--claims-file {path}: not a JSON object")
    return value


def _load(path: Path) -> Any:
    from cupcake_py.fleet import opa_bundle

    if path.is_dir():
        return opa_bundle.read_dir(str(path))
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise CupcakeError(f"cannot read {path}: {e.strerror or e}") from None
    return opa_bundle.read(blob)


def _signed(bundle: Any, signing_key: str | None, alg: str, keyid: str | None, claims: Path | None) -> Any:
    from cupcake_py.fleet import opa_bundle, signing

    if signing_key is None:
        return bundle
    sig = signing.sign(opa_bundle.Bundle(bundle.signed_files()), _key_text(signing_key), alg, keyid, _claims(claims))
    return opa_bundle.Bundle({**bundle.signed_files(), opa_bundle.SIGNATURES: sig})


def _write(cmd: str, bundle: Any, output: Path) -> None:
    from cupcake_py.fleet import opa_bundle

    blob = opa_bundle.write(bundle.files)
    try:
        output.write_bytes(blob)
    except OSError as e:
        _fail(cmd, f"cannot write {output}: {e.strerror or e}")
    typer.echo(f"wrote {output} ({len(blob)} bytes, {len(bundle.files)} files, revision "
               f"{bundle.manifest.revision!r})", err=True)


@bundle_app.command("build")
def build_cmd(
    bundle_dir: Path = typer.Option(..., "-b", "--bundle", help="Configuration directory to bundle (rulebook.yml, "
                                    "system/, policies/<harness>/)."),
    output: Path = typer.Option(Path("bundle.tar.gz"), "-o", "--output", help="The bundle archive to write."),
    revision: str = typer.Option("", "-r", "--revision", help="The manifest's revision (e.g. a git commit)."),
    harness: list[str] = typer.Option([], "--harness", help="Compile policy.wasm for this harness (repeatable; "
                                      "default every policies/<harness>/ present)."),
    no_wasm: bool = typer.Option(False, "--no-wasm", help="Leave the compiled modules out."),
    signing_key: str | None = typer.Option(None, "--signing-key", help="PEM private key file, or the HMAC secret: "
                                           "sign the bundle (.signatures.json)."),
    signing_alg: str = typer.Option("RS256", "--signing-alg", help="RS256, ES256, HS256, ... (default RS256)."),
    signing_key_id: str | None = typer.Option(None, "--signing-key-id", help="Key id put in the JWT header (kid)."),
    claims_file: Path | None = typer.Option(None, "--claims-file", help="JSON object of extra claims (scope, iss, "
                                            "exp, ...)."),
) -> None:
    """Build an OPA bundle (a tar.gz with .manifest) from a configuration directory, optionally signed.

    Example:  cupcake bundle build -b org/ -r "$(git rev-parse HEAD)" --signing-key key.pem -o bundle.tar.gz
    """
    from cupcake_py.fleet.build import build

    try:
        bundle = build(str(bundle_dir), revision, harness or None, wasm=not no_wasm)
        bundle = _signed(bundle, signing_key, signing_alg, signing_key_id, claims_file)
    except CupcakeError as e:
        _fail("bundle build", str(e))
    _write("bundle build", bundle, output)


@bundle_app.command("sign")
def sign_cmd(
    bundle: Path = typer.Argument(..., help="The bundle archive (or a directory laid out as a bundle)."),
    signing_key: str = typer.Option(..., "--signing-key", help="PEM private key file, or the HMAC secret."),
    signing_alg: str = typer.Option("RS256", "--signing-alg", help="RS256, ES256, HS256, ... (default RS256)."),
    signing_key_id: str | None = typer.Option(None, "--signing-key-id", help="Key id put in the JWT header (kid)."),
    claims_file: Path | None = typer.Option(None, "--claims-file", help="JSON object of extra claims."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Where to write the signed archive (default: "
                                       "replace BUNDLE)."),
) -> None:
    """Sign a bundle: add (or replace) its .signatures.json, a JWT listing every file's hash."""
    try:
        signed = _signed(_load(bundle), signing_key, signing_alg, signing_key_id, claims_file)
    except CupcakeError as e:
        _fail("bundle sign", str(e))
    _write("bundle sign", signed, output or (bundle if bundle.is_file() else Path("bundle.tar.gz")))


@bundle_app.command("verify")
def verify_cmd(
    bundle: Path = typer.Argument(..., help="The bundle archive (or a directory laid out as a bundle)."),
    verification_key: str | None = typer.Option(None, "--verification-key", help="PEM public key file, or the "
                                                "HMAC secret. Given: the bundle must be signed by it. Not given: "
                                                "the bundle must be unsigned."),
    verification_key_id: str = typer.Option("default", "--verification-key-id", help="Id of that key."),
    signing_alg: str = typer.Option("RS256", "--signing-alg", help="The algorithm the key verifies."),
    scope: str | None = typer.Option(None, "--scope", help="The scope the signature must carry."),
    json_out: bool = typer.Option(False, "--json", help="Print the manifest and verified claims as JSON."),
    fmt: str = options.format_option("text", "json"),
) -> None:
    """Check a bundle's format, manifest and signature (exit 0 verified, 1 not)."""
    json_out = json_out or fmt == "json"
    from cupcake_py.fleet import signing

    try:
        b = _load(bundle)
        manifest = b.manifest
        config = None
        if verification_key is not None:
            key = signing.VerificationKey(_key_text(verification_key), signing_alg)
            config = signing.VerificationConfig({verification_key_id: key}, verification_key_id, scope)
        payload = signing.verify(b, config)
    except CupcakeError as e:
        _fail("bundle verify", str(e))
    if json_out:
        import json

        sys.stdout.write(json.dumps({"revision": manifest.revision, "manifest": manifest.raw, "signed": payload is not
                                     None, "claims": {k: v for k, v in (payload or {}).items() if k != "files"},
                                     "files": sorted(b.files)}, indent=2) + "\n")
    else:
        typer.echo(f"{bundle}: {'signature verified' if payload is not None else 'unsigned (no key configured)'}; "
                   f"revision {manifest.revision!r}, {len(b.files)} files")


ORG_HELP = "The org tier's directory (default $CUPCAKE_ORG_CONFIG, else /etc/cupcake)."


def _org(org_config: Path | None) -> str:
    from cupcake_py.core.userdirs import org_config_dir

    return os.path.abspath(org_config) if org_config is not None else org_config_dir()


@bundle_app.command("push")
def push_cmd(
    bundle: Path = typer.Argument(..., help="The bundle archive."),
    ref: str = typer.Argument(..., help="OCI reference host[:port]/repository:tag."),
    plain_http: bool | None = typer.Option(None, "--plain-http/--https", help="Talk http to the registry "
                                           "(default: only for loopback hosts)."),
) -> None:
    """Push a bundle to an OCI registry with OPA's media types (what `oras push` makes)."""
    from cupcake_py.fleet import sources

    try:
        _load(bundle)  # only well-formed bundles go out
        digest = sources.push_oci(ref, bundle.read_bytes(), plain_http)
    except CupcakeError as e:
        _fail("bundle push", str(e))
    typer.echo(f"pushed {bundle} to {ref} ({digest})")


@bundle_app.command("pull")
def pull_cmd(
    source: list[str] = typer.Argument(None, help="Source names of fleet.yml (default: all)."),
    org_config: Path | None = typer.Option(None, "--org-config", help=ORG_HELP),
    watch: bool = typer.Option(False, "--watch", help="Keep polling on each source's schedule (ETags, backoff)."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object per source (= --format json)."),
    fmt: str = options.format_option("text", "json"),
) -> None:
    """Fetch, verify and activate the org tier's bundles (fleet.yml) into the per-user store that
    `cupcake eval` reads. A source that fails keeps its last good bundle (exit 1)."""
    json_out = json_out or fmt == "json"
    from cupcake_py.fleet import refresh

    org = _org(org_config)

    def show(outcomes: list[refresh.Outcome]) -> None:
        import json

        for o in outcomes:
            if json_out:
                typer.echo(json.dumps(o.to_json()))
            else:
                typer.echo(f"{o.name}: {'ok' if o.ok else 'FAILED'} revision={o.revision!r} {o.message}",
                           err=not o.ok)

    if watch:
        import threading

        stop = threading.Event()
        try:
            refresh.run(org, stop, show)
        except KeyboardInterrupt:
            stop.set()
        return
    try:
        outcomes = refresh.pull_once(org, source or None)
    except CupcakeError as e:
        _fail("bundle pull", str(e))
    show(outcomes)
    if not all(o.ok for o in outcomes):
        raise typer.Exit(1)


def status_cmd(
    org_config: Path | None = typer.Option(None, "--org-config", help=ORG_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON (= --format json)."),
    fmt: str = options.format_option("text", "json"),
    report: str | None = typer.Option(None, "--report", help="POST the report in OPA's status API shape to this "
                                      "URL (default: fleet.yml status.url when --report is given as '')."),
) -> None:
    """Show every policy tier (org, global, project), the org bundles' active revisions, last
    fetch and errors, and the decision-log exporters' cursors."""
    json_out = json_out or fmt == "json"
    import json

    from cupcake_py.fleet import status

    org = _org(org_config)
    doc = status.collect(org, os.getcwd())
    if report is not None:
        url = report
        if not url:
            from cupcake_py.engine.fleet_config import load

            cfg = load(org)
            url = cfg.status.url if cfg is not None and cfg.status is not None and cfg.status.url else ""
        if not url:
            _fail("status", "no URL to report to (give --report URL or set status.url in fleet.yml)")
        try:
            status.post(url, status.opa_status(doc))
        except CupcakeError as e:
            _fail("status", str(e))
    if json_out:
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    for t in doc["tiers"]:
        typer.echo(f"{t['tier']:8} {t['path'] or '-'} {'present' if t['exists'] else 'absent'}"
                   + (f"  ERROR {t['error']}" if t.get("error") else ""))
        for b in t.get("bundles", []):
            state = f"revision {b['active_revision']!r}" if b["usable"] else f"NO GOOD BUNDLE ({b['problem']})"
            typer.echo(f"  bundle {b['name']} [{b['kind']} {b['location']}] {state}; last request "
                       f"{b['last_request'] or 'never'}" + (f"; error: {b['message']}" if b["message"] else ""))
    for name, s in doc.get("decision_logs", {}).get("sinks", {}).items():
        typer.echo(f"export   {name} " + ", ".join(f"{k}={v}" for k, v in s.items()))


@logs_app.command("export")
def logs_export_cmd(
    org_config: Path | None = typer.Option(None, "--org-config", help=ORG_HELP),
    follow: bool = typer.Option(False, "--follow", help="Keep exporting every decision_logs.min_delay_seconds."),
) -> None:
    """Export the audit records after each sink's cursor (fleet.yml decision_logs: OTLP, syslog).
    Exit 1 when a sink failed (its records stay in the spool for the next run)."""
    import json

    from cupcake_py.engine.fleet_config import load
    from cupcake_py.fleet import export

    org = _org(org_config)
    try:
        cfg = load(org)
    except CupcakeError as e:
        _fail("logs export", str(e))
    if cfg is None or cfg.decision_logs is None:
        _fail("logs export", f"no decision_logs section in {org}/fleet.yml")
    if follow:
        import threading

        try:
            export.run(cfg.decision_logs, dict(cfg.labels), threading.Event())
        except KeyboardInterrupt:
            pass
        return
    try:
        sinks = export.sinks_for(cfg.decision_logs, dict(cfg.labels))
    except CupcakeError as e:
        _fail("logs export", str(e))
    try:
        result = export.export_round(cfg.decision_logs, sinks, dict(cfg.labels))
    except CupcakeError as e:
        _fail("logs export", str(e))
    finally:
        for s in sinks:
            s.close()
    typer.echo(json.dumps(result, indent=2))
    if any(r["error"] for r in result.values()):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(bundle_app, name="bundle")
    app.add_typer(logs_app, name="logs")
    app.command("status")(status_cmd)
