"""YAML manifests read as kubectl reads ``-f``: ``sigs.k8s.io/yaml``'s ``YAMLToJSON`` over go-yaml v2 (YAML 1.1).

kubectl splits a stream into documents with apimachinery's ``YAMLReader`` (``k8s.io/apimachinery/pkg/util/yaml``:
a line that is ``---`` and nothing but white space after it ends a document), reads a stream that starts with
``{`` as JSON, and converts each YAML document to JSON with ``sigs.k8s.io/yaml`` (``go.yaml.in/yaml/v2``'s
``resolve.go`` decides what a plain scalar is):

* ``y``/``Y``/``yes``/``n``/``no``/``on``/``off`` (and ``true``/``false`` in three spellings) are booleans;
  ``~``/``null``/``Null``/``NULL`` and nothing are null; ``.inf``/``.nan`` are floats (JSON refuses them).
* Integers as Go's ``strconv.ParseInt(s, 0, 64)`` reads them after removing ``_``: ``0x1F``, ``0o17``, ``0777``
  (octal), ``0b101``; floats as ``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?`` (``1e3``, ``.5``, ``08``).
  Base-60 numbers (``1:20``) stay strings. Timestamps stay the strings they were written as.
* Map keys become strings: ``n: x`` is the key ``"false"``, ``3:`` the key ``"3"``, ``1.5:`` the key ``"1.5"``
  (a float key is printed with float32 precision); a null key is an error.
* JSON numbers come back as kubectl's unstructured decoding makes them: a float with an integral value is an
  integer (``2.0`` and ``1e3`` are ``2`` and ``1000``).

PyYAML's parser (libyaml, the library go-yaml is a port of) reads the syntax; the values are resolved by
:func:`.goyaml.resolve`, the one port of resolve.go (the printer quotes by it too).
Errors carry go-yaml's words: ``yaml: line N: did not find expected node content``.
"""

from __future__ import annotations

import functools
import gc
import math
import re
from collections.abc import Iterator
from typing import Any

from .goyaml import resolve as resolve_plain  # go-yaml v2's resolve.go, ported once

_TAG = "tag:yaml.org,2002:"
_PLAIN = "!plain"  # the tag our resolver gives untagged plain scalars: resolved later, by goyaml.resolve
_INT64 = 2**63


class YAMLError(ValueError):
    """A document kubectl cannot convert; ``str()`` is the text after kubectl's ``error converting YAML to JSON: ``.

    ``path`` is where in the document the value is (``spec.cpu.guest``, ``items[3]``), when the problem is a value.
    """

    def __init__(self, message: str, path: str = "", sealed: bool = False):
        super().__init__(message)
        self.path = path
        self.sealed = sealed  # the path is final: enclosing maps and lists add nothing to it


# go-yaml's bound on alias expansion (yaml.v2 decode.go allowedAliasRatio): once more than 1,000 nodes were
# decoded, of which more than 100 through aliases, the share decoded through aliases may not exceed 99% up to
# 400,000 nodes, falling to 10% at 4,000,000. A "billion laughs" document is refused after a few kilobytes.
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW))


def check_aliasing(root: Any) -> None:
    """Refuse a node graph whose expansion go-yaml would refuse (``document contains excessive aliasing``).

    The expanded size is computed over the graph PyYAML composed (an alias is the same node object again), each
    node once: a document of a few kilobytes that expands to billions of nodes costs a few kilobytes to check.
    """
    import yaml

    sizes: dict[int, int] = {}
    entered: set[int] = set()  # nodes whose children are being sized: met again, a node contains itself
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes or (not children_done and key in entered):
            continue
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            sizes[key] = 1
            continue
        if children_done:
            # a child still unsized is an ancestor (a recursive anchor): the converter refuses that itself
            sizes[key] = 1 + sum(sizes.get(id(child), 0) for child in children)
        else:
            entered.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes and id(child) not in entered)
    decoded = sizes.get(id(root), 1)
    through_aliases = decoded - len(sizes)
    if through_aliases > 100 and decoded > 1000 and through_aliases / decoded > _allowed_alias_ratio(decoded):
        raise YAMLError("yaml: document contains excessive aliasing")


# The characters str.splitlines() ends a line at (it reads "\r\n" as one break).
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def iter_documents(text: str) -> Iterator[str]:
    """:func:`split_documents` one document at a time, each a slice of ``text``: a stream of 273,000 documents
    is never held as its millions of lines (that took 330 MB)."""
    start = 0  # where the current document begins
    found = text.find("---")
    while found >= 0:
        if found == 0 or _LINE_BREAK.match(text, found - 1):
            brk = _LINE_BREAK.search(text, found + 3)
            stop = brk.start() if brk else len(text)
            if not text[found + 3 : stop].strip():  # "---" and white space only: a separator line
                if found > start:
                    yield text[start:found]
                if brk is None:
                    start = len(text)
                    break
                start = stop + (2 if text.startswith("\r\n", stop) else 1)
                found = text.find("---", start)
                continue
        found = text.find("---", found + 3)
    if start < len(text):
        yield text[start:]


def split_documents(text: str) -> list[str]:
    """apimachinery's ``YAMLReader.Read``: the documents of a stream, split at ``---`` lines (empty ones dropped)."""
    documents: list[str] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("---") and not line[3:].strip():
            if current:
                documents.append("".join(current))
            current = []
            continue
        current.append(line)
    if current:
        documents.append("".join(current))
    return documents


def _float32_key(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 32)``, with go-yaml's spellings of infinities and NaN."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    import struct

    def single(number: float) -> float:
        return float(struct.unpack("f", struct.pack("f", number))[0])

    target = single(value)
    if target == 0:
        return "0"
    text = ""
    for precision in range(9):  # the shortest decimal that reads back as the same float32
        text = f"{abs(target):.{precision}e}"
        if single(float(text)) == abs(target):
            break
    mantissa, _, exponent_text = text.partition("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    exponent = int(exponent_text)
    sign = "-" if target < 0 else ""
    if exponent < -4 or exponent >= 6:  # %e; the shortest form decides with precision 6
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _json_key(key: Any) -> str:
    """sigs.k8s.io/yaml convertToJSONableObject: a map key as the JSON key it becomes."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _float32_key(key)
    shown = "<nil>" if key is None else type(key).__name__
    raise YAMLError(f"unsupported map key of type: {shown}, key: {shown}", sealed=True)


def _json_value(value: Any) -> Any:
    """What kubectl's JSON round trip makes of a resolved scalar (json.Marshal, then unstructured decoding)."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise YAMLError(
                f"json: unsupported value: {'NaN' if math.isnan(value) else ('+Inf' if value > 0 else '-Inf')}"
            )
        if value.is_integer() and abs(value) < 1e21:
            return int(value)
    elif isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        return float(value)
    return value


@functools.lru_cache(maxsize=1)
def composing_loader() -> Any:
    """The PyYAML loader class the reader composes documents with: libyaml's base loader when present, each
    untagged node resolved to str/seq/map (plain scalars are resolved later, as go-yaml resolves them)."""
    import yaml

    base = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    scalar_node, sequence_node = yaml.ScalarNode, yaml.SequenceNode
    str_tag, seq_tag, map_tag = _TAG + "str", _TAG + "seq", _TAG + "map"

    class Loader(base):  # type: ignore[misc, valid-type]
        # Called for every untagged node (a million for a large List): BaseResolver's answers without its
        # path-resolver machinery, which this loader never uses; untagged plain scalars are resolved later.
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is scalar_node:
                return _PLAIN if implicit[0] else str_tag
            return seq_tag if kind is sequence_node else map_tag

        # Called twice for every node by the composer; this loader has no path resolvers to move along.
        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    return Loader


class Converter:
    """Builds JSON values from PyYAML nodes with go-yaml v2's decoding into ``interface{}``.

    ``shared`` says the document may hold aliases (the same node object reached twice, perhaps from inside
    itself): then collections are built once and a node that contains itself is refused. A document without any
    ``*`` cannot hold an alias, and a large List (1.5 million nodes) is walked without that bookkeeping. The path
    of a failing value (``items[3].spec.cpu``) is put together while the error unwinds, so the walk itself builds
    no path strings.
    """

    def __init__(self, shared: bool = True) -> None:
        import yaml

        self.done: dict[int, Any] = {}
        self.open: set[int] = set()
        self.shared = shared
        self.scalar_node, self.sequence_node, self.mapping_node = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode

    def value(self, node: Any, path: str = "") -> Any:
        try:
            return self._value(node)
        except YAMLError as exc:
            if path and not exc.sealed:
                exc.path = _join_path(path, exc.path)
            raise

    def _value(self, node: Any) -> Any:
        kind = type(node)
        if kind is self.scalar_node:
            tag = node.tag
            if tag == _PLAIN:
                text = node.value
                resolved = _FAST.get(text, _MISSING)
                if resolved is _MISSING:
                    return _json_value(resolve_plain(text))
                return resolved
            return self.scalar(node)
        if not self.shared:
            return self._collection(node, kind)
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.open:
            raise _ContainsItself("yaml: anchor value contains itself", sealed=True)
        self.open.add(key)
        try:
            result = self._collection(node, kind)
        finally:
            self.open.discard(key)
        self.done[key] = result
        return result

    def _collection(self, node: Any, kind: Any) -> Any:
        if node.tag == _TAG + "set":
            raise YAMLError("a !!set has no JSON form (write a list or a map)")
        if kind is self.sequence_node:
            items: list[Any] = []
            append = items.append
            convert = self._value
            index = 0
            try:
                for index, item in enumerate(node.value):  # noqa: B007 - index names the failing item
                    append(convert(item))
            except YAMLError as exc:
                if not exc.sealed:
                    exc.path = _join_path(f"[{index}]", exc.path)
                raise
            return items
        return self.mapping(node)

    def scalar(self, node: Any) -> Any:
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            return _json_value(resolve_plain(text))
        if tag == _TAG + "binary":
            from .encoding_base64 import std_decode

            try:
                data = std_decode("".join(text.split()))
                return data.decode("utf-8")
            except UnicodeDecodeError:
                raise YAMLError("!!binary data that is not UTF-8 text has no JSON form") from None
            except ValueError:
                raise YAMLError("!!binary data that is not base64") from None
        if tag in (_TAG + "bool", _TAG + "int", _TAG + "float", _TAG + "null"):
            resolved = resolve_plain(text)
            wanted = tag[len(_TAG) :]
            kinds: dict[str, tuple[type, ...]] = {
                "bool": (bool,),
                "int": (int,),
                "float": (int, float),
                "null": (type(None),),
            }
            if not isinstance(resolved, kinds[wanted]) or (wanted == "int" and isinstance(resolved, bool)):
                raise YAMLError(f"yaml: cannot decode `{text}` as a !!{wanted}")
            value: Any = resolved
            return _json_value(float(value) if wanted == "float" else value)
        return text  # !!str, !!timestamp, quoted and block scalars, tags go-yaml does not know

    def mapping(self, node: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        scalar_node = self.scalar_node
        convert = self._value
        for key_node, value_node in node.value:
            if type(key_node) is not scalar_node:
                raise YAMLError("yaml: invalid map key: a mapping or sequence", sealed=True)
            text, tag = key_node.value, key_node.tag
            if tag == _PLAIN:
                if text == "<<":
                    self.merge(value_node, out)
                    continue
                name = _FAST_KEYS.get(text)
                if name is None:
                    name = _json_key(resolve_plain(text))
            elif tag == _TAG + "merge" and text == "<<":
                self.merge(value_node, out)
                continue
            else:
                name = _json_key(text)
            try:
                out[name] = convert(value_node)
            except YAMLError as exc:
                if not exc.sealed:
                    exc.path = _join_path(name, exc.path)
                raise
        return out

    def merge(self, node: Any, out: dict[str, Any]) -> None:
        """go-yaml v2's merge: a mapping, or a sequence of them where earlier ones take precedence."""
        sources = reversed(node.value) if type(node) is self.sequence_node else [node]
        for source in sources:
            if type(source) is not self.mapping_node:
                raise YAMLError("yaml: map merge requires map or sequence of maps as the value", sealed=True)
            try:
                merged = self._value(source)
            except YAMLError as exc:
                exc.sealed = True  # a merged map's values are named from that map, as before
                raise
            out.update(merged)


_MISSING = object()


class _ContainsItself(YAMLError):
    """A collection reached again from inside itself (``x: &a [*a]``); :func:`load_document` names the anchor."""


def _anchor_containing_itself(text: str) -> str:
    """The name of the first alias, in document order, that refers to an anchor whose collection is still open:
    go-yaml v2's ``decoder.alias`` fails on it with ``anchor '%s' value contains itself``."""
    import yaml

    open_anchors: list[str | None] = []
    for event in yaml.parse(text, Loader=composing_loader()):
        if isinstance(event, yaml.CollectionStartEvent):
            open_anchors.append(event.anchor)
        elif isinstance(event, yaml.CollectionEndEvent):
            open_anchors.pop()
        elif isinstance(event, yaml.AliasEvent) and event.anchor in open_anchors:
            return str(event.anchor)
        elif isinstance(event, yaml.DocumentEndEvent):
            break
    return ""


def _join_path(outer: str, inner: str) -> str:
    """``outer`` then ``inner`` as one path: ``items`` + ``[3]`` -> ``items[3]``, ``spec`` + ``cpu`` -> ``spec.cpu``."""
    if not inner:
        return outer
    return f"{outer}{inner}" if inner.startswith("[") else f"{outer}.{inner}"


class _PlainValues(dict):  # type: ignore[type-arg]
    """Plain scalars already read, by text: most texts of a large List repeat (``kind``, ``name``, ``false``).

    Bounded, so a document of a million distinct strings does not double its memory here."""

    def __missing__(self, text: str) -> Any:
        if len(self) >= 65_536:
            return _MISSING
        try:
            resolved = _json_value(resolve_plain(text)) if text else None
        except YAMLError:
            return _MISSING
        self[text] = resolved
        return resolved

    def get(self, text: str, default: Any = None) -> Any:
        return self[text]


class _PlainKeys(dict):  # type: ignore[type-arg]
    """Map keys already read, by text (the JSON key a plain key becomes); None where the slow path decides."""

    def __missing__(self, text: str) -> str | None:
        if len(self) >= 65_536:
            return None
        try:
            name = _json_key(resolve_plain(text)) if text else None
        except YAMLError:
            return None
        self[text] = name
        return name

    def get(self, text: str, default: Any = None) -> Any:
        return self[text]


_FAST = _PlainValues()
_FAST_KEYS = _PlainKeys()


def _problem(exc: Exception) -> str:
    """go-yaml's sentence for a parse error (its line numbering: the problem line, one more for scanner errors)."""
    if exc.__class__.__name__ == "ReaderError":
        return "yaml: control characters are not allowed"
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["invalid document"])[0]
    mark = getattr(exc, "problem_mark", None)
    line = mark.line if mark is not None else 0
    if exc.__class__.__name__ == "ScannerError" and line:
        line += 1
    elif not line:
        context = getattr(exc, "context_mark", None)
        line = context.line if context is not None else 0
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


def load_document(text: str) -> Any:
    """``sigs.k8s.io/yaml.YAMLToJSON`` of one document (its first YAML document, as go-yaml's Unmarshal reads),
    as a JSON value; None for an empty document. Raises :class:`YAMLError`."""
    # Python's cyclic garbage collector would run over and over while the composer and the walk create a large
    # List's millions of objects, each full pass over all that were already made (a 10,000-VM List composed in
    # 7.4 s, 0.9 s without it). Neither creates cycles that need it (a document's nodes are freed when the node
    # graph is dropped; a recursive anchor is refused and its graph freed by the next collection).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load_document(text)
    finally:
        if collecting:
            gc.enable()


def _load_document(text: str) -> Any:
    import yaml

    loader = composing_loader()(text)
    try:
        node = loader.get_node() if loader.check_node() else None
    except yaml.YAMLError as exc:
        raise YAMLError(_problem(exc)) from None
    except RecursionError:
        raise YAMLError("yaml: exceeded max depth of 10000") from None
    finally:
        loader.dispose()
    if node is None:
        return None
    shared = "*" in text  # an alias is written ``*name``: without a ``*`` every node is reached once
    if shared:
        check_aliasing(node)
    try:
        return Converter(shared).value(node)
    except _ContainsItself:
        raise YAMLError(f"yaml: anchor '{_anchor_containing_itself(text)}' value contains itself") from None
    except RecursionError:
        raise YAMLError("yaml: exceeded max depth of 10000") from None
