"""The one options table of the command line: one flag, one spelling and one help text per
concept, used by every typer command (issue 33, "one vocabulary for all commands").

| concept  | flag                          | values                                                    |
| harness  | `--harness NAME`              | a name of the harness registry (`cupcake_py.harness.NAMES`) |
| project  | `--policy-dir DIR` (`--dir`)  | a project directory or its .cupcake/ (default: found from the cwd) |
| global   | `--global`                    | the global config ($XDG_CONFIG_HOME/cupcake) instead      |
| format   | `--format/-f FORMAT`          | text, json, sarif, github, junit (`pretty`, `table`: text) |

`cupcake eval` / `cupcake serve` parse their options without typer (cupcake_py/engine/options.py)
with the same spellings for --harness and --policy-dir.

In: nothing at import but the harness registry's names (a dict, no harness module is imported).
Out: typer.Option values and `harness_for` (which harness a configuration is for). A name that is not
in the registry, or a format a command does not offer, is a usage error (exit 2), never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from cupcake_py import harness as harness_registry

# ------------------------------------------------------------------------------------ harness


def harness_names() -> tuple[str, ...]:
    """Every harness `--harness` accepts: the registry's names, read when asked (a harness added to
    the registry is accepted by every command without a change here)."""
    return tuple(harness_registry.MODULES)


def _check_harness(value: str | None) -> str | None:
    if value is not None and value not in harness_registry.MODULES:
        from cupcake_py.authoring.findings import hint

        raise typer.BadParameter(f"unknown harness {value!r}{hint(value, harness_names())} "
                                 f"(known: {', '.join(harness_names())})")
    return value


def harness_option(*, required: bool = False, default_help: str = "") -> Any:
    """`--harness NAME`. Required (init), or None when not given: the command then asks
    `harness_for` (the harness the configuration has policies for)."""
    text = f"The agent: {', '.join(harness_names())}."
    if not required:
        text += " " + (default_help or "Default: the one the project has policies/<harness>/ for (when only one).")
    return typer.Option(... if required else None, "--harness", metavar="NAME", callback=_check_harness,
                        help=text, show_default=False)


def harness_for(policies_dir: Path, explicit: str | None) -> str:
    """The harness a configuration is for (the one rule every command applies): --harness when
    given; else the only harness the configuration has a policies/<harness>/ folder for; else, when
    it has none, the registry's default. More than one and no --harness: a usage error naming them."""
    if explicit is not None:
        return explicit
    have = [h for h in harness_names() if (policies_dir / h).is_dir()]
    if len(have) == 1:
        return have[0]
    if not have:
        return harness_registry.DEFAULT
    typer.echo(f"cupcake: pass --harness ({', '.join(have)}): {policies_dir} has policies for more than one agent",
               err=True)
    raise typer.Exit(2)


# ------------------------------------------------------------------------------------ project

PROJECT_HELP = ("The project: a directory with a .cupcake/, or the .cupcake/ itself. Default: the nearest "
                ".cupcake/ in the current directory or a parent.")


def project_option(help: str = PROJECT_HELP) -> Any:
    """`--policy-dir DIR` (also spelled `--dir`, the older `init` flag): the project, as for `cupcake eval`."""
    return typer.Option(None, "--policy-dir", "--dir", metavar="DIR", help=help, show_default=False)


def global_option(what: str = "the current project") -> Any:
    return typer.Option(False, "--global", help=f"The global config ($XDG_CONFIG_HOME/cupcake) instead of {what}.")


# ------------------------------------------------------------------------------------ format

# One vocabulary of output formats; a command offers the ones it can write.
FORMATS: dict[str, str] = {
    "text": "human-readable text",
    "json": "JSON",
    "sarif": "SARIF 2.1.0 (code scanning)",
    "github": "GitHub workflow annotations",
    "junit": "JUnit XML (CI test reports)",
}
# Other tools' names for the text format: OPA's `pretty`, the older `inspect --format table`.
ALIASES = {"pretty": "text", "table": "text"}


def format_option(*offered: str, default: str = "text", extra_help: str = "") -> Any:
    """`--format/-f FORMAT`, one of `offered` (names of FORMATS); `pretty` and `table` mean text."""
    unknown = [f for f in offered if f not in FORMATS]
    if unknown:
        raise ValueError(f"format_option: unknown formats {unknown}")

    def check(value: str) -> str:
        name = ALIASES.get(value, value)
        if name not in offered:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(offered)}")
        return name

    listing = "; ".join(f"{f}: {FORMATS[f]}" for f in offered)
    return typer.Option(default, "--format", "-f", metavar="[" + "|".join(offered) + "]", callback=check,
                        help=f"Output format ({listing}).{' ' + extra_help if extra_help else ''}")


# ------------------------------------------------------------------------------------ failures


def fail(message: str, code: int = 2) -> typer.Exit:
    """`cupcake: <message>` on stderr; raise the result (exit `code`, 2 = usage/config errors)."""
    typer.echo(f"cupcake: {message}", err=True)
    return typer.Exit(code)
