"""harness/cursor: Cursor hooks.json command hooks (`cupcake eval --harness cursor`; documented contract only)."""
