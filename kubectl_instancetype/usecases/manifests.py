"""The one reader of the manifests a command is given with ``-f FILE`` (``-`` for stdin, or a directory).

kubectl's messages for a path that cannot be read; YAML or JSON, several documents per file; ``kind: List`` (and
every ``*List``) flattened; a directory read as kubectl reads one (its ``.json``, ``.yaml`` and ``.yml`` files, in
name order; subdirectories skipped). Every ``-f`` of the plugin (``adopt``, ``convert``, ``expand``, ``infer``,
``lint``) reads through here, with kubectl's ``--validate`` (:mod:`.fieldcheck`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..golang.strconv import go_quote

MANIFEST_EXTENSIONS = (".json", ".yaml", ".yml")
# The most a -f input (a file, stdin, each file of a directory) may hold: far above any real manifest (a List of
# 100,000 instance types is 18 MB), and a bound on what `-f /dev/zero` or an endless pipe can cost.
MAX_INPUT_BYTES = 128 << 20


def _too_large(path: str) -> InputError:
    from ..golang.goos import path_error

    return InputError(
        path_error("read", path, f"the input is larger than {MAX_INPUT_BYTES >> 20} MiB, more than -f reads")
    )


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
        raise InputError(f"the path {go_quote(path)} does not exist") from exc  # cli-runtime builder.go %q
    except OSError as exc:
        # Go's wording, as kubectl reports it: "read <path>: is a directory", "open <path>: permission denied"
        from ..golang.goos import read_file_error

        raise InputError(read_file_error(path, exc)) from exc
    if len(raw) > MAX_INPUT_BYTES:
        raise _too_large(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        from ..golang.goos import path_error

        raise InputError(path_error("read", path, f"not UTF-8 text (byte {exc.start})")) from None


def read_manifests(
    path: str, stdin: Any, *, typed: bool = True, validation: str | None = None, warn: Any = None
) -> list[dict[str, Any]]:
    """The objects of ``path`` (a file, ``-`` or a directory), as :func:`parse_manifests` reads them; with
    ``validation`` (kubectl's ``--validate``: strict, warn, ignore) each VirtualMachine, instance type and
    preference is checked against KubeVirt's schema (:mod:`.fieldcheck`; ``warn`` receives the warnings)."""
    return [
        obj
        for source in read_sources(path, stdin)
        for obj in iter_manifests(source.text, source.name, typed=typed, validation=validation, warn=warn)
    ]


@dataclass(frozen=True)
class ManifestSource:
    """One input of ``-f``: its name in messages (the file's path, or ``STDIN``) and its text."""

    name: str
    text: str


def read_sources(path: str, stdin: Any) -> list[ManifestSource]:
    """Each input of ``path``: the file, stdin (``STDIN``), or each manifest of a directory (kubectl's order);
    each text at most :data:`MAX_INPUT_BYTES`."""
    if path != "-" and os.path.isdir(path):
        names = sorted(
            name
            for name in os.listdir(path)
            if name.endswith(MANIFEST_EXTENSIONS) and not os.path.isdir(os.path.join(path, name))
        )
        return [ManifestSource(os.path.join(path, name), read_text(os.path.join(path, name), stdin)) for name in names]
    return [ManifestSource("STDIN" if path == "-" else path, read_text(path, stdin))]


def iter_manifests(
    text: str,
    source: str = "STDIN",
    *,
    typed: bool = True,
    skip: Any = None,
    validation: str | None = None,
    warn: Any = None,
) -> Iterator[dict[str, Any]]:
    """The objects of ``text`` one document at a time (a large input is never held converted whole).

    ``skip(chunk)``, when given, is asked about each YAML document's text first: True leaves it unconverted (a
    quick look at its ``kind`` line, for a pass that wants only some kinds). ``validation``: see
    :func:`read_manifests`."""
    for document in _iter_documents(text, source, skip):
        out: list[dict[str, Any]] = []
        _flatten(document, source, out, typed)
        if validation is not None and typed:
            from .fieldcheck import enforce

            for obj in out:
                enforce(obj, source, validation, warn)
        yield from out


def parse_manifests(text: str, source: str = "STDIN", *, typed: bool = True) -> list[dict[str, Any]]:
    """The objects in ``text`` (read from ``source``), as kubectl reads them: a stream starting with ``{`` as JSON
    values, anything else as YAML documents converted as ``sigs.k8s.io/yaml`` converts them
    (:mod:`..golang.yamltojson`); ``kind: List`` (and every ``*List``) flattened.

    ``typed``: every object needs ``apiVersion`` and ``kind`` (``False`` for a bare spec, as
    ``expand --instancetype-file`` takes). Raises :class:`InputError` in kubectl's words.
    """
    return list(iter_manifests(text, source, typed=typed))


def _json_stream(text: str) -> list[Any] | None:
    """apimachinery's YAMLOrJSONDecoder: a stream that starts with "{" is a sequence of JSON values (None when it
    is not JSON after all: JSON is YAML, and it is read as YAML for YAML's messages)."""
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
    except (ValueError, RecursionError):
        return None


def _iter_documents(text: str, source: str, skip: Any = None) -> Iterator[Any]:
    if text.lstrip().startswith("{"):
        documents = _json_stream(text)
        if documents is not None:
            yield from documents
            return
    from ..golang.yamltojson import YAMLError, iter_documents, load_document

    for number, chunk in enumerate(iter_documents(text), 1):
        if skip is not None and skip(chunk):
            continue
        try:
            document = load_document(chunk)
        except YAMLError as exc:
            where = f" (document {number}, at {exc.path})" if exc.path else ""
            raise InputError(f"error parsing {source}: error converting YAML to JSON: {exc}{where}") from None
        yield document


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
            f"unable to decode {go_quote(source)}: {what} ({json.dumps(document)}) is not an object with apiVersion and kind"
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
                # cli-runtime mapper.go: "unable to decode %q: %v"; apimachinery's "Object 'Kind' is missing in '%s'"
                raise InputError(f"unable to decode {go_quote(source)}: Object '{name}' is missing in '{shown}'")
    out.append(document)
