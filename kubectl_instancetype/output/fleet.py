"""Printing one command's output for several kubeconfig contexts as one: a table with a CONTEXT column first, one
List of every context's objects, each carrying its context in an annotation.

While a command runs for one context (in its own thread), the printers of this package hand what they would print
to that context's :class:`~.capture.Capture` instead (:func:`.capture.capturing`): the table printer its header and rows (:func:`..table.render_table`), the object printer
its objects and format (:func:`..printers.print_objects`), the report printer its document
(:func:`..printers.print_document`). Whatever a command writes itself is kept as that context's text; text that is
a JSON or YAML object is read back as one. :func:`print_fleet` then prints everything once.

Why an annotation (``kubectl-instancetype/context``) for the context of an item: an item of a List must stay the
object it is (a tool that reads ``items`` and applies or compares them sees the real object), the context name is
free text (an EKS context is an ARN, with ``:`` and ``/``), which a label value may not hold (63 characters of
``[A-Za-z0-9._-]``), and annotations survive every YAML/JSON reader and ``jq``. So ``-o json`` of a fleet reads back
as a List whose items say where they came from: ``.items[].metadata.annotations["kubectl-instancetype/context"]``.
"""

from __future__ import annotations

from ..env import Environment
from .capture import Capture

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONTEXT_ANNOTATION = "kubectl-instancetype/context"
CONTEXT_HEADER = "CONTEXT"


def with_context(obj: dict[str, Any], context: str) -> dict[str, Any]:
    """``obj`` (a copy) annotated with ``context``."""
    metadata = dict(obj.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), CONTEXT_ANNOTATION: context}
    return {**obj, "metadata": metadata}


def _read_back(text: str) -> dict[str, Any] | None:
    """A JSON or YAML object (or List) a command wrote itself, or None when the text is not one."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        if stripped.startswith("{"):
            import json

            value = json.loads(stripped)
        elif stripped.startswith(("apiVersion:", "kind:", "items:", "metadata:")):
            import yaml

            value = yaml.safe_load(stripped)
        else:
            return None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _items(document: dict[str, Any]) -> list[dict[str, Any]]:
    items = document.get("items")
    if document.get("kind") == "List" and isinstance(items, list):
        return [item for item in items if isinstance(item, dict)]
    return [document]


def print_fleet(env: Environment, result: Any, captures: dict[str, Capture]) -> int:
    """Print a :class:`~..usecases.fleet.FleetResult` whose values are each context's exit status, with what each
    context printed (``captures``): one warning line per failed context, then the merged output. Returns 1 when a
    context failed, else the highest status a context returned."""
    from ..errors import sentence
    from . import messages

    status = 0
    tables: dict[tuple[str, ...] | None, list[tuple[str, Any, Any]]] = {}  # headers -> each context's rows, measured
    objects: list[dict[str, Any]] = []
    names: list[list[str]] = []
    documents: list[dict[str, Any]] = []
    object_format: dict[str, Any] = {}
    document_format = ""
    texts: list[tuple[str, str]] = []
    for one in result.results:
        capture = captures.get(one.context) or Capture()
        for line in capture.stderr.getvalue().splitlines():
            if line.startswith("Warning: "):
                env.stderr.write(f'Warning: context "{one.context}": {line[len("Warning: ") :]}\n')
            elif line.strip():
                env.stderr.write(f'context "{one.context}": {line}\n')
        if one.error is not None:
            # what the context printed before it failed still prints (lint's findings before its "N finding(s)",
            # the objects found before a name that was not): the warning says why it failed
            messages.warn(env, f'context "{one.context}": {sentence(one.error)}')
            status = 1
        else:
            status = max(status, int(one.value or 0))
        for headers, rows, measured in capture.tables:
            tables.setdefault(headers, []).append((one.context, rows, measured))
        objects.extend(with_context(obj, one.context) for obj in capture.objects)
        names.extend([one.context, name] for name in capture.names)
        object_format = object_format or capture.object_format
        documents.extend(with_context(doc, one.context) for doc in capture.documents)
        document_format = document_format or capture.document_format
        text = capture.stdout.getvalue()
        read = _read_back(text)
        if read is not None:
            objects.extend(with_context(obj, one.context) for obj in _items(read))
            object_format = object_format or {"output": "json" if text.lstrip().startswith("{") else "yaml"}
        elif text:
            texts.append((one.context, text))
    from .table import render_table, write_table_groups

    for headers, groups in tables.items():
        write_table_groups(env.stdout.write, None if headers is None else (CONTEXT_HEADER, *headers), groups)
    if names:
        env.stdout.write(render_table(None, names))
    if objects or (object_format and not names):
        from .printers import print_objects

        flags = dict(object_format)
        output = flags.pop("output", "yaml")
        flags.pop("single", None)
        print_objects(env, output, objects, [], **flags)
    if documents:
        from .printers import as_list, print_document

        print_document(env, document_format, as_list(documents))
    for index, (context, text) in enumerate(texts):
        if index or tables or objects or documents:
            env.stdout.write("\n")
        env.stdout.write(f"Context:  {context}\n{text}")
    return status
