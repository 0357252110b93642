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
  `covers` (when it applies) is what the profile guarantees (sandbox/profile.py).
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
    __slots__ = ("settings", "command", "bwrap", "available", "reason", "project_root", "_profile", "_sources",
                 "_writable", "_extension")

    def __init__(self, settings: dict[str, Any] | None, harness: Harness, event: dict[str, Any],
                 event_name: str, tool_name: str | None, project_root: str = "/") -> None:
        self.settings = settings
        self.project_root = project_root
        self._writable: list[str] | None = None
        self._extension: dict[str, list[str]] = {}
        self.command: str | None = None
        self.bwrap: str | None = None
        self.available = False
        self.reason: str | None = None
        self._profile: dict[str, Any] | None = None
        self._sources: Callable[[], Any] | None = None
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

    def extend(self, extension: dict[str, list[str]]) -> None:
        """The policies' `sandbox` outputs (read_only / hidden paths) for this call's profile."""
        if extension and extension != self._extension:
            self._extension = extension
            self._profile = None  # computed again with them

    def profile(self) -> dict[str, Any]:
        if self._profile is None:
            from cupcake_py.sandbox.profile import compute

            if self._sources is None:
                raise SandboxError("the sandbox profile has no sources")
            src = self._sources()
            src.extension = self._extension
            self._profile = compute(src)
        return self._profile

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"enabled": self.settings is not None, "available": self.available,
                               "applies": self.applies, "reason": self.reason}
        if self.settings is not None:
            if self._writable is None:
                from cupcake_py.core.userdirs import home_dir
                from cupcake_py.sandbox.profile import writable_roots

                self._writable = writable_roots(self.project_root, self.settings, home_dir())
            out["writable"] = self._writable
        if self.applies:
            out["covers"] = self.profile()["covers"]
        return out

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
        from cupcake_py.sandbox.bwrap import wrap

        return wrap(command, self.profile(), bwrap)[0]

    def apply(self, final: FinalDecision) -> FinalDecision:
        if not self.applies or final.kind not in ("allow", "modify", "ask") or self.bwrap is None:
            return final
        from cupcake_py.engine.synthesis import FinalDecision
        from cupcake_py.sandbox.bwrap import wrap

        updated = dict(final.updated_input or {})
        command = updated.get("command", self.command)
        if not isinstance(command, str):
            raise SandboxError("a policy replaced the shell command with a non-string value")
        updated["command"], path = wrap(command, self.profile(), self.bwrap)
        note = f"runs inside cupcake's sandbox (profile {path})"
        if final.kind == "ask":
            return FinalDecision("ask", final.reason, final.rule_ids, updated, final.context, final.agent_messages)
        reason = note if final.kind == "allow" else f"{final.reason}; {note}"
        return FinalDecision("modify", reason, final.rule_ids + (RULE_ID,), updated, final.context,
                             final.agent_messages)
