"""Structured log lines: one record, one line, parseable by any log shipper.

logfmt (``ts=… level=INFO logger=challenges.services msg="attempt finished attempt=7
challenge=3 asks=21" attempt=7 challenge=3 asks=21``) or, with ``json=True``, one JSON
object per line. Messages already name their subjects as ``key=value`` (attempt=,
challenge=): those pairs are repeated as fields of their own so they can be filtered on
without parsing the text.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re

# key=value inside a message; the value ends at whitespace or a ; , ) that follows it.
_PAIR = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)=([^\s;,)]+)")
_RESERVED = {"ts", "level", "logger", "msg", "exc"}
_BARE = re.compile(r"^[^\s\"=\\]+$")


def message_fields(message: str) -> dict[str, str]:
    """The ``key=value`` pairs named in a message (first occurrence wins)."""
    fields: dict[str, str] = {}
    for key, value in _PAIR.findall(message):
        if key not in _RESERVED and key not in fields:
            fields[key] = value
    return fields


def logfmt_value(value: object) -> str:
    text = str(value)
    if text and _BARE.match(text):
        return text
    return json.dumps(text, ensure_ascii=False)


class StructuredFormatter(logging.Formatter):
    def __init__(self, json: bool = False) -> None:  # noqa: A002 - the LOGGING option's name
        super().__init__()
        self.as_json = json

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        fields: dict[str, object] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": message,
            **message_fields(message),
        }
        if record.exc_info:
            fields["exc"] = self.formatException(record.exc_info)
        if self.as_json:
            return json.dumps(fields, ensure_ascii=False, default=str)
        return " ".join(f"{k}={logfmt_value(v)}" for k, v in fields.items())
