"""The Go-compatible YAML printer now lives in :mod:`kubectl_instancetype.golang.goyaml`; kept for its importers."""

from __future__ import annotations

from ..golang.goyaml import _dumper, dump, dump_all, resolves_to_non_string, string_style

__all__ = ["_dumper", "dump", "dump_all", "resolves_to_non_string", "string_style"]
