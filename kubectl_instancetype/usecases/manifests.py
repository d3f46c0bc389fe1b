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
# The most a -f input (a file, stdin, each file of a directory) may hold: far above any real manifest (a List of
# 100,000 instance types is 18 MB), and a bound on what `-f /dev/zero` or an endless pipe can cost.
MAX_INPUT_BYTES = 128 << 20


def _too_large(path: str) -> InputError:
    return InputError(f"read {path}: the input is larger than {MAX_INPUT_BYTES >> 20} MiB, more than -f reads")


def read_text(path: str, stdin: Any) -> str:
    """The text of ``path`` (``-``: ``stdin``), at most :data:`MAX_INPUT_BYTES`, or :class:`InputError` in
    kubectl's and Go's words."""
    if path == "-":
        text: str = stdin.read(MAX_INPUT_BYTES + 1)
        if len(text) > MAX_INPUT_BYTES:
            raise _too_large("STDIN")
        return text
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError as exc:
        raise InputError(f'the path "{path}" does not exist') from exc
    except OSError as exc:
        # Go's wording, as kubectl reports it: "read <path>: is a directory".
        raise InputError(f"read {path}: {(exc.strerror or str(exc)).lower()}") from exc
    if len(raw) > MAX_INPUT_BYTES:
        raise _too_large(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"read {path}: not UTF-8 text (byte {exc.start})") from None


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
            obj
            for name in names
            for obj in parse_manifests(
                read_text(os.path.join(path, name), stdin), os.path.join(path, name), typed=typed
            )
        ]
    return parse_manifests(read_text(path, stdin), "STDIN" if path == "-" else path, typed=typed)


def parse_manifests(text: str, source: str = "STDIN", *, typed: bool = True) -> list[dict[str, Any]]:
    """The objects in ``text`` (read from ``source``), as kubectl reads them: a stream starting with ``{`` as JSON
    values, anything else as YAML documents converted as ``sigs.k8s.io/yaml`` converts them
    (:mod:`..golang.yamltojson`); ``kind: List`` (and every ``*List``) flattened.

    ``typed``: every object needs ``apiVersion`` and ``kind`` (``False`` for a bare spec, as
    ``expand --instancetype-file`` takes). Raises :class:`InputError` in kubectl's words.
    """
    objects: list[dict[str, Any]] = []
    for document in _documents(text, source):
        _flatten(document, source, objects, typed)
    return objects


def _documents(text: str, source: str) -> list[Any]:
    if text.lstrip().startswith("{"):
        # apimachinery's YAMLOrJSONDecoder: a stream that starts with "{" is a sequence of JSON values.
        decoder, index = json.JSONDecoder(), 0
        documents: list[Any] = []
        try:
            while True:
                while index < len(text) and text[index] in " \t\r\n":
                    index += 1
                if index == len(text):
                    return documents
                document, index = decoder.raw_decode(text, index)
                documents.append(document)
        except ValueError:
            pass  # not JSON after all: JSON is YAML, read it as YAML for YAML's messages
    from ..golang.yamltojson import YAMLError, load_document, split_documents

    documents = []
    for number, chunk in enumerate(split_documents(text), 1):
        try:
            documents.append(load_document(chunk))
        except YAMLError as exc:
            where = f" (document {number}, at {exc.path})" if exc.path else ""
            raise InputError(f"error parsing {source}: error converting YAML to JSON: {exc}{where}") from None
    return documents


def _flatten(document: Any, source: str, out: list[dict[str, Any]], typed: bool) -> None:
    if document is None:
        return  # an empty document (comments only, a trailing ---)
    if isinstance(document, list):
        for item in document:
            _flatten(item, source, out, typed)
        return
    if not isinstance(document, dict):
        what = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(type(document), "a value")
        raise InputError(
            f'unable to decode "{source}": {what} ({json.dumps(document)}) is not an object with apiVersion and kind'
        )
    kind = document.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            _flatten(item, source, out, typed)
        return
    if typed:
        # k8s.io/apimachinery/pkg/runtime: NewMissingKindErr, NewMissingVersionErr (unstructured decoding)
        for field, name in (("kind", "Kind"), ("apiVersion", "apiVersion")):
            if not document.get(field):
                shown = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                raise InputError(f"unable to decode \"{source}\": Object '{name}' is missing in '{shown}'")
    out.append(document)
