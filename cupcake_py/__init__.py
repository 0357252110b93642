"""cupcake-py: Rego policies compiled to WebAssembly that govern AI coding agents."""

__version__ = "0.1.0"

from time import time_ns as _time_ns  # a built-in module, imported by Python at start-up

# When this process loaded cupcake: a sandbox module whose file changed since may not be the code
# running (an upgrade under a long-lived `cupcake serve`); sandbox/profile_memo.py then keeps no memo.
STARTED_NS = _time_ns()
