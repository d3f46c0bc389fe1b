"""``-o yaml|json|name``, the template formats (jsonpath, go-template, custom-columns) and table printing for
lists of API objects, as kubectl prints them (cli-runtime's printers and kubectl get's printGeneric)."""

from __future__ import annotations

from ..env import Environment
from ..errors import TemplateExecutionError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

TABLE_FORMATS = ("", "wide")
OBJECT_FORMATS = ("yaml", "json", "name")
# kubectl v1.36's KYAML printer (cli-runtime's KYAMLPrinter): list and get print it
KYAML_FORMATS = ("kyaml",)
# -o FORMAT=ARGUMENT (cli-runtime's JSONPathPrintFlags and GoTemplatePrintFlags, kubectl get's
# CustomColumnsPrintFlags); "template" and "templatefile" are kubectl's older names for go-template(-file)
JSONPATH_FORMATS = ("jsonpath", "jsonpath-file", "jsonpath-as-json")
GO_TEMPLATE_FORMATS = ("go-template", "go-template-file", "template", "templatefile")
CUSTOM_COLUMNS_FORMATS = ("custom-columns", "custom-columns-file")
TEMPLATE_FORMATS = JSONPATH_FORMATS + GO_TEMPLATE_FORMATS + CUSTOM_COLUMNS_FORMATS
# what a command that prints whole objects offers (kubectl get's formats less the table ones)
PRINT_FORMATS = OBJECT_FORMATS + TEMPLATE_FORMATS
# what a command that prints a report as data offers (usage, lint, switch's plan): -o yaml|json and the templates
DOCUMENT_FORMATS = ("yaml", "json") + TEMPLATE_FORMATS


def split_format(output: str) -> tuple[str, str]:
    """``jsonpath={.a}`` -> ("jsonpath", "{.a}"); a format without an argument is returned whole."""
    for name in TEMPLATE_FORMATS:
        if output.startswith(name + "="):
            return name, output[len(name) + 1 :]
    return output, ""


def is_template_format(output: str) -> bool:
    """Whether ``-o`` names one of the template formats (jsonpath, go-template, custom-columns)."""
    return split_format(output)[0] in TEMPLATE_FORMATS


def check_output_format(output: str, allowed: Sequence[str]) -> str:
    """Validate ``-o``; kubectl's messages for an unknown format and for a template format without one."""
    name, argument = split_format(output)
    if name not in allowed:
        choices = ",".join(sorted(value for value in allowed if value))
        raise UsageError(
            f'unable to match a printer suitable for the output format "{name}", allowed formats are: {choices}'
        )
    if name in TEMPLATE_FORMATS and not argument:
        if name in CUSTOM_COLUMNS_FORMATS:
            raise UsageError("custom-columns format specified but no custom columns given")
        raise UsageError("template format specified but no template given")
    return output


class TemplatePrinter:
    """A parsed ``-o jsonpath|go-template|custom-columns`` printer; files are read when it is made."""

    def __init__(
        self, env: Environment, output: str, *, allow_missing_keys: bool = True, no_headers: bool = False
    ) -> None:
        self.format, argument = split_format(output)
        self.argument = argument
        if self.format.endswith("-file") or self.format == "templatefile":
            try:
                argument = env.read_file(argument)
            except OSError as exc:
                from ..golang.goos import read_file_error

                what = "template" if self.format == "custom-columns-file" else "--template"
                raise UsageError(
                    f"error reading {what} {self.argument}, {read_file_error(self.argument, exc)}"
                ) from None
        self.template = argument
        if self.format in CUSTOM_COLUMNS_FORMATS:
            from .customcolumns import CustomColumnsPrinter, columns_from_spec, columns_from_template

            columns = (
                columns_from_spec(argument) if self.format == "custom-columns" else columns_from_template(argument)
            )
            self.columns = CustomColumnsPrinter(columns, no_headers=no_headers)
        elif self.format in JSONPATH_FORMATS:
            from ..golang.jsonpath import JSONPath, JSONPathError

            try:
                self.jsonpath = JSONPath(
                    argument, allow_missing_keys=allow_missing_keys, output_json=self.format == "jsonpath-as-json"
                )
            except JSONPathError as exc:
                raise UsageError(f"error parsing jsonpath {argument}, {exc}") from None
        else:
            from ..golang.text_template import Template, TemplateError

            try:
                self.gotemplate = Template(argument, missing_key_error=not allow_missing_keys)
            except TemplateError as exc:
                raise UsageError(f"error parsing template {argument}, {exc}") from None

    def render(
        self, document: dict[str, Any], objects: list[dict[str, Any]], write: Callable[[str], Any] | None = None
    ) -> str:
        """The text for ``document`` (one object, or kubectl's List of ``objects``); custom-columns prints
        a row per object. A go-template's output goes to ``write`` as it is made (the rest is returned). A failure
        is :class:`TemplateExecutionError` with kubectl's words and what kubectl has written to stdout before it."""
        if self.format in CUSTOM_COLUMNS_FORMATS:
            return self.columns.render(objects)
        from ..golang.strconv import go_quote

        if self.format in JSONPATH_FORMATS:
            from ..golang.jsonpath import JSONPathError

            try:
                return self.jsonpath.execute(document)
            except JSONPathError as exc:
                # cli-runtime's JSONPathPrinter.PrintObj: the debugging block is part of the error, %#v of the object
                from ..golang.fmt import sprintf

                raise TemplateExecutionError(
                    f"error executing jsonpath {go_quote(self.template)}: "
                    f"Error executing template: {exc}. Printing more information for debugging the template:\n"
                    f"\ttemplate was:\n\t\t{self.template}\n"
                    f"\tobject given to jsonpath engine was:\n\t\t{sprintf('%#v', [document])}\n\n\n",
                    keep_tabs=True,
                ) from None
        from ..golang.encoding_json import json_round_trip
        from ..golang.text_template import TemplateError

        # GoTemplatePrinter.PrintObj runs the template on json.Unmarshal(json.Marshal(obj)): whole floats are ints
        document = json_round_trip(document)
        try:
            return self.gotemplate.execute(document, write)
        except TemplateError as exc:
            # cli-runtime's GoTemplatePrinter.PrintObj: after what the template wrote, a debugging block on stdout
            # (the object as json.Marshal writes it, then as %+v prints it), and the error
            from ..golang.encoding_json import marshal
            from ..golang.fmt import sprint_value

            block = (
                f"Error executing template: {exc}. Printing more information for debugging the template:\n"
                f"\ttemplate was:\n\t\t{self.template}\n"
                f"\traw data was:\n\t\t{marshal(document)}\n"
                f"\tobject given to template engine was:\n\t\t{sprint_value(document)}\n\n"
            )
            raise TemplateExecutionError(
                f"error executing template {go_quote(self.template)}: {exc}",
                partial=getattr(exc, "partial", "") + block,
            ) from None


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """kubectl hides ``metadata.managedFields`` in yaml/json/kyaml output (``--show-managed-fields=false``); the
    template printers see them."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or "managedFields" not in metadata:
        return obj
    return {**obj, "metadata": {key: value for key, value in metadata.items() if key != "managedFields"}}


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    """kubectl's ``kind: List`` wrapper for several objects."""
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def sorted_json(obj: Any) -> str:
    """The JSON ``expand`` and ``convert`` print: 4-space indents, keys sorted, text as it is (not ``\\u``-escaped),
    DEL and C1 controls escaped for the terminal."""
    import json  # here: -o yaml and tables never need it

    from .terminal import json_text

    return json_text(json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=False))


def _list_json_parts() -> tuple[str, str]:
    """The text of :func:`as_list`'s JSON before its first item and after its last, for a List written item by
    item."""
    import json  # here: -o yaml and tables never need it

    head, _, tail = json.dumps(as_list([{}]), indent=4, sort_keys=True).partition(" " * 8 + "{}")
    return head, tail


class DocumentStream:
    """Objects printed as they come, in the form of all of them printed at once: yaml documents separated by
    ``---``; json: one object alone, else :func:`as_list`'s ``kind: List`` written item by item (the first object
    is held until the second, or the end, says which)."""

    def __init__(self, env: Environment, output: str):
        self.env, self.output = env, output
        self.count = 0
        self.first: Any = None

    def add(self, obj: dict[str, Any]) -> None:
        """Print ``obj`` (or hold it, when it is the first json object)."""
        self.count += 1
        write = self.env.stdout.write
        if self.output != "json":
            from ..golang.goyaml import dump

            write(("" if self.count == 1 else "---\n") + dump(obj))
            return
        if self.count == 1:
            self.first = obj
            return
        if self.count == 2:
            write(_list_json_parts()[0] + self._item(self.first))
            self.first = None
        write(",\n" + self._item(obj))

    @staticmethod
    def _item(obj: Any) -> str:
        return "\n".join(" " * 8 + line for line in sorted_json(obj).split("\n"))

    def close(self) -> None:
        """The end: the object held alone, or the List's end."""
        if self.first is not None:
            self.env.stdout.write(sorted_json(self.first) + "\n")
        elif self.output == "json" and self.count > 1:
            self.env.stdout.write(_list_json_parts()[1] + "\n")


def print_all(env: Environment, output: str, objects: list[dict[str, Any]]) -> None:
    """Every object: yaml documents separated by ``---``, a json ``kind: List`` (even of one), or a template."""
    if is_template_format(output):
        print_objects(env, output, objects, [])
    elif output == "json":
        env.stdout.write(sorted_json(as_list(objects)) + "\n")
    else:
        from ..golang.goyaml import dump_all

        env.stdout.write(dump_all(objects))


def object_name(obj: dict[str, Any]) -> str:
    """``-o name``'s line for an object: ``resource.group/NAME`` from its kind (kubectl's NamePrinter), the plain
    name for a kind the plugin does not know."""
    from ..kube.resources import BY_KIND

    name = str((obj.get("metadata") or {}).get("name", ""))
    resource = BY_KIND.get(str(obj.get("kind", "")))
    return resource.name_of(name) if resource is not None else name


def print_objects(
    env: Environment,
    output: str,
    objects: list[dict[str, Any]],
    names: list[str] | None = None,
    *,
    single: bool = False,
    allow_missing_keys: bool = True,
    no_headers: bool = False,
    printer: TemplatePrinter | None = None,
) -> None:
    """Print ``objects`` as yaml/json/a template (one object, or a List) or their ``names`` for ``-o name``.

    ``single``: the user named one object, so kubectl prints it rather than a List of one. ``names`` default to
    :func:`object_name` of each object. While a command runs for one context of several (:mod:`.fleet`), they go
    to that context's capture instead.
    """
    from . import active_capture

    if (target := active_capture()) is not None and printer is None:
        if output == "name" and names is None:
            names = [object_name(obj) for obj in objects]
        target.printed_objects(
            output, objects, names or [], allow_missing_keys=allow_missing_keys, no_headers=no_headers
        )
        return
    if output == "name":
        if names is None:
            names = [object_name(obj) for obj in objects]
        env.stdout.write("".join(f"{name}\n" for name in names))
        return
    if output in ("yaml", "json", "kyaml"):
        # cli-runtime's OmitManagedFieldsPrinter wraps these three only: templates see metadata.managedFields
        objects = [without_managed_fields(obj) for obj in objects]
    document = objects[0] if single and len(objects) == 1 else as_list(objects)
    if printer is not None or is_template_format(output):
        printer = printer or TemplatePrinter(env, output, allow_missing_keys=allow_missing_keys, no_headers=no_headers)
        try:
            text = printer.render(document, objects, env.stdout.write)
        except TemplateExecutionError as exc:
            env.stdout.write(exc.partial)
            raise
        env.stdout.write(text)
        return
    if output == "json":
        from ..golang.encoding_json import marshal_indent
        from .terminal import json_text

        # cli-runtime's JSONPrinter: json.MarshalIndent (Go's floats, <, > and & escaped)
        env.stdout.write(json_text(marshal_indent(document)) + "\n")
    elif output == "kyaml":
        from ..golang.kyaml import dump_kyaml

        env.stdout.write(dump_kyaml(document))
    else:
        from ..golang.goyaml import dump

        env.stdout.write(dump(document))


def print_document(env: Environment, output: str, document: dict[str, Any]) -> None:
    """A report as data (``usage``, ``lint``, ``switch``'s plan): ``-o json|yaml``, or a template run on it as on
    one object (custom-columns: a row per item of its ``items``, else one row). While a command runs for one
    context of several (:mod:`.fleet`), the document goes to that context's capture instead."""
    from . import active_capture

    if (target := active_capture()) is not None:
        target.printed_document(output, document)
        return
    if is_template_format(output):
        items = document.get("items")
        rows = items if isinstance(items, list) and all(isinstance(item, dict) for item in items) else [document]
        printer = TemplatePrinter(env, output)
        try:
            text = printer.render(document, rows)
        except TemplateExecutionError as exc:
            env.stdout.write(exc.partial)
            raise
        env.stdout.write(text)
    elif output == "json":
        from .indented_json import dumps  # json.dumps(document, indent=4), 40% faster

        env.stdout.write(dumps(document) + "\n")
    else:
        from ..golang.goyaml import dump

        env.stdout.write(dump(document))


def prints_objects(output: str, formats: Sequence[str] = ("yaml", "json", "name")) -> bool:
    """Whether ``-o output`` prints the objects themselves (``formats`` or a template) rather than a table."""
    return output in formats or is_template_format(output)
