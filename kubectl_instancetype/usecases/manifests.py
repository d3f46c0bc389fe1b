"""The one reader of the manifests a command is given with ``-f FILE`` (``-`` for stdin, or a directory).

kubectl's messages for a path that cannot be read; YAML or JSON, several documents per file; ``kind: List`` (and
every ``*List``) flattened; a directory read as kubectl reads one (its ``.json``, ``.yaml`` and ``.yml`` files, in
name order; subdirectories skipped). Every ``-f`` of the plugin (``convert``, ``expand``, ``infer``) reads through here.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import InputError

MANIFEST_EXTENSIONS = (".json", ".yaml", ".yml")


def read_text(path: str, stdin: Any) -> str:
    """The text of ``path`` (``-``: ``stdin``), or :class:`InputError` in kubectl's and Go's words."""
    if path == "-":
        text: str = stdin.read()
        return text
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError as exc:
        raise InputError(f'the path "{path}" does not exist') from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"read {path}: not UTF-8 text") from exc
    except OSError as exc:
        # Go's wording, as kubectl reports it: "read <path>: is a directory".
        raise InputError(f"read {path}: {(exc.strerror or str(exc)).lower()}") from exc


def read_manifests(path: str, stdin: Any, *, typed: bool = True) -> list[dict[str, Any]]:
    """The objects of ``path`` (a file, ``-`` or a directory), as :func:`parse_manifests` reads them."""
    if path != "-" and os.path.isdir(path):
        # k8s.io/cli-runtime/pkg/resource/visitor.go ExpandPathsToFileVisitors without --recursive: the files of
        # the directory with a manifest extension, in lexical order; subdirectories are skipped.
        names = sorted(
            name
            for name in os.listdir(path)
            if name.endswith(MANIFEST_EXTENSIONS) and not os.path.isdir(os.path.join(path, name))
        )
        return [
            obj for name in names for obj in parse_manifests(read_text(os.path.join(path, name), stdin), typed=typed)
        ]
    return parse_manifests(read_text(path, stdin), typed=typed)


def parse_manifests(text: str, *, typed: bool = True) -> list[dict[str, Any]]:
    """The objects in ``text``: multi-document YAML or JSON, ``kind: List`` (and ``*List``) flattened.

    ``typed``: every object needs ``apiVersion`` and ``kind`` (``False`` for a bare spec, as
    ``expand --instancetype-file`` takes). Raises :class:`InputError` for text that is neither YAML nor JSON, or
    documents that are not objects.
    """
    stripped = text.lstrip()
    documents: list[Any]
    if stripped.startswith(("{", "[")):
        try:
            documents = [json.loads(text)]
        except ValueError:
            documents = _load_yaml(text)
    else:
        documents = _load_yaml(text)
    objects: list[dict[str, Any]] = []
    for index, document in enumerate(documents, 1):
        _flatten(document, index, objects, typed)
    return objects


def _loader() -> Any:
    """PyYAML's safe loader without the timestamp resolver: Kubernetes' YAML reads unquoted dates as strings
    (json.dumps and the Go printer could not handle ``datetime`` values anyway)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return Loader


def _load_yaml(text: str) -> list[Any]:
    import yaml

    try:
        return list(yaml.load_all(text, Loader=_loader()))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"error parsing input as YAML or JSON{where}: {problem}") from exc


def _flatten(document: Any, index: int, out: list[dict[str, Any]], typed: bool) -> None:
    if document is None:
        return  # an empty document (a trailing ---)
    if isinstance(document, list):
        for item in document:
            _flatten(item, index, out, typed)
        return
    if not isinstance(document, dict):
        shown = document if isinstance(document, str) else json.dumps(document)
        raise InputError(f"document {index}: expected an object with apiVersion and kind, got {shown}")
    kind = document.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            _flatten(item, index, out, typed)
        return
    if typed and (not document.get("apiVersion") or not kind):
        raise InputError(f"document {index}: Object 'Kind' is missing or 'apiVersion' is missing in the object")
    out.append(document)
