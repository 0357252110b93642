"""What every generated page shares: the repository it is written into, the command that
writes it, and the banner at its top saying so.

In: the name of the page's source. Out: the banner text. Pure; fails on nothing.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
COMMAND = "python -m cupcake_py.authoring.docgen"


def banner(source: str) -> str:
    return (f"<!-- GENERATED from {source} by `{COMMAND}`: do not edit by hand, "
            "edit the source and rerun the command. -->\n\n")
