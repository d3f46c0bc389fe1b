"""The manifest reader's two walks give the same answers: a document without ``*`` (no alias possible) is walked
without alias bookkeeping and with cached scalar readings; every other document by the full walk, which checks
go-yaml's alias budget and refuses an anchor that contains itself. Hypothesis writes YAML documents (block and
flow, plain words go-yaml reads as booleans, numbers and nulls, quoted ones, tags, merge keys, anchors) and both
walks must give the same JSON, byte for byte, or the same error at the same path; so must the repository's YAML
corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.golang import yamltojson

ROOT = Path(__file__).resolve().parents[2]

WORDS = st.sampled_from(
    [
        "a",
        "name",
        "kind",
        "y",
        "Y",
        "yes",
        "n",
        "NO",
        "on",
        "off",
        "true",
        "False",
        "~",
        "null",
        "",
        "0",
        "-0",
        "0777",
        "0o17",
        "0x1F",
        "0b101",
        "1_000",
        "1e3",
        "1.5",
        ".5",
        "08",
        "+12",
        "-1",
        ".inf",
        "-.Inf",
        ".nan",
        "1:20",
        "2024-01-02",
        "99999999999999999999",
        "9223372036854775808",
        "-9223372036854775809",
        "1.0e400",
        "<<",
        "x y",
        "q35",
        "2Gi",
        "u1.nano",
        "3.0",
        "1e-7",
        "0.1",
    ]
)
TAGS = st.sampled_from(
    ["", "", "", "", "", "", "", "", "!!str ", "!!int ", "!!float ", "!!binary ", "!!timestamp ", "!x "]
)


def scalar(word: str, tag: str, quote: str) -> str:
    if quote == "'":
        return f"{tag}'{word}'"
    if quote == '"':
        return f'{tag}"{word}"'
    if not word and not tag:
        return ""
    return f"{tag}{word}" if word else f"{tag}''"


SCALARS = st.builds(scalar, WORDS, TAGS, st.sampled_from(["", "", "", "'", '"']))
PLAIN_KEYS = st.builds(scalar, WORDS, st.just(""), st.sampled_from(["", "", "", "'"]))


def flow(node: object) -> str:
    """A generated node (a scalar text, a list, or a list of pairs for a map) in flow style."""
    if isinstance(node, str):
        return node or "''"
    if isinstance(node, tuple):
        return "{" + ", ".join(f"{flow(key)}: {flow(value)}" for key, value in node[1]) + "}"
    return "[" + ", ".join(flow(item) for item in node) + "]"


def block(node: object, indent: int) -> str:
    """``node`` as block YAML lines at ``indent`` (flow for the smallest collections and set-tagged maps)."""
    pad = " " * indent
    if isinstance(node, tuple):
        tag, pairs = node
        if not pairs or tag:
            return f"{pad}{tag}{flow(('', pairs))}\n"
        lines = []
        for key, value in pairs:
            if isinstance(value, str) or not (value[1] if isinstance(value, tuple) else value):
                lines.append(f"{pad}{flow(key)}: {flow(value)}\n")
            else:
                lines.append(f"{pad}{flow(key)}:\n{block(value, indent + 2)}")
        return "".join(lines)
    if isinstance(node, list):
        if not node:
            return f"{pad}[]\n"
        lines = []
        for item in node:
            if isinstance(item, str):
                lines.append(f"{pad}- {flow(item)}\n")
            else:
                lines.append(f"{pad}-\n{block(item, indent + 2)}")
        return "".join(lines)
    return f"{pad}{flow(node)}\n"


NODES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(
            st.sampled_from(["", "", "", "", "", "", "!!set "]),
            st.lists(
                st.tuples(st.one_of(PLAIN_KEYS, PLAIN_KEYS, PLAIN_KEYS, SCALARS, st.lists(SCALARS)), inner), max_size=4
            ),
        ),
    ),
    max_leaves=25,
)


def outcome(run) -> str:
    """JSON text of what ``run()`` returns (types and key order kept: ``1``, ``1.0`` and ``true`` differ), or its
    error and path."""
    try:
        return json.dumps(run(), ensure_ascii=False)
    except yamltojson.YAMLError as exc:
        return f"error: {exc} at {exc.path!r}"


def both_walks(text: str) -> tuple[str, str, str]:
    """(the reader's answer, the walk without alias bookkeeping, the full walk) for one document."""
    loader = yamltojson.composing_loader()
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        node = None
    reader = outcome(lambda: yamltojson.load_document(text))
    if node is None:
        return reader, reader, reader

    def full() -> object:
        yamltojson.check_aliasing(node)
        return yamltojson.Converter(shared=True).value(node)

    return reader, outcome(lambda: yamltojson.Converter(shared=False).value(node)), outcome(full)


@settings(max_examples=600, deadline=None)
@given(NODES, st.booleans())
def test_generated_documents_read_the_same_by_both_walks(node, as_block) -> None:
    text = block(node, 0) if as_block else flow(node) + "\n"
    reader, fast, full = both_walks(text)
    assert fast == full, text
    assert reader == full, text


@settings(max_examples=200, deadline=None)
@given(NODES)
def test_merge_keys_and_anchors_without_aliases(node) -> None:
    """Anchors (``&a``) and merge keys without aliases stay on the walk without bookkeeping."""
    text = f"base: &b {flow(node)}\nitems:\n- <<: {{k: 1, m: {flow(node)}}}\n  x: &c [1, {flow(node)}]\n"
    reader, fast, full = both_walks(text)
    assert fast == full == reader, text


CORPUS = sorted(
    path
    for pattern in ("tests/golden/**/*.yaml", "tests/golden/**/*.yml", "docs/**/*.yaml")
    for path in ROOT.glob(pattern)
)


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(CORPUS) > 20


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_corpus_reads_the_same_by_both_walks(path: Path) -> None:
    for document in yamltojson.iter_documents(path.read_text()):
        reader, fast, full = both_walks(document)
        assert fast == full == reader


@pytest.mark.parametrize(
    "text",
    [
        "x: &a [*a]\n",
        "a: &x {b: [1, *x]}\n",
        "a: &x [&y [*y]]\n",
        "a: &x {<<: *x}\n",
    ],
)
def test_an_anchor_that_contains_itself_is_refused_at_once(text: str) -> None:
    """It once looped for ever in the alias budget's count; go-yaml's words name the anchor."""
    with pytest.raises(yamltojson.YAMLError, match=r"^yaml: anchor '[axy]' value contains itself$"):
        yamltojson.load_document(text)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["-", "---", "----", "\n", "\r", "\r\n", "\x85", "\x1c", "\x1f", "\t", "a", " ", "\u2028"]),
        max_size=24,
    )
)
def test_documents_are_split_where_the_line_reader_splits_them(parts: list[str]) -> None:
    """iter_documents finds the ``---`` lines without cutting the text into lines (str.splitlines' line breaks,
    "\r\n" as one), and splits as apimachinery's YAMLReader does: as :func:`split_documents`."""
    text = "".join(parts)
    assert list(yamltojson.iter_documents(text)) == yamltojson.split_documents(text)
