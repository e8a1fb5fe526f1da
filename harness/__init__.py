"""Reference specification and conformance harness for Guandan (摜蛋)."""

from harness.errors import HarnessError

__all__ = ["HarnessError"]
__version__ = "0.1.0"
