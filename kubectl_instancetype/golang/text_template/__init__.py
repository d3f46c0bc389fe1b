"""Go's ``text/template`` for ``kubectl -o go-template``: the language kubectl users write, on decoded JSON.

Split as Go 1.26 splits it: :mod:`.lex` (parse/lex.go), :mod:`.node` (parse/node.go), :mod:`.parse`
(parse/parse.go), :mod:`.exec` (exec.go), :mod:`.funcs` (funcs.go, with kubectl's ``exists`` and
``base64decode`` and the comparisons client-go's JSONPath shares), :mod:`.value` (the reflect side exec.go and
funcs.go share), :mod:`.template` (template.go: :class:`Template`). What a template over an API object can use:
text and actions with trim markers and comments; fields, chains, variables (``:=``, ``=``); pipelines and
parenthesised pipelines; ``if``/``else if``/``with``/``else with``/``range`` (lists, maps in sorted key order,
integers) with ``break`` and ``continue``; ``define``/``template``/``block``; the builtins (``and or not len index
slice print printf println eq ne lt le gt ge html js urlquery call``). Messages are Go's.

No Python template library implements Go's semantics (missing keys, typed comparisons, ``<no value>``), so this
is written here, next to the other Go emulations, and tested against kubectl. :class:`Template` is imported on
first use: :mod:`..jsonpath` imports :mod:`.funcs` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .template import Template

__all__ = ["Template", "TemplateError"]


class TemplateError(ValueError):
    """A parse or execution error with Go's text (``template: output:...``)."""


def __getattr__(name: str) -> Any:
    if name == "Template":
        from .template import Template

        return Template
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
