"""harness/opencode"""
