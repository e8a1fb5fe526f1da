"""JSON read from a file that anyone may have written (a report, a journal): whatever it holds,
it is parsed or refused in one line, never with a traceback."""

from __future__ import annotations

import json
import sys
from typing import Any


class UnreadableJSON(ValueError):
    """JSON text that cannot be read, with why in one line."""


def read_json(text: str) -> Any:
    """`text` parsed; UnreadableJSON when it is not JSON, nests deeper than Python's recursion
    allows (100,000 `[`), or holds an integer too long to convert (Python refuses more than
    `sys.get_int_max_str_digits()` digits, a guard against quadratic conversion)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableJSON(f"not JSON ({exc})") from None
    except RecursionError:
        raise UnreadableJSON("its JSON nests too deeply") from None
    except ValueError:
        # json raises nothing else: the integer conversion refused a number.
        digits = sys.get_int_max_str_digits()
        raise UnreadableJSON(f"its JSON holds an integer of more than {digits} digits") from None
