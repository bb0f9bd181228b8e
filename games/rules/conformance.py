"""docs/rules.md §5: one input case (a JSON line) -> one output object, never an exception."""

from __future__ import annotations

import json
from typing import Any

from .base import GameError, ReplayError
from .registry import engine


def run_case(case: Any) -> dict[str, Any]:
    if not isinstance(case, dict):
        return {"error": "bad_input", "detail": "a case is a JSON object"}
    try:
        return engine(case.get("game")).conformance(case)
    except ReplayError as exc:
        return exc.as_dict()
    except GameError as exc:
        return {"error": "bad_input", "detail": exc.detail or exc.code}
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        # An input shape no engine check anticipated: still a named error, never a crash.
        return {"error": "bad_input", "detail": f"{type(exc).__name__}: {exc}"}


def run_line(line: str) -> dict[str, Any]:
    try:
        case = json.loads(line)
    except ValueError as exc:
        return {"error": "bad_input", "detail": f"not JSON: {exc}"}
    return run_case(case)
