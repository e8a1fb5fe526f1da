"""The fast engine (快速引擎): a second, compiled implementation of the play operations behind
the `Engine` protocol (`--engine fast`), generic over the same variant data, proven against the
reference by the corpus and the property tests. Optional: where no C compiler is found, or
`GUANDAN_FAST=off`, it is off and the Python path answers (`status()` says which).
"""

from harness.kernel import KernelStatus, status

__all__ = ["FastEngine", "KernelStatus", "status"]


def __getattr__(name: str) -> object:
    # The engine imports the interpreter's input readers: loaded only when asked for, so that
    # `guandan --version` asks the kernel's status without them.
    if name == "FastEngine":
        from harness.engine.fast.engine import FastEngine

        return FastEngine
    raise AttributeError(name)
