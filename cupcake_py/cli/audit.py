"""`cupcake audit list | stats | verify | export | prune | schema | session-event`.

The command line of cupcake_py/governance (store, chain, query, audit): reads (and for
prune/session-event writes) the per-user governance database
(`$XDG_STATE_HOME/cupcake-py/governance.sqlite3`, or --db). Output: a rich table or JSON
lines (`--json`); progress bars on stderr only for long operations on a terminal (never with
--json or when CI is set). Exit status: 0 done; 1 `verify` found problems; 2 usage errors or
an unusable database (a message on stderr, no traceback).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cupcake_py.cli import options
from cupcake_py.core.errors import CupcakeError

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterator

    from cupcake_py.governance.query import Filters

audit_app = typer.Typer(
    name="audit",
    help=(
        "The audit log and session history of `cupcake eval` (`cupcake docs governance`).\n\n"
        "Recorded by default (a rulebook without the `audit` key, `audit: on` or `audit: required`); "
        "`audit: off` stops it unless a policy reads `input.history` (rate_limit, escalation, loop_guard). "
        "One hash-chained record per evaluation, "
        "inputs redacted, in $XDG_STATE_HOME/cupcake-py/governance.sqlite3."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,  # the root app's plain help style
)

DB_OPTION = typer.Option(None, "--db", help="Database file (default: $XDG_STATE_HOME/cupcake-py/governance.sqlite3).",
                         show_default=False)
JSON_OPTION = typer.Option(False, "--json", help="JSON lines on stdout instead of a table.")
PROGRESS_EVERY = 5000  # rows: operations longer than this show progress on a terminal


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"cupcake audit: {message}", err=True)
    return typer.Exit(code)


def _conn(db: Path | None, *, create: bool = False) -> sqlite3.Connection:
    from cupcake_py.governance import store

    try:
        return store.connect(str(db) if db else None, 5.0, create=create)
    except CupcakeError as e:
        raise _fail(str(e)) from None


def parse_time(text: str, now: float | None = None) -> float:
    """`30m`, `2h`, `7d` (ago), an ISO date (`2026-11-23`, UTC midnight) or date-time (UTC unless
    it names an offset) → seconds since the epoch."""
    import datetime as dt
    import time

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    t = text.strip()
    if t[:-1].isdigit() and t[-1:] in units:
        return (time.time() if now is None else now) - int(t[:-1]) * units[t[-1]]
    try:
        value = dt.datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"{text!r}: expected 30m, 2h, 7d, YYYY-MM-DD or an ISO date-time") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.timestamp()


def _filters(session: str | None, since: str | None, decision: str | None, rule: str | None,
             tool: str | None, project: str | None = None) -> Filters:
    from cupcake_py.governance.query import Filters

    return Filters(session=session, since=parse_time(since) if since else None, decision=decision, rule=rule,
                   tool=tool, project=project_root(project) if project is not None else None)


def project_root(directory: str) -> str:
    """The project root records name for `directory`: the directory holding the nearest .cupcake/
    (as `cupcake eval` records it), else the directory itself, absolute and resolved."""
    from cupcake_py.engine.project import ProjectError, find_project

    try:
        cfg = find_project(directory)
    except ProjectError:
        cfg = None
    return cfg.root_path if cfg is not None else os.path.realpath(directory)


def _progress(total: int, quiet: bool, what: str) -> tuple[Callable[[int], None], Callable[[], None]]:
    """(advance(done), close()) — a rich progress bar on stderr for long operations on a terminal."""
    if quiet or total < PROGRESS_EVERY or not sys.stderr.isatty() or os.environ.get("CI"):
        return (lambda _n: None), (lambda: None)
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    task = bar.add_task(what, total=total)
    bar.start()
    return (lambda n: bar.update(task, completed=n)), bar.stop


def _records(conn: sqlite3.Connection, f: Filters, limit: int | None, newest_first: bool,
             quiet: bool, what: str) -> Iterator[Any]:
    from cupcake_py.governance import query
    from cupcake_py.governance.models import AuditRecord

    total = query.count(conn, f) if limit is None else min(limit, query.count(conn, f))
    advance, close = _progress(total, quiet, what)
    try:
        for i, row in enumerate(query.select(conn, f, limit, newest_first), 1):
            yield AuditRecord.from_row(row)
            if i % 1000 == 0:
                advance(i)
    finally:
        close()


@audit_app.command("list")
def list_cmd(
    session: str | None = typer.Option(None, "--session", help="Only this session id."),
    since: str | None = typer.Option(None, "--since", help="Only records since: 30m, 2h, 7d, YYYY-MM-DD, ISO time."),
    decision: str | None = typer.Option(None, "--decision", help="halt, deny, block, ask, modify or allow."),
    rule: str | None = typer.Option(None, "--rule", help="Only records with this rule id."),
    tool: str | None = typer.Option(None, "--tool", help="Only this tool (Bash, Edit, …)."),
    project: str | None = typer.Option(None, "--project", "--policy-dir", metavar="DIR", help="Only records made "
                                       "in this project (its root, or a directory inside it; `.`: the current "
                                       "one). Default: every project.", show_default=False),
    limit: int = typer.Option(50, "--limit", min=1, help="At most this many records, newest first."),
    json_lines: bool = JSON_OPTION,
    fmt: str = options.format_option("text", "json", extra_help="json: one record a line (as --json)."),
    db: Path | None = DB_OPTION,
) -> None:
    """List audit records, newest first, with the project each was made in.

    \b
    Examples:
      cupcake audit list --session ses_123
      cupcake audit list --project . --since 1h --decision deny --format json
    """
    conn = _conn(db)
    records = _records(conn, _filters(session, since, decision, rule, tool, project), limit, True, True, "listing")
    if json_lines or fmt == "json":
        for r in records:
            sys.stdout.write(r.json_line() + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "time (UTC)", "project", "session", "event", "decision", "rules", "call", box=None)
    for col in table.columns[:-1]:
        col.no_wrap = True
    for r in records:
        table.add_row(str(r.id), r.time, _short_project(r.project), r.session_id, r.event, r.decision,
                      ",".join(r.rule_ids), r.summary[:80])
    Console(width=None if sys.stdout.isatty() else 240).print(table)  # redirected: never cut ids


def _short_project(path: str) -> str:
    """A project root with the home directory as `~` (the full path is in --format json)."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home not in ("", "/") and (path == home or path.startswith(home + "/")) else path


@audit_app.command("stats")
def stats_cmd(
    session: str | None = typer.Option(None, "--session", help="Count this session."),
    day: str | None = typer.Option(None, "--day", help="Count this UTC day (YYYY-MM-DD, or `today`)."),
    json_out: bool = typer.Option(False, "--json", help="One JSON object instead of tables (= --format json)."),
    fmt: str = options.format_option("text", "json"),
    db: Path | None = DB_OPTION,
) -> None:
    """Decisions per rule and per decision kind, for a session, a day, or everything.

    Examples:  cupcake audit stats --session ses_123      cupcake audit stats --day today --json
    """
    import time

    from cupcake_py.governance import query

    json_out = json_out or fmt == "json"
    since = until = None
    scope = "all"
    if day is not None:
        text = time.strftime("%Y-%m-%d", time.gmtime()) if day == "today" else day
        since = parse_time(text)
        until = since + 86400
        scope = f"day:{text}"
    if session is not None:
        scope = f"session:{session}" if scope == "all" else f"{scope},session:{session}"
    s = query.stats(_conn(db), query.Filters(session=session, since=since, until=until), scope)
    if json_out:
        sys.stdout.write(s.model_dump_json() + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"{s.scope}: {s.records} records, {s.sessions} session(s)")
    kinds = Table("decision", "count", box=None)
    for k, n in sorted(s.by_decision.items(), key=lambda kv: -kv[1]):
        kinds.add_row(k, str(n))
    console.print(kinds)
    if s.by_rule:
        rules = Table("rule", "decisions", box=None)
        for r, per in sorted(s.by_rule.items()):
            rules.add_row(r, ", ".join(f"{k} {n}" for k, n in sorted(per.items())))
        console.print(rules)


@audit_app.command("verify")
def verify_cmd(
    json_out: bool = typer.Option(False, "--json", help="One JSON object (models.VerifyReport; = --format json)."),
    fmt: str = options.format_option("text", "json"),
    db: Path | None = DB_OPTION,
) -> None:
    """Check the hash chain: edited, deleted or inserted records, and a head that does not match.

    Exit status 0 when the chain is intact, 1 when it is not. Keep the printed head hash
    somewhere the agent cannot write to anchor the log externally.
    """
    from cupcake_py.governance import chain
    from cupcake_py.governance.models import VerifyReport

    json_out = json_out or fmt == "json"
    conn = _conn(db)
    total = conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0]
    advance, close = _progress(total, json_out, "verifying")
    try:
        v = chain.verify(conn, advance)
    finally:
        close()
    report = VerifyReport(ok=v.ok, records=v.records, head_id=v.head_id, head_hash=v.head_hash, problems=v.problems)
    if json_out:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        for p in v.problems:
            typer.echo(f"TAMPERED: {p}")
        typer.echo(f"{'ok' if v.ok else 'FAILED'}: {v.records} records, head {v.head_id} {v.head_hash}")
    if not v.ok:
        raise typer.Exit(1)


@audit_app.command("export")
def export_cmd(
    session: str | None = typer.Option(None, "--session", help="Only this session id."),
    since: str | None = typer.Option(None, "--since", help="Only records since: 30m, 2h, 7d, YYYY-MM-DD, ISO time."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    db: Path | None = DB_OPTION,
) -> None:
    """Every matching record as JSON lines, oldest first (for a SIEM), hashes included.

    Example:  cupcake audit export --since 1d -o audit.jsonl
    """
    conn = _conn(db)
    out = output.open("w", encoding="utf-8") if output else sys.stdout
    try:
        for r in _records(conn, _filters(session, since, None, None, None), None, False, output is None, "exporting"):
            out.write(r.json_line() + "\n")
    finally:
        if output:
            out.close()


@audit_app.command("prune")
def prune_cmd(
    days: int | None = typer.Option(None, "--days", min=0, help="Delete records older than this (default: the "
                                    "rulebook's audit.retention_days for the current directory, else 30)."),
    max_rows: int | None = typer.Option(None, "--max-rows", min=0, help="Keep at most this many records (default: "
                                        "the rulebook's audit.max_rows, else no cap)."),
    vacuum: bool = typer.Option(False, "--vacuum", help="Then VACUUM: give the freed space back to the disk."),
    db: Path | None = DB_OPTION,
) -> None:
    """Delete the oldest records now; the chain stays verifiable.

    Evaluations also prune by the rulebook's retention, every 256 records. Only a prefix is
    deleted and the chain's anchor moves to the first record kept.
    """
    import time

    from cupcake_py.governance import chain, store

    conn = _conn(db)
    configured = _configured_retention() if days is None or max_rows is None else None
    keep_days = days if days is not None else configured[0] if configured else 30
    keep_rows = max_rows if max_rows is not None else configured[1] if configured else 1 << 62
    try:
        n = store.write(conn, lambda c: chain.prune(c, time.time() - keep_days * 86400, keep_rows), 5.0)
        if vacuum:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
    except CupcakeError as e:
        raise _fail(str(e)) from None
    typer.echo(f"pruned {n} record(s){' and vacuumed' if vacuum else ''}")


@audit_app.command("schema")
def schema_cmd(
    which: str = typer.Argument("record", help="record, stats or verify."),
) -> None:
    """Print the JSON Schema of an audit record (or of stats / verify output)."""
    import json

    from cupcake_py.governance.models import SCHEMAS

    if which not in SCHEMAS:
        raise _fail(f"unknown schema {which!r}: one of {', '.join(SCHEMAS)}")
    typer.echo(json.dumps(SCHEMAS[which].model_json_schema(), indent=2))


@audit_app.command("session-event")
def session_event_cmd(
    harness_name: str | None = options.harness_option(default_help="Default: opencode (its plugin sends these)."),
    db: Path | None = DB_OPTION,
) -> None:
    """Record a session lifecycle event (sent by the harness plugin).

    JSON on stdin: {"session_id", "event": "created"|"compacted", "cwd", "parent_id"?}.

    Recorded only when the project's (or global) rulebook records evaluations; prints
    {"recorded": true|false}. Failures are reported on stderr (exit 2); they never block the agent.
    """
    import time

    from cupcake_py.core import jsonio

    try:
        event = jsonio.loads(sys.stdin.buffer.read(1 << 16))
        if not isinstance(event, dict) or not isinstance(event.get("session_id"), str) \
                or event.get("event") not in ("created", "compacted") or not isinstance(event.get("cwd"), str):
            raise _fail('expected {"session_id": str, "event": "created"|"compacted", "cwd": str}')
        settings, project = _settings_for(event["cwd"])
        if settings is None:
            sys.stdout.write('{"recorded":false}\n')
            return
        from cupcake_py.governance.audit import write_session_event

        parent = event.get("parent_id") if isinstance(event.get("parent_id"), str) else None
        write_session_event(settings, event["session_id"], event["event"], harness_name or "opencode", project,
                            parent, time.time(), str(db) if db else None)
    except (CupcakeError, jsonio.JSONError) as e:
        raise _fail(str(e)) from None
    sys.stdout.write('{"recorded":true}\n')


def _configured_retention() -> tuple[int, int] | None:
    """(retention_days, max_rows) of the rulebooks for the current directory, None when they do not
    record (or cannot be loaded: prune then uses its own defaults)."""
    try:
        settings, _ = _settings_for(os.getcwd())
    except CupcakeError:
        return None
    return None if settings is None else (settings["retention_days"], settings["max_rows"])


def _settings_for(cwd: str) -> tuple[dict[str, Any] | None, str]:
    """The merged governance settings of the bundles an evaluation in `cwd` would load."""
    from cupcake_py.engine import bundle
    from cupcake_py.engine.project import find_global, find_project
    from cupcake_py.governance.settings import merge

    project = find_project(None, cwd)
    glob = find_global(None)
    configs = [c for c in (glob, project) if c is not None]
    settings = merge([bundle.load(c)[0].governance for c in configs])
    return settings, project.root_path if project is not None else cwd


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
