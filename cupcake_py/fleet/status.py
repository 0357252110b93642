"""Per-source fetch/activation status, `cupcake status`, and OPA-style status reports.

- `load(name)` / `save(name, doc)`: `<user_state_dir>/fleet/<name>/status.json` (atomic), the
  fields of OPA's bundle status: last_request, last_successful_request, last_successful_download,
  last_successful_activation, active_revision, code, message, errors, plus etag, consecutive_failures.
- `collect(org_dir, cwd, harness) -> dict`: every tier (org dir, each org bundle with its active
  revision as the engine would see it, the global dir, the project), the exporters' cursors.
- `opa_status(report, labels)`: the same in the shape of OPA's status API
  (`{labels, bundles: {name: {name, active_revision, last_successful_..., code, message, errors}},
  decision_logs}`); `post(url, doc)` sends it (FetchError on failure).
"""

from __future__ import annotations

import json
import os
import time

from cupcake_py import __version__
from cupcake_py.core import cache_mac
from cupcake_py.core.userdirs import atomic_write, global_config_dir, private_dir
from cupcake_py.engine import fleet_active

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATUS_FILE = "status.json"
MAX_ERRORS = 5


def _iso(ts: object) -> str | None:
    """ISO 8601 UTC of a timestamp (the pointer's JSON numbers read back as Decimal)."""
    return None if not isinstance(ts, int | float) and type(ts).__name__ != "Decimal" else \
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(ts)))  # type: ignore[arg-type]


def load(name: str) -> dict[str, Any]:
    try:
        with open(os.path.join(fleet_active.store_dir(name), STATUS_FILE), encoding="utf-8") as f:
            value = json.load(f)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def save(name: str, doc: dict[str, Any]) -> None:
    d = fleet_active.store_dir(name)
    if private_dir(d, "fleet store"):
        atomic_write(d, STATUS_FILE, (json.dumps(doc, indent=2, sort_keys=True).encode(),), ".json")


def note(name: str, doc: dict[str, Any], now: float, ok: bool, code: str = "", message: str = "") -> dict[str, Any]:
    """`doc` updated with one attempt's outcome."""
    doc = {**doc, "name": name, "last_request": now}
    if ok:
        doc.update(last_successful_request=now, code="", message="", consecutive_failures=0)
    else:
        errors = ([{"code": code, "message": message, "time": now}] + list(doc.get("errors", [])))[:MAX_ERRORS]
        doc.update(code=code, message=message, errors=errors,
                   consecutive_failures=int(doc.get("consecutive_failures", 0)) + 1)
    return doc


def _source_report(name: str, spec: Any, key: bytes | None) -> dict[str, Any]:
    st = load(name)
    record, problem = fleet_active.read_pointer(name, key)
    if record is not None:
        problem = fleet_active.tree_problem(name, record)
    return {
        "name": name, "kind": spec.kind, "location": spec.location, "signed_required": spec.signing is not None,
        "on_missing": spec.on_missing,
        "active_revision": record.get("revision") if record and problem is None else None,
        "active_digest": record.get("digest") if record and problem is None else None,
        "signed": bool(record.get("signed")) if record else None,
        "activated_at": _iso(record.get("activated_at")) if record else None,
        "usable": problem is None, "problem": problem,
        "last_request": _iso(st.get("last_request")),
        "last_successful_download": _iso(st.get("last_successful_download")),
        "last_successful_activation": _iso(st.get("last_successful_activation")),
        "code": st.get("code", ""), "message": st.get("message", ""), "errors": st.get("errors", []),
        "consecutive_failures": st.get("consecutive_failures", 0),
    }


def collect(org_dir: str, cwd: str, harness: str = "opencode") -> dict[str, Any]:
    from cupcake_py.engine.fleet_config import FleetConfigError
    from cupcake_py.engine.fleet_config import load as load_config
    from cupcake_py.engine.project import ProjectError, find_project

    key = cache_mac.key()
    tiers: list[dict[str, Any]] = []
    config = None
    config_error = None
    try:
        config = load_config(org_dir) if os.path.isdir(org_dir) else None
    except FleetConfigError as e:
        config_error = str(e)
    tiers.append({"tier": "org", "path": org_dir, "exists": os.path.isdir(org_dir),
                  "policies": os.path.isdir(os.path.join(org_dir, "policies")),
                  "fleet_config": os.path.isfile(os.path.join(org_dir, fleet_active.FLEET_FILE)),
                  "error": config_error,
                  "bundles": [_source_report(n, s, key) for n, s in sorted(config.bundles.items())] if config else []})
    g = global_config_dir()
    tiers.append({"tier": "global", "path": g, "exists": os.path.isdir(g)})
    try:
        project = find_project(None, cwd, harness=harness)
        tiers.append({"tier": "project", "path": project.cupcake_path if project else None,
                      "exists": project is not None})
    except ProjectError as e:
        tiers.append({"tier": "project", "path": None, "exists": False, "error": str(e)})
    report: dict[str, Any] = {"version": __version__, "time": _iso(time.time()), "tiers": tiers,
                              "labels": dict(config.labels) if config else {}}
    if config is not None and config.decision_logs is not None:
        from cupcake_py.fleet import export

        report["decision_logs"] = export.status(config.decision_logs)
    return report


def opa_status(report: dict[str, Any]) -> dict[str, Any]:
    """The report in the shape of OPA's status API."""
    org = report["tiers"][0]
    bundles = {b["name"]: {"name": b["name"], "active_revision": b["active_revision"] or "",
                           "last_request": b["last_request"],
                           "last_successful_download": b["last_successful_download"],
                           "last_successful_activation": b["last_successful_activation"],
                           "code": b["code"], "message": b["message"],
                           "errors": [e.get("message", "") for e in b["errors"]]}
               for b in org["bundles"]}
    return {"labels": {"id": os.uname().nodename, "version": f"cupcake-py {__version__}", **report["labels"]},
            "bundles": bundles, "decision_logs": report.get("decision_logs", {}),
            "metrics": {"tiers": [{"tier": t["tier"], "path": t["path"], "exists": t["exists"]}
                                  for t in report["tiers"]]}}


def post(url: str, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    import urllib.error
    import urllib.request

    from cupcake_py.fleet.sources import FetchError

    req = urllib.request.Request(url, method="POST", data=json.dumps(doc).encode(),
                                 headers={**(headers or {}), "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10):  # noqa: S310 - configured URL
            pass
    except (urllib.error.URLError, OSError) as e:
        raise FetchError(f"status report to {url}: {getattr(e, 'reason', e)}") from None
