"""Options of `cupcake eval`, parsed without argparse/typer (this is the hot path).

OPTIONS is the one table: the parser reads it and `cupcake eval --help` prints it.
"""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import Record


class UsageError(CupcakeError):
    pass


class EvalOptions(Record):
    __slots__ = ("harness", "policy_dir", "global_config", "no_global", "strict", "timeout", "wasm_max_memory",
                 "max_input_bytes", "debug_files", "debug_dir", "trace", "log_level", "no_cache", "builtins", "help",
                 "hard_timeout")
    harness: str | None  # None: the default harness (opencode; see harness/__init__.py DEFAULT)
    policy_dir: str | None
    global_config: str | None
    no_global: bool
    strict: bool
    timeout: float
    wasm_max_memory: int
    max_input_bytes: int
    debug_files: bool
    debug_dir: str | None
    trace: set[str]
    log_level: str
    no_cache: bool
    builtins: list[str]
    help: bool
    hard_timeout: float | None

    def __init__(self, harness: str | None = None, policy_dir: str | None = None, global_config: str | None = None,
                 no_global: bool = False, strict: bool = False, timeout: float = 5.0,
                 wasm_max_memory: int = 64 * 1024 * 1024, max_input_bytes: int = 8 * 1024 * 1024,
                 debug_files: bool = False, debug_dir: str | None = None, trace: set[str] | None = None,
                 log_level: str = "warning", no_cache: bool = False, builtins: list[str] | None = None,
                 help: bool = False, hard_timeout: float | None = None) -> None:
        self._fill(harness, policy_dir, global_config, no_global, strict, timeout, wasm_max_memory, max_input_bytes,
                   debug_files, debug_dir, set() if trace is None else trace, log_level, no_cache,
                   [] if builtins is None else builtins, help, hard_timeout)


TRACE_PHASES = ("read", "validate", "discover", "bundle", "route", "state_paths", "sandbox", "warmup", "preprocess", "signals",
                "wasm", "synthesis", "total")

# (flag, attribute, kind, metavar, help). kind: flag | str | list | float | size | trace | choice:<a|b>
OPTIONS: tuple[tuple[str, str, str, str, str], ...] = (
    ("--harness", "harness", "str", "NAME",
     "Agent harness whose events arrive on stdin and whose answer format is used: opencode (default), claude, "
     "codex, gemini, qwen, copilot, factory, cline or cursor."),
    ("--policy-dir", "policy_dir", "str", "DIR",
     "Project config: DIR/.cupcake, or DIR itself when it is a .cupcake directory. Default: the nearest "
     ".cupcake/ in the working directory or a parent."),
    ("--global-config", "global_config", "str", "DIR",
     "Global config dir (default $XDG_CONFIG_HOME/cupcake). Its halt/deny/block answers win over the project."),
    ("--no-global", "no_global", "flag", "", "Ignore the global config dir."),
    ("--strict", "strict", "flag", "", "Exit 1 when the decision is deny or block (the decision is still printed)."),
    ("--timeout", "timeout", "float", "SECONDS",
     "Deadline of the whole evaluation from the process start: reading the event, the policies (a build "
     "goes on in the background; the call is denied saying so), signals and WASM (default 5)."),
    ("--hard-timeout", "hard_timeout", "float", "SECONDS",
     "Wall-clock limit of the whole process, bundle build included; past it the answer fails closed "
     "(default: none; `cupcake init --harness claude` sets it below the hook timeout)."),
    ("--wasm-max-memory", "wasm_max_memory", "size", "SIZE",
     "Memory cap of the policy module, e.g. 64MB (default); an event holding more data is denied as too large."),
    ("--max-input-bytes", "max_input_bytes", "size", "SIZE", "Largest accepted event on stdin (default 8MB)."),
    ("--debug-files", "debug_files", "flag", "", "Write a readable trace of each evaluation to .cupcake/debug/."),
    ("--debug-dir", "debug_dir", "str", "DIR", "Directory for --debug-files (implies it)."),
    ("--trace", "trace", "trace", "PHASES",
     "Print timings on stderr: `all` or a comma list of " + ", ".join(TRACE_PHASES) + "."),
    ("--log-level", "log_level", "choice:debug|info|warning|error", "LEVEL",
     "Log verbosity on stderr (debug also prints tracebacks of internal errors)."),
    ("--no-cache", "no_cache", "flag", "", "Rebuild the policy bundle instead of using the cache."),
    ("--custom-builtins", "builtins", "list", "MODULE",
     "Python module (name or .py path; repeatable, or comma-separated) with custom Rego builtins "
     "(`cupcake docs custom-builtins`). Also: rulebook key custom_builtins, entry points cupcake_py.builtins."),
    ("--builtins", "builtins", "list", "MODULE", "Same as --custom-builtins (the older spelling, still accepted)."),
    ("--debug", "log_level", "const:debug", "", "Same as --log-level debug."),
    ("--help", "help", "flag", "", "Show this help and exit."),
)

_UNITS = {"": 1, "b": 1, "kb": 1024, "kib": 1024, "mb": 1 << 20, "mib": 1 << 20, "gb": 1 << 30, "gib": 1 << 30}


def parse_size(text: str, flag: str) -> int:
    """DIGITS [whitespace] [unit] (units case-insensitive, binary multiples)."""
    s = text.strip()
    n = len(s) - len(s.lstrip("0123456789"))
    unit = s[n:].lstrip().lower()
    if n == 0 or unit not in _UNITS:
        raise UsageError(f"{flag}: {text!r} is not a size (e.g. 64MB, 512KB, 1048576)")
    return int(s[:n]) * _UNITS[unit]


def parse_args(argv: list[str]) -> EvalOptions:
    opts = EvalOptions()
    table = {o[0]: o for o in OPTIONS}
    table["-h"] = table["--help"]
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition("=")
        spec = table.get(name)
        if spec is None:
            raise UsageError(f"unknown option {arg!r} (see `cupcake eval --help`)")
        _, attr, kind, _, _ = spec
        if kind == "flag" or kind.startswith("const:"):
            if eq:
                raise UsageError(f"{name} takes no value")
            setattr(opts, attr, True if kind == "flag" else kind[6:])
            i += 1
            continue
        if eq:
            value = inline
            i += 1
        elif i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
        else:
            raise UsageError(f"{name} needs a value")
        if kind == "str":
            setattr(opts, attr, value)
        elif kind == "list":
            getattr(opts, attr).extend(s.strip() for s in value.split(",") if s.strip())
        elif kind == "float":
            try:
                f = float(value)
            except ValueError:
                raise UsageError(f"{name}: {value!r} is not a number") from None
            if not 0 < f <= 3600:
                raise UsageError(f"{name} must be between 0 and 3600 seconds")
            setattr(opts, attr, f)
        elif kind == "size":
            setattr(opts, attr, parse_size(value, name))
        elif kind == "trace":
            phases = {p.strip() for p in value.split(",") if p.strip()}
            bad = phases - set(TRACE_PHASES) - {"all"}
            if bad:
                raise UsageError(f"{name}: unknown phase(s) {', '.join(sorted(bad))}")
            opts.trace = set(TRACE_PHASES) if "all" in phases else phases
        elif kind.startswith("choice:"):
            choices = kind[7:].split("|")
            if value not in choices:
                raise UsageError(f"{name}: {value!r} is not one of {', '.join(choices)}")
            setattr(opts, attr, value)
    if opts.debug_dir is not None:
        opts.debug_files = True
    if opts.wasm_max_memory < (1 << 20):
        raise UsageError("--wasm-max-memory must be at least 1MB")
    return opts


def help_text() -> str:
    """The option table as plain text (used by `cupcake eval --help`)."""
    rows = []
    for flag, _, _kind, metavar, text in OPTIONS:
        left = f"{flag} {metavar}".strip()
        rows.append(f"  {left:<26} {text}")
    return "\n".join(rows)
