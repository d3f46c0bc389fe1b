"""Reading the manifests a command is given with ``-f FILE`` (``-`` for stdin): kubectl's messages for a file
that cannot be read, YAML or JSON documents (several per file), ``kind: List`` flattened."""

from __future__ import annotations

from typing import Any

from ..errors import InputError


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


def read_documents(path: str, stdin: Any) -> list[dict[str, Any]]:
    """The objects of ``path``: every non-empty YAML/JSON document, the items of a ``kind: List``."""
    import yaml

    text = read_text(path, stdin)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        documents = [doc for doc in yaml.load_all(text, Loader=loader) if doc is not None]
    except yaml.YAMLError as exc:
        raise InputError(f"error parsing {path}: {str(exc).splitlines()[0] if str(exc) else exc}") from exc
    objects: list[dict[str, Any]] = []
    for doc in documents:
        if not isinstance(doc, dict):
            raise InputError(f"error parsing {path}: a document is not an object")
        objects.extend((doc.get("items") or []) if doc.get("kind") == "List" else [doc])
    return objects
