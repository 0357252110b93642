"""Regenerate the builtin name -> family table: `python -m cupcake_py.host.builtins`."""

from __future__ import annotations

from pathlib import Path

from cupcake_py.host.builtins import _index_source, load_all

if __name__ == "__main__":
    path = Path(__file__).parent.parent / "builtin_index.py"
    path.write_text(_index_source(load_all()))
    print(f"wrote {path}")
