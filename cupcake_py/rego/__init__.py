"""rego"""
