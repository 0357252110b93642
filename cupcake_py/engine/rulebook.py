"""`rulebook.yml`: signals, builtins, telemetry and preprocessing options, validated with
pydantic. Unknown keys are errors, reported with the file:row:col of the YAML node.
Only loaded when a bundle is (re)built: the validated result is stored in the bundle.

```yaml
signals:                     # shell signals: sh -c COMMAND in the project root, event JSON on stdin
  NAME: {command: "…", timeout_seconds: 5}
builtins:                    # a listed builtin is enabled unless `enabled: false`
  # every protecting builtin also takes on_uncertain: ask (default) | deny | allow
  protected_paths: {paths: ["/etc/", "secrets/"], message: "…"}
  rulebook_security_guardrails: {protected_paths: [".cupcake/"]}   # ON even when not listed;
                               # `enabled: false` switches it off (a warning on every evaluation)
  git_block_no_verify: {exceptions: []}
  git_pre_check: {checks: [{command: "make lint", message: "lint failed"}]}
  post_edit_check: {by_extension: {py: {command: "ruff check", message: "ruff failed"}}}
  enforce_full_file_read: {max_lines: 2000}
  always_inject: {context: ["text", {file: "CONVENTIONS.md"}, {command: "git log -3 --oneline"}]}
  system_protection / sensitive_data_protection / cupcake_exec_protection: {…}   # global rulebook
  rate_limit: {limits: [{tools: [Bash], max_calls: 30, window_minutes: 1, action: ask}]}
  escalation: {max_denials: 5, window_minutes: 5, timeout_minutes: 10}
  loop_guard: {max_repeats: 3}
telemetry: {enabled: false, destination: .cupcake/telemetry}
audit: on                    # on (default) | required | off, or the object form (docs/governance.md):
  # {mode: required, retention_days: 30, max_rows: 200000, write_budget_ms: 250, history_last_n: 10}
preprocessing: {script_inspection: true}
require_project_config: false   # global rulebook only: deny every event where no project .cupcake/ exists
sandbox: {enabled: true, writable: ["~/.cache", …], read_only: [], hidden: [], network: true}   # docs/sandbox.md
custom_builtins: [my_company.rego_builtins, builtins/extra.py]   # Python modules (docs/custom-builtins.md)
rego_version: 1              # 0: the project's policies are Rego v0 (OPA 0.x syntax, as --v0-compatible)
file_rego_versions: {"policies/opencode/legacy/**": 0}   # per-file, globs relative to .cupcake/
```
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cupcake_py.core.errors import CupcakeError
from cupcake_py.sandbox.writable import DEFAULT_WRITABLE

if TYPE_CHECKING:
    from cupcake_py.rego.versions import RegoVersions


class RulebookError(CupcakeError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SignalSpec(_Strict):
    """A shell signal: run when a routed policy lists it in `required_signals`."""

    command: str = Field(min_length=1, description="Shell command (sh -c, in the project root, event JSON on "
                         "stdin); its output (JSON if it parses, else text) is input.signals.<name>.",
                         examples=["git rev-parse --abbrev-ref HEAD"])
    timeout_seconds: float = Field(default=5.0, gt=0, le=300, description="Deadline; a signal that overruns "
                                   "fails the evaluation closed.")


class Builtin(_Strict):
    """Common to every builtin; what policies see is made by engine/builtin_policy_config.py."""

    enabled: bool = Field(default=True, description="A listed builtin is on unless this is false.")


class Guarding(Builtin):
    """A builtin that protects something. `on_uncertain`: the decision when a protected target
    might be touched but static analysis cannot tell (an opaque `$(…)` operand, inline
    interpreter code, an unreadable hard-link root): ask (default), deny, or allow."""

    on_uncertain: Literal["ask", "deny", "allow"] = Field(
        default="ask", description="The decision when a protected target might be touched but static analysis "
        "cannot tell (an opaque operand, inline interpreter code, an unreadable hard-link root).")


def _nonempty(items: list[str], what: str) -> list[str]:
    if not items or any(not x.strip() for x in items):
        raise ValueError(f"{what} must be a non-empty list of non-empty strings")
    return items


class ProtectedPaths(Guarding):
    """halt: files no tool may modify."""

    message: str = Field(default="This path is read-only and cannot be modified",
                         description="Reason shown to the agent.")
    paths: list[str] = Field(default_factory=list, description="Exact paths, `dir/` prefixes, relative `dir/` "
                             "anywhere, `*` globs, `~` expanded.", examples=[["/etc/", "secrets/", "*.pem"]])

    @field_validator("paths")
    @classmethod
    def _paths(cls, v: list[str]) -> list[str]:
        return _nonempty(v, "paths")


class RulebookSecurity(Guarding):
    """halt: the cupcake configuration can be neither read nor written by any tool."""

    message: str = Field(default="Cupcake configuration files are protected from modification",
                         description="Reason shown to the agent.")
    protected_paths: list[str] = Field(default_factory=lambda: [".cupcake/"],
                                       description="Paths guarded like `.cupcake/`.")

    @field_validator("protected_paths")
    @classmethod
    def _paths(cls, v: list[str]) -> list[str]:
        return _nonempty(v, "protected_paths")


class GitBlockNoVerify(Guarding):
    """deny: git commands that skip hooks (`--no-verify`, disabling .git/hooks)."""

    message: str = Field(default="Git operations with --no-verify are not permitted. Commit hooks must run for "
                         "code quality and security checks.", description="Reason shown to the agent.")
    exceptions: list[str] = Field(default_factory=list, description="Commands allowed anyway.")


class Check(_Strict):
    """A command whose failure stops the action."""

    command: str = Field(min_length=1, description="Shell command; exit status 0 passes.", examples=["make lint"])
    message: str = Field(default="check failed", description="Reason shown (with the output) when it fails.")
    timeout_seconds: float = Field(default=30.0, gt=0, le=300, description="Deadline; an overrun fails.")


class GitPreCheck(Builtin):
    """halt: run checks before `git commit|push|merge`; halt with the output when one fails."""

    checks: list[Check] = Field(min_length=1, description="Checks run in order.",
                                examples=[[{"command": "make lint", "message": "lint must pass before committing"}]])


class PostEditCheck(Builtin):
    """After an edit of a file with the extension, run its check; a failure is fed back to the model."""

    by_extension: dict[str, Check] = Field(min_length=1, description="File extension (without the dot) -> check.",
                                           json_schema_extra={"propertyNames": {"pattern": "^[^./]+$"}},
                                           examples=[{"py": {"command": "ruff check", "message": "ruff failed"}}])

    @field_validator("by_extension")
    @classmethod
    def _ext(cls, v: dict[str, Check]) -> dict[str, Check]:
        bad = [k for k in v if not k or "." in k or "/" in k]
        if bad:
            raise ValueError(f"extensions are written without a dot, e.g. `py`; got {bad}")
        return v


class EnforceFullFileRead(Builtin):
    """deny: partial reads (offset/limit) of files shorter than max_lines."""

    max_lines: int = Field(default=2000, gt=0, description="Files shorter than this must be read whole.")
    message: str | None = Field(default=None, description="Reason shown; unset: \"files under <max_lines> "
                                "lines must be read completely\".")


class CommandContext(_Strict):
    """Context from a command's output."""

    command: str = Field(min_length=1, description="Shell command whose output is added.",
                         examples=["git log -3 --oneline"])
    timeout_seconds: float = Field(default=5.0, gt=0, le=300, description="Deadline for the command.")


class FileContext(_Strict):
    """Context from a file's text."""

    file: str = Field(min_length=1, description="File (relative to the project root) whose text is added.",
                      examples=["CONVENTIONS.md"])


class AlwaysInject(Builtin):
    """Context added to every prompt: text, files, command output."""

    context: list[str | CommandContext | FileContext] = Field(
        min_length=1, description="Items: a string, `{file: PATH}` or `{command: CMD}`.",
        examples=[["Follow CONVENTIONS.md", {"file": "CONVENTIONS.md"}, {"command": "git log -3 --oneline"}]])


class SystemProtection(Guarding):
    """(global rulebook) halt: system paths for every tool, and sudo/doas."""

    message: str = Field(default="Access to critical system path blocked", description="Reason shown.")
    additional_paths: list[str] = Field(default_factory=list, description="More paths to protect.")


class SensitiveDataProtection(Guarding):
    """(global rulebook) deny: reading credentials (.env, keys, cloud configs)."""

    message: str = Field(default="Blocked access to potentially sensitive file", description="Reason shown.")
    additional_patterns: list[str] = Field(default_factory=list, description="More file patterns to protect.")


class CupcakeExecProtection(Guarding):
    """(global rulebook) halt: the agent running the cupcake binary itself."""

    message: str = Field(default="Direct execution of Cupcake binary is not permitted", description="Reason shown.")
    allowed_commands: list[str] = Field(default_factory=list, description="cupcake commands allowed anyway.")


class RateLimitRule(_Strict):
    """One limit: at most max_calls calls of these tools per window."""

    tools: list[str] = Field(min_length=1, description="Tool names as policies see them (Bash, Edit, …) or `*`.",
                             examples=[["Bash"]])
    max_calls: int = Field(gt=0, description="Calls allowed within the window.", examples=[60])
    window_minutes: int = Field(default=1, ge=1, le=1440, description="The window.")
    action: Literal["ask", "deny"] = Field(default="ask", description="The answer once the limit is reached.")

    @field_validator("tools")
    @classmethod
    def _tools(cls, v: list[str]) -> list[str]:
        return _nonempty(v, "tools")


class RateLimit(Builtin):
    """Ask or deny once a session calls tools more often than the limits allow (docs/governance.md)."""

    message: str = Field(default="Rate limit reached", description="Reason shown.")
    limits: list[RateLimitRule] = Field(min_length=1, description="The limits, each checked.",
                                        examples=[[{"tools": ["Bash"], "max_calls": 60, "window_minutes": 1}]])


class Escalation(Builtin):
    """Put a session in timeout after too many denied calls (docs/governance.md)."""

    message: str = Field(default="Too many tool calls were denied", description="Reason shown.")
    max_denials: int = Field(default=5, ge=1, description="deny/block/halt decisions …")
    window_minutes: int = Field(default=5, ge=1, le=1440, description="… within this window …")
    timeout_minutes: int = Field(default=10, ge=1, le=1440, description="… put the session in timeout this long.")


class LoopGuard(Builtin):
    """Ask when the same tool call is repeated in a row (docs/governance.md)."""

    message: str = Field(default="The same tool call keeps being repeated", description="Reason shown.")
    max_repeats: int = Field(default=3, ge=2, le=50, description="The n-th identical call in a row is asked.")


class Builtins(_Strict):
    """The shipped builtin policies (docs/builtin-policies.md); a listed builtin is enabled unless `enabled: false`."""

    protected_paths: ProtectedPaths | None = None
    # Cupcake's own protection: on unless the rulebook says `enabled: false`.
    rulebook_security_guardrails: RulebookSecurity | None = Field(default_factory=RulebookSecurity)
    git_block_no_verify: GitBlockNoVerify | None = None
    git_pre_check: GitPreCheck | None = None
    post_edit_check: PostEditCheck | None = None
    enforce_full_file_read: EnforceFullFileRead | None = None
    always_inject: AlwaysInject | None = None
    system_protection: SystemProtection | None = None
    sensitive_data_protection: SensitiveDataProtection | None = None
    cupcake_exec_protection: CupcakeExecProtection | None = None
    rate_limit: RateLimit | None = None
    escalation: Escalation | None = None
    loop_guard: LoopGuard | None = None

    def enabled(self) -> dict[str, Builtin]:
        return {name: b for name in type(self).model_fields if (b := getattr(self, name)) is not None and b.enabled}


# Cupcake 0.5.2 names accepted for the same builtins.
ALIASES = {
    "claude_code_always_inject_on_prompt": "always_inject",
    "always_inject_on_prompt": "always_inject",
    "opencode_always_inject_on_prompt": "always_inject",
    "claude_code_enforce_full_file_read": "enforce_full_file_read",
    "opencode_enforce_full_file_read": "enforce_full_file_read",
}


class Telemetry(_Strict):
    """One trace file per evaluation."""

    enabled: bool = Field(default=False, description="Write a trace file per evaluation.")
    format: Literal["json"] = Field(default="json", description="Trace format.")
    destination: str = Field(default=".cupcake/telemetry", description="Directory the traces are written to.")


class Preprocessing(_Strict):
    """What is prepared from the event before policies see it."""

    script_inspection: bool = Field(default=True, description="Read the script a Bash command runs (./x.sh, "
                                    "python x.py) into input.executed_script_content.")


class Audit(_Strict):
    """The audit log and session history (cupcake_py/governance, docs/governance.md)."""

    mode: Literal["off", "on", "required"] = Field(default="on", description="on (the default, also without the "
                                                   "`audit` key): a failed write warns and the decision stands; "
                                                   "required: a failed write fails closed; off: nothing is recorded "
                                                   "(unless a history builtin needs the records).")
    retention_days: int = Field(default=30, ge=1, le=3650, description="Records older than this are pruned.")
    max_rows: int = Field(default=200_000, ge=100, le=100_000_000, description="At most this many records are kept.")
    write_budget_ms: int = Field(default=250, ge=10, le=10_000, description="The longest a write may wait for the "
                                 "database.")
    history_last_n: int = Field(default=10, ge=1, le=100, description="input.history.session.last_calls length.")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        """`audit: on|off|required` and `mode: on|off` (YAML reads a bare on/off as true/false)."""
        if isinstance(v, bool):
            return {"mode": "on" if v else "off"}
        if isinstance(v, str):
            return {"mode": v}
        if isinstance(v, dict) and isinstance(v.get("mode"), bool):
            return {**v, "mode": "on" if v["mode"] else "off"}
        return v


class Sandbox(_Strict):
    """The kernel floor (docs/sandbox.md): every Bash call runs in bubblewrap with a profile computed
    from this configuration, the state paths and the builtins' protected and sensitive paths."""

    enabled: bool = Field(default=False, description="Run every agent Bash call inside the sandbox (`cupcake init` "
                          "turns it on).")
    writable: list[str] = Field(default_factory=lambda: list(DEFAULT_WRITABLE),
                                description="Writable roots besides the project and the temp dirs: the tool caches "
                                "(`~` expanded, relative to the project root; created when missing below home, a default tool cache only "
                                "when a tool that fills it is on PATH or in the project root).")
    read_only: list[str] = Field(default_factory=list, description="Extra paths kept read-only inside writable roots.")
    hidden: list[str] = Field(default_factory=list, description="Extra paths shown empty inside the sandbox.")
    pass_env: list[str] = Field(default_factory=list, description="Environment variables with a secret's name "
                                "(tokens, passwords, API keys) the sandboxed command still gets (default: none; "
                                "every other one is unset inside the sandbox).")
    network: bool = Field(default=True, description="false: no network inside the sandbox (--unshare-net).")
    share_processes: bool = Field(default=False, description="true: the sandbox shares the process namespace (a "
                                  "background job outlives its command, but can signal and trace the user's "
                                  "other processes and write through their /proc/<pid>/root past every mount: the "
                                  "floor then covers nothing and the builtins ask as without it).")
    bwrap: str | None = Field(default=None, description="Absolute path of the bubblewrap executable (default: "
                              "/usr/bin/bwrap, /bin/bwrap, /usr/local/bin/bwrap).")


class Rulebook(_Strict):
    """`.cupcake/rulebook.yml` (or the global config's rulebook.yml). Unknown keys are errors."""

    signals: dict[str, SignalSpec] = Field(
        default_factory=dict, description="Shell signals by name (read at input.signals.<name>).",
        json_schema_extra={"propertyNames": {"pattern": "^(?!__builtin_)\\S+$"}},
        examples=[{"branch": {"command": "git rev-parse --abbrev-ref HEAD", "timeout_seconds": 5}}])
    builtins: Builtins = Field(default_factory=Builtins, description="The builtin policies to enable.")
    telemetry: Telemetry = Field(default_factory=Telemetry, description="Evaluation traces.")
    audit: Audit = Field(default_factory=Audit, description="The audit log and session history "
                         "(docs/governance.md).")
    preprocessing: Preprocessing = Field(default_factory=Preprocessing, description="Event preprocessing.")
    require_project_config: bool = Field(default=False, description="Global rulebook: deny every tool call "
                                         "in a directory without a project .cupcake/.")
    sandbox: Sandbox | None = Field(default=None, description="The kernel floor for Bash calls (docs/sandbox.md).")
    custom_builtins: list[str] = Field(
        default_factory=list, description="Python modules with custom Rego builtins: importable names or .py "
        "paths relative to the .cupcake directory (docs/custom-builtins.md).",
        examples=[["my_company.rego_builtins", "builtins/extra.py"]])
    rego_version: Literal[0, 1] = Field(
        default=1, description="Rego syntax of this configuration's own policy files, as the `rego_version` of "
        "OPA's bundle manifest: 1 (OPA 1.x) or 0 (OPA 0.x, as `--v0-compatible`). A file that imports rego.v1 is "
        "read as v1 either way; the shipped policies are always v1.", examples=[0])
    file_rego_versions: dict[str, Literal[0, 1]] = Field(
        default_factory=dict, description="Rego version per file, as OPA's manifest `file_rego_versions`: path "
        "globs relative to the .cupcake directory (`*` and `**` both match across directories, as OPA's globs without a "
        "separator) to 0 or 1; the longest "
        "matching glob wins over `rego_version`.", examples=[{"policies/opencode/legacy/**": 0}])

    def rego_versions(self, root: str) -> RegoVersions:
        """The per-file Rego versions of the files under `root` (the .cupcake directory)."""
        from cupcake_py.rego.versions import RegoVersions

        return RegoVersions.from_manifest({"rego_version": self.rego_version,
                                           "file_rego_versions": self.file_rego_versions}, root)

    @field_validator("signals")
    @classmethod
    def _names(cls, v: dict[str, SignalSpec]) -> dict[str, SignalSpec]:
        for name in v:
            if not name or name.startswith("__builtin_") or any(c.isspace() for c in name):
                raise ValueError(f"signal name {name!r} is not allowed (no spaces, no `__builtin_` prefix)")
        return v


def parse_rulebook(text: str, path: Path) -> Rulebook:
    """A validated rulebook; RulebookError with file:row:col for any mistake (a key given twice
    included, with both line numbers: engine/yaml_source.py)."""
    from cupcake_py.engine.yaml_source import YamlSourceError, load_yaml

    try:
        doc = load_yaml(text, path)
    except YamlSourceError as e:
        raise RulebookError(str(e)) from None
    raw = doc.data
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RulebookError(f"{doc.where(())}: the rulebook must be a mapping (signals, builtins, telemetry)")
    builtins = raw.get("builtins")
    if isinstance(builtins, dict):
        raw["builtins"] = {ALIASES.get(k, k): v for k, v in builtins.items()}
        for k, v in list(raw["builtins"].items()):
            if v is None:
                raw["builtins"][k] = {}
    try:
        return Rulebook.model_validate(raw)
    except ValidationError as e:
        lines = []
        for err in e.errors()[:10]:
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in ("str", "CommandContext", "FileContext")))
            dotted = ".".join(str(p) for p in loc) or "(top level)"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            lines.append(f"{doc.where(_source_loc(loc, builtins))}: {dotted}: {msg}")
        raise RulebookError("invalid rulebook:\n  " + "\n  ".join(lines)) from None


def _source_loc(loc: tuple[int | str, ...], builtins: Any) -> tuple[int | str, ...]:
    """A pydantic error location in the file's own spelling (a builtin policy under an alias name)."""
    if len(loc) >= 2 and loc[0] == "builtins" and isinstance(builtins, dict):
        for written in builtins:
            if ALIASES.get(written, written) == loc[1]:
                return ("builtins", written, *loc[2:])
    return loc


def load_rulebook(path: Path) -> Rulebook:
    """The rulebook at `path`; defaults when the file does not exist."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return Rulebook()
    except (OSError, UnicodeDecodeError) as e:
        raise RulebookError(f"{path}: cannot read the rulebook: {e}") from None
    return parse_rulebook(text, path)
