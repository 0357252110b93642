"""Built-in signals computed in-process (no shell): `git.*` (git.py) and `file.*` (file.py).

Both follow the provider contract of `cupcake_py.engine.native_signals`:
`gather(names, event, root, deadline) -> {name: value}`; a name left out of the result is
absent from `input.signals` (timeout, unreadable file, git failure), never an exception.
"""
