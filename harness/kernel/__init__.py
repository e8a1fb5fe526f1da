"""The fast engine's C kernel (快速引擎核心), layer 0: its source, the layout of the table it
reads, and its build, cache and load (`status()` says whether it is active). Standard library
and `harness._paths` only; the engine that uses it is `harness.engine.fast`.
"""

from harness.kernel.build import SWITCH, Kernel, KernelStatus, load, status

__all__ = ["SWITCH", "Kernel", "KernelStatus", "load", "status"]
