"""``expand``'s printers: expanded VMs streamed one at a time, ``--diff`` and ``--explain``."""

from __future__ import annotations

from typing import Any

from ..env import Environment


class ExpandedPrinter:
    """Prints expanded VMs (``usecases.expansion.Expanded``) one at a time in the form of ``expand``'s output for
    all of them: one YAML document, or several separated by ``---``; one JSON object, or a ``kind: List`` of them
    (:class:`~.printers.DocumentStream`); one --explain table, or one per VM under its name; a template sees them
    all at once, as kubectl's List. The first VM is held until the second (or the end) says which form it takes.

    ``form`` is ``explain``, ``diff`` or an ``-o`` format."""

    def __init__(self, env: Environment, form: str):
        from .printers import DocumentStream, is_template_format

        self.env, self.form = env, form
        self.template: list[Any] | None = [] if is_template_format(form) else None
        self.documents = DocumentStream(env, form) if form in ("yaml", "json") else None
        self.first: Any = None
        self.count = 0

    def add(self, result: Any) -> None:
        """One expanded VM (a usecases.expansion.Expanded)."""
        if self.template is not None:
            self.template.append(result.expanded)
        elif self.documents is not None:
            self.documents.add(result.expanded)
        elif self.form == "diff":
            print_diff(self.env, result)
        else:
            self.count += 1
            if self.count == 2:
                print_explain(self.env, self.first, header=True, separator=False)
                self.first = None
            if self.count == 1:
                self.first = result
            else:
                print_explain(self.env, result, header=True, separator=True)

    def close(self) -> None:
        """The end: the VM held alone, the List's end, or the template over all of them."""
        if self.template:
            from .printers import print_objects

            print_objects(self.env, self.form, self.template, [], single=True)
        elif self.documents is not None:
            self.documents.close()
        elif self.first is not None:
            print_explain(self.env, self.first, header=False, separator=False)


def _template_spec(vm: dict[str, Any]) -> dict[str, Any]:
    return ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}


def print_diff(env: Environment, result: Any) -> None:
    """``--diff``: a unified diff of spec.template.spec before and after (its control characters escaped)."""
    import difflib

    from ..golang.goyaml import dump
    from .terminal import escape_lines

    name = result.name
    before = dump(_template_spec(result.vm)).splitlines(keepends=True)
    after = dump(_template_spec(result.expanded)).splitlines(keepends=True)
    diff = difflib.unified_diff(
        before, after, f"virtualmachine/{name} spec.template.spec", f"virtualmachine/{name} expanded"
    )
    env.stdout.writelines(escape_lines(line.removesuffix("\n")) + "\n" for line in diff)


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return "" if value is None else str(value)


def _path_key(path: str) -> list[Any]:
    """Sort fields by path with list indexes in numeric order."""
    import re

    return [int(part) if part.isdigit() else part for part in re.split(r"\[(\d+)\]", path)]


def print_explain(env: Environment, result: Any, *, header: bool, separator: bool) -> None:
    """``--explain``: FIELD, VALUE, SOURCE of every field the expansion set (under the VM's name when
    ``header``; a blank line first when ``separator``)."""
    from ..instancetype.expand import lookup
    from .table import render_table

    rows = [
        (path, _format_value(lookup(result.expanded, path)), source)
        for path, source in sorted(result.provenance.items(), key=lambda item: _path_key(item[0]))
    ]
    title = render_table(None, [[f"virtualmachine/{result.name}"]]) if header else ""
    env.stdout.write(("\n" if separator else "") + title + render_table(("FIELD", "VALUE", "SOURCE"), rows))


def print_failures(env: Environment, failed: list[Any], several: bool) -> None:
    """The VMs that could not be expanded, each problem on one line (``virtualmachine/NAME: `` first when
    several were given); KubeVirt's verdict keeps kubectl's ``Error from server (...)`` shape."""
    from .terminal import escape

    for result in failed:
        prefix = f"virtualmachine/{result.name}: " if several else ""
        for line in result.problems:
            head = "" if line.startswith("Error from server") else "error: "
            env.stderr.write(escape(f"{head}{prefix}{line}") + "\n")
