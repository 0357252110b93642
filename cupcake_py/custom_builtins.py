"""The extension point's first public name, kept as an alias: projects' builtin modules written
before it moved import `builtin` and `BuiltinError` from here. Everything is extensions/builtins.py's
(docs/custom-builtins.md); this module holds nothing of its own.
"""

from cupcake_py.extensions.builtins import *  # noqa: F403
from cupcake_py.extensions.builtins import __all__ as __all__
