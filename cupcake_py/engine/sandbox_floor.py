"""The kernel floor in an evaluation: whether this call runs sandboxed (`input.sandbox`), its
profile, and the final decision that carries the rewritten command (docs/sandbox.md).

In: the loaded bundles' `sandbox` settings (rulebook `sandbox:`), the harness and its event, the
state paths (engine/state_paths.py), the project root, the builtins' configuration (protected
paths, sensitive additional patterns).
Out:
- `merge(settings)`: one setting from the global and project rulebooks: on when either turns
  it on (a project cannot switch the global floor off); path lists joined; `pass_env` only names
  every rulebook passes; network and shared processes only when every rulebook allows them; `bwrap` from the global rulebook first.
- `Floor.status()`: `input.sandbox` = {enabled, available, applies, reason, writable?, covers?}:
  `writable` (when enabled) the writable roots (what a policy may treat as "inside"); `available`
  whether bubblewrap runs here, probed for shell calls only (false with a reason otherwise); `applies` is
  true when this event is a pre-execution shell call (event `PreToolUse`, tool `Bash`, a
  harness that exposes `shell_command(event)`), the floor is enabled and bubblewrap runs here;
  `covers` (when it applies) is what the profile guarantees (sandbox/sources.py `covers`: known
  without computing the profile).
- `Floor.prepared()` / `Floor.profile()`: the profile (and its command line's parts), computed
  when first needed (an allowed, modified or asked call's command line, a shell signal), through
  the per-project memo (sandbox/profile_memo.py): a denied call computes none.
- `Floor.extend(paths)`: the policies' `sandbox` outputs ({read_only, hidden}: they can only
  tighten) join the profile.
- `Floor.signal_command(command)`: a shell signal's command inside the same profile (when the
  floor is enabled and bubblewrap runs here, probed then also for other events), else unchanged.
- `Floor.apply(final)`: for a call it applies to, an allow/modify/ask decision becomes one whose
  `updated_input.command` is the sandboxed command (a modify keeps the policies' other changes
  and wraps their command); halt/deny/block are returned unchanged.
Fails closed: a profile or wrapper that cannot be written raises `SandboxError` (the evaluation
then denies): a call the policies allowed because the floor applies never runs without it.
"""

from __future__ import annotations

from cupcake_py.sandbox.bwrap import SandboxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from cupcake_py.engine.harness_api import Harness
    from cupcake_py.engine.synthesis import FinalDecision

RULE_ID = "CUPCAKE-SANDBOX"
SHELL_TOOLS = frozenset({"Bash"})
PRE_EVENTS = frozenset({"PreToolUse"})
__all__ = ["Floor", "SandboxError", "merge"]


def merge(settings: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    """(scope, settings) pairs, global first → the merged settings, None when no rulebook enables it."""
    on = [s for _, s in settings if s.get("enabled")]
    if not on:
        return None
    every = [s for _, s in settings if s]
    out: dict[str, Any] = {"enabled": True, "network": all(s.get("network", True) for s in every),
                           "share_processes": all(s.get("share_processes", False) for s in every)}
    passed = [set(s.get("pass_env", [])) for s in every]
    out["pass_env"] = sorted(set.intersection(*passed)) if passed else []  # a rulebook cannot pass what another keeps
    for key in ("writable", "read_only", "hidden"):
        joined: list[str] = []
        for s in every:
            joined += [p for p in s.get(key, []) if p not in joined]
        out[key] = joined
    out["bwrap"] = next((s["bwrap"] for _, s in settings if s.get("bwrap")), None)
    return out


class Floor:
    __slots__ = ("settings", "command", "bwrap", "available", "reason", "project_root", "_sources", "_src",
                 "_status", "_extension", "_ready")

    def __init__(self, settings: dict[str, Any] | None, harness: Harness, event: dict[str, Any],
                 event_name: str, tool_name: str | None, project_root: str = "/") -> None:
        self.settings = settings
        self.project_root = project_root
        self._status: dict[str, Any] | None = None  # input.sandbox, once computed (the same for every phase)
        self._extension: dict[str, list[str]] = {}
        self.command: str | None = None
        self.bwrap: str | None = None
        self.available = False
        self.reason: str | None = None
        self._sources: Callable[[], Any] | None = None
        self._src: Any = None  # the Sources of this call (sandbox/sources.py), built once
        self._ready: Prepared | None = None  # the profile for the current extension, and its command line's parts
        if settings is None:
            return
        shell_command = getattr(harness, "shell_command", None)
        if event_name in PRE_EVENTS and tool_name in SHELL_TOOLS and shell_command is not None:
            command = shell_command(event)
            self.command = command if isinstance(command, str) else None
        if self.command is None:  # only a shell call about to run is sandboxed (and needs the probe)
            self.reason = "the sandbox applies to shell calls about to run (PreToolUse Bash) only"
            return
        from cupcake_py.sandbox.bwrap import locate, probe

        self.bwrap = locate(settings.get("bwrap"))
        if self.bwrap is None:
            where = settings.get("bwrap") or "/usr/bin/bwrap, /bin/bwrap or /usr/local/bin/bwrap"
            self.reason = f"bubblewrap is not installed ({where}); install the `bubblewrap` package"
        else:
            self.available, self.reason = probe(self.bwrap)

    @property
    def applies(self) -> bool:
        return self.available and self.command is not None

    def sources(self, make: Callable[[], Any]) -> None:
        """How to build the profile's sources (called at most once, when a profile is needed)."""
        self._sources = make

    def _source(self) -> Any:
        if self._src is None:
            if self._sources is None:
                raise SandboxError("the sandbox profile has no sources")
            self._src = self._sources()
        return self._src

    def extend(self, extension: dict[str, list[str]]) -> None:
        """The policies' `sandbox` outputs (read_only / hidden paths) for this call's profile."""
        if extension and extension != self._extension:
            self._extension = extension
            self._ready = None  # computed again with them

    def prepared(self) -> Prepared:
        """The profile of this call and its command line's parts (remembered per project while
        its inputs hold: sandbox/profile_memo.py). Computed when first needed: for the command
        line of an allowed call or a signal, not for the policies' input (`status`)."""
        if self._ready is None:
            src = self._source()
            if self._extension:  # the policies' additions: the same call, read again with them
                from cupcake_py.sandbox.sources import Sources

                base = src
                src = Sources(base.state_paths, base.path_dirs, base.project_root, base.cwd, base.settings,
                              base.protected, base.sensitive, system=base.system, memo_dir=base.memo_dir)
                src.home, src.scan, src.sockets, src.extension = base.home, base.scan, base.sockets, self._extension
            self._ready = prepare(src, self.bwrap if self.applies else None)
        return self._ready

    def profile(self) -> dict[str, Any]:
        return self.prepared().profile

    def status(self) -> dict[str, Any]:
        """`input.sandbox` (computed once: every phase's input holds the same)."""
        if self._status is None:
            out: dict[str, Any] = {"enabled": self.settings is not None, "available": self.available,
                                   "applies": self.applies, "reason": self.reason}
            if self.settings is not None:
                from cupcake_py.core.userdirs import home_dir
                from cupcake_py.sandbox.writable import writable_roots

                out["writable"] = writable_roots(self.project_root, self.settings, home_dir())
            if self.applies:
                from cupcake_py.sandbox.sources import covers

                out["covers"] = covers(self._source())  # without the profile (a denied call needs none)
            self._status = out
        return self._status

    def signal_command(self, command: str) -> str:
        """The command line a shell signal runs: inside this call's profile when the floor is
        enabled and bubblewrap runs here (a signal such as git_pre_check's `make check` runs
        project files the agent can change), else `command` unchanged."""
        if self.settings is None:
            return command
        bwrap = self.bwrap if self.available else None
        if self.command is None:  # not a shell call: probed here (input.sandbox stays as documented)
            from cupcake_py.sandbox.bwrap import locate, probe

            found = locate(self.settings.get("bwrap"))
            bwrap = found if found is not None and probe(found)[0] else None
        if bwrap is None:
            return command
        return self._line(command, bwrap)[0]

    def _line(self, command: str, bwrap: str) -> tuple[str, str]:
        """(the command line running `command` inside this call's profile, the arguments file)."""
        from cupcake_py.sandbox.bwrap import line

        ready = self.prepared()
        if ready.bwrap != bwrap or ready.parts is None:
            ready.parts, ready.bwrap = parts_for(ready, bwrap), bwrap
        return line(command, ready.parts), ready.parts["args"]

    def apply(self, final: FinalDecision) -> FinalDecision:
        if not self.applies or final.kind not in ("allow", "modify", "ask") or self.bwrap is None:
            return final
        from cupcake_py.engine.synthesis import FinalDecision

        updated = dict(final.updated_input or {})
        command = updated.get("command", self.command)
        if not isinstance(command, str):
            raise SandboxError("a policy replaced the shell command with a non-string value")
        updated["command"], path = self._line(command, self.bwrap)
        note = f"runs inside cupcake's sandbox (profile {path})"
        if final.kind == "ask":
            return FinalDecision("ask", final.reason, final.rule_ids, updated, final.context, final.agent_messages)
        reason = note if final.kind == "allow" else f"{final.reason}; {note}"
        return FinalDecision("modify", reason, final.rule_ids + (RULE_ID,), updated, final.context,
                             final.agent_messages)


class Prepared:
    """A profile (sandbox/profile.py), the memo it came from, and its command line's parts for
    `bwrap` (sandbox/bwrap.py `prepare`; None until asked for)."""

    __slots__ = ("memo", "profile", "parts", "bwrap")

    def __init__(self, memo: Any, profile: dict[str, Any], parts: dict[str, Any] | None, bwrap: str | None) -> None:
        self.memo = memo
        self.profile = profile
        self.parts = parts
        self.bwrap = bwrap


def prepare(src: Any, bwrap: str | None) -> Prepared:
    """The profile of `src` and, with `bwrap`, its command line's parts (the memo saved)."""
    from cupcake_py.sandbox.bwrap import sandbox_dir
    from cupcake_py.sandbox.profile_memo import ProfileMemo

    memo = ProfileMemo(sandbox_dir(), src)
    ready = Prepared(memo, memo.profile(), None, None)
    if bwrap is not None:
        ready.parts, ready.bwrap = parts_for(ready, bwrap), bwrap
    else:
        memo.save()
    return ready


def parts_for(ready: Prepared, bwrap: str) -> dict[str, Any]:
    from cupcake_py.sandbox.bwrap import mounter_for
    from cupcake_py.sandbox.bwrap import prepare as make_parts

    profile = ready.profile
    mounter = mounter_for(profile, bwrap)
    parts: dict[str, Any] = ready.memo.parts(bwrap, mounter, lambda fs: make_parts(profile, bwrap, mounter, fs))
    ready.memo.save()
    return parts
