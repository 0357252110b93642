"""Polling the org tier's bundle sources: fetch (sources.py) -> activate (activate.py) -> status.

- `pull_once(org_dir, names=None) -> [Outcome]`: one round over the sources of fleet.yml
  (`cupcake bundle pull`). A failure of one source (fetch, signature, rollback, compile) is
  recorded in its status and the last good bundle stays active; the others go on.
- `next_delay(spec, failures)`: after a success a random wait in [min_delay, max_delay] (spreads
  a fleet's polls); after n failures in a row an exponential backoff min_delay * 2^(n-1), capped
  at max_delay, with jitter.
- `run(org_dir, stop)`: poll every source on its own schedule until `stop` is set (`cupcake bundle
  pull --watch`, and `cupcake serve` in a background thread).
"""

from __future__ import annotations

import random
import threading
import time

from cupcake_py.core.errors import CupcakeError
from cupcake_py.fleet import activate, sources, status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cupcake_py.engine.fleet_config import BundleSource, FleetConfig


class Outcome:
    __slots__ = ("name", "ok", "changed", "revision", "message")

    def __init__(self, name: str, ok: bool, changed: bool, revision: str | None, message: str) -> None:
        self.name = name
        self.ok = ok
        self.changed = changed
        self.revision = revision
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "changed": self.changed, "revision": self.revision,
                "message": self.message}


def _config(org_dir: str) -> FleetConfig:
    from cupcake_py.engine.fleet_config import FleetConfigError, load

    try:
        config = load(org_dir)
    except FleetConfigError as e:
        raise CupcakeError(str(e)) from None
    if config is None:
        raise CupcakeError(f"no fleet.yml in the org config dir {org_dir} (set $CUPCAKE_ORG_CONFIG or --org-config)")
    return config


def pull_source(org_dir: str, config: FleetConfig, name: str,
                on_chunk: Callable[[int], None] | None = None) -> Outcome:
    spec = config.bundles[name]
    now = time.time()
    st = status.load(name)
    # the ETag only while the activated bundle is intact: after a tampered or lost store the next
    # poll downloads the bundle again and activation repairs it
    try:
        fetched = sources.fetch(spec, st.get("etag") if _intact(name) else None, on_chunk)
    except sources.FetchError as e:
        status.save(name, status.note(name, st, now, False, "bundle_error", str(e)))
        return Outcome(name, False, False, st.get("active_revision"), str(e))
    if not fetched.changed:
        status.save(name, status.note(name, st, now, True))
        return Outcome(name, True, False, st.get("active_revision"), "not modified")
    st["last_successful_download"] = now
    try:
        record = activate.activate(name, fetched.blob or b"", activate.verification_for(config, org_dir, spec),
                                   spec.allow_rollback, spec.location, now)
    except CupcakeError as e:
        code = "rollback_refused" if isinstance(e, activate.RollbackError) else "activation_error"
        status.save(name, status.note(name, st, now, False, code, str(e)))
        return Outcome(name, False, False, st.get("active_revision"), str(e))
    st.update(etag=fetched.etag, active_revision=record["revision"], last_successful_activation=now)
    status.save(name, status.note(name, st, now, True))
    return Outcome(name, True, bool(record.get("changed")), record["revision"],
                   "activated" if record.get("changed") else "unchanged")


def _intact(name: str) -> bool:
    from cupcake_py.core import cache_mac
    from cupcake_py.engine import fleet_active

    record, problem = fleet_active.read_pointer(name, cache_mac.key())
    return record is not None and problem is None and fleet_active.tree_problem(name, record) is None


def pull_once(org_dir: str, names: list[str] | None = None) -> list[Outcome]:
    config = _config(org_dir)
    unknown = [n for n in names or [] if n not in config.bundles]
    if unknown:
        raise CupcakeError(f"no bundle source named {', '.join(unknown)} in fleet.yml")
    return [pull_source(org_dir, config, n) for n in (names or sorted(config.bundles))]


def next_delay(spec: BundleSource, failures: int, rng: random.Random | None = None) -> float:
    r = rng or random
    lo, hi = spec.polling.min_delay_seconds, spec.polling.max_delay_seconds
    if failures <= 0:
        return float(r.uniform(lo, hi))
    return float(min(hi, lo * 2 ** (failures - 1)) * r.uniform(0.75, 1.0))


def run(org_dir: str, stop: threading.Event, on_round: Callable[[list[Outcome]], None] | None = None) -> None:
    due: dict[str, float] = {}
    while not stop.is_set():
        try:
            config = _config(org_dir)
        except CupcakeError:
            stop.wait(30.0)
            continue
        now = time.monotonic()
        outcomes = []
        for name, spec in sorted(config.bundles.items()):
            if due.get(name, 0.0) <= now:
                out = pull_source(org_dir, config, name)
                outcomes.append(out)
                failures = int(status.load(name).get("consecutive_failures", 0))
                due[name] = time.monotonic() + next_delay(spec, failures)
        if outcomes and on_round is not None:
            on_round(outcomes)
        wait = min((t for n, t in due.items() if n in config.bundles), default=now + 30.0) - time.monotonic()
        stop.wait(max(0.05, wait))
