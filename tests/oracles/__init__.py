"""Test oracles: slower, simpler answers the interpreter's fast paths are checked against."""
