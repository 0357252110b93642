"""The fleet's background work inside a long-running process (`cupcake serve`): one daemon thread
polling the org tier's bundle sources (refresh.run) and one exporting decision logs (export.run),
when the org dir's fleet.yml asks for them. Requests are never held up by either: the evaluator
reads whatever bundle was activated last (engine/fleet_active.py).

`start(org_dir) -> threading.Event | None`: set the event to stop both; None when there is no
fleet.yml (or it does not validate: then `cupcake eval`/`serve` requests fail closed anyway).
"""

from __future__ import annotations

import threading

from cupcake_py.core.errors import CupcakeError


def start(org_dir: str) -> threading.Event | None:
    from cupcake_py.engine.fleet_config import load

    try:
        config = load(org_dir)
    except CupcakeError:
        return None
    if config is None:
        return None
    stop = threading.Event()
    if config.bundles:
        from cupcake_py.fleet import refresh

        threading.Thread(target=refresh.run, args=(org_dir, stop), name="cupcake-fleet-refresh", daemon=True).start()
    if config.decision_logs is not None:
        from cupcake_py.fleet import export

        threading.Thread(target=export.run, args=(config.decision_logs, dict(config.labels), stop),
                         name="cupcake-fleet-export", daemon=True).start()
    return stop
