"""Harness-neutral enrichment of an agent event: what a tool call would touch (resolved file
paths, patch operations, Bash command analysis). Harnesses normalise their event first
(tool_name, tool_input, cwd); the functions here only read those normalised fields."""
