"""The old name of :mod:`.fmt` (``fmt``, ``strconv.FormatFloat``) and :mod:`.encoding_json` (``json.Marshal``), kept
only while a branch that imports it is merged; nothing here is defined, everything is imported."""

from __future__ import annotations

from .encoding_json import json_round_trip, marshal, marshal_indent
from .fmt import go_type
from .fmt import sprint_value as sprint

__all__ = ["go_type", "json_round_trip", "marshal", "marshal_indent", "sprint"]
