"""wasm"""
