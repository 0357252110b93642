"""cupcake-py: Rego policies compiled to WebAssembly that govern AI coding agents."""

__version__ = "0.1.0"
