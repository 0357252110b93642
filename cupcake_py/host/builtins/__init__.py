"""host/builtins"""
