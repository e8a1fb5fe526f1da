"""Engines (引擎), layer 3: the engine API (the Python protocol and its base), the reference
engine, the process protocol's client and server, engine specs, and where tasks run (one core,
processes or a Dask cluster: `cluster.py`).

Imports from the interpreter, the rule model and layer 0 (`harness.errors`, `harness._paths`),
and `__version__` from the package; never from the conformance tools or the front ends. The
public names are importable from here, as the engine guide says.
"""

from harness.engine.api import (
    OPERATION_NAMES,
    BeatsInput,
    BeatsOutput,
    ClassifyInput,
    ClassifyOutput,
    Engine,
    EngineBase,
    EngineInfo,
    Json,
    LegalPlaysInput,
    LegalPlaysOutput,
    Reach,
    ReadingJson,
    ReplayInput,
    ScoreInput,
    SettleInput,
    TributeInput,
    call,
    output_fields,
    unwrap_response,
)
from harness.engine.loading import check_engine_spec, load_engine
from harness.engine.process import ProcessEngine
from harness.engine.reference import ReferenceEngine
from harness.errors import EngineError, EngineErrorKind, OptionRefused, Unsupported

__all__ = [
    "OPERATION_NAMES",
    "BeatsInput",
    "BeatsOutput",
    "ClassifyInput",
    "ClassifyOutput",
    "Engine",
    "EngineBase",
    "EngineError",
    "EngineErrorKind",
    "EngineInfo",
    "Json",
    "LegalPlaysInput",
    "LegalPlaysOutput",
    "OptionRefused",
    "ProcessEngine",
    "Reach",
    "ReadingJson",
    "ReferenceEngine",
    "ReplayInput",
    "ScoreInput",
    "SettleInput",
    "TributeInput",
    "Unsupported",
    "call",
    "check_engine_spec",
    "load_engine",
    "output_fields",
    "unwrap_response",
]
