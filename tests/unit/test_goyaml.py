"""``goyaml.dump``: sigs.k8s.io/yaml's output, vectors taken from the Go library itself (hack/virtctl/goref)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_instancetype.golang import goyaml, yamltojson

# (string value, what sigs.k8s.io/yaml v1.6.0 prints for {"k": value})
STRING_VECTORS = [
    ("plain", "k: plain\n"),
    ("true", 'k: "true"\n'),
    ("True", 'k: "True"\n'),
    ("y", 'k: "y"\n'),
    ("Yes", 'k: "Yes"\n'),
    ("off", 'k: "off"\n'),
    ("null", 'k: "null"\n'),
    ("~", 'k: "~"\n'),
    ("", 'k: ""\n'),
    ("1", 'k: "1"\n'),
    ("-1", 'k: "-1"\n'),
    ("+1", 'k: "+1"\n'),
    ("007", 'k: "007"\n'),
    ("08", 'k: "08"\n'),
    ("1.5", 'k: "1.5"\n'),
    (".5", 'k: ".5"\n'),
    ("1e3", 'k: "1e3"\n'),
    ("1e400", "k: 1e400\n"),
    ("0x1f", 'k: "0x1f"\n'),
    ("0o17", 'k: "0o17"\n'),
    ("0b101", 'k: "0b101"\n'),
    ("1_000", 'k: "1_000"\n'),
    (".inf", 'k: ".inf"\n'),
    (".NaN", 'k: ".NaN"\n'),
    ("2001-12-14", 'k: "2001-12-14"\n'),
    ("2001-13-14", "k: 2001-13-14\n"),
    ("2001-12-14T21:59:43.10Z", 'k: "2001-12-14T21:59:43.10Z"\n'),
    ("2001-12-14 21:59:43.10", 'k: "2001-12-14 21:59:43.10"\n'),
    ("1:20", 'k: "1:20"\n'),
    ("a: b", "k: 'a: b'\n"),
    ("a:b", "k: a:b\n"),
    ("a #b", "k: 'a #b'\n"),
    ("a#b", "k: a#b\n"),
    ("#a", "k: '#a'\n"),
    ("- x", "k: '- x'\n"),
    ("-x", "k: -x\n"),
    ("-", "k: '-'\n"),
    ("---", "k: '---'\n"),
    ("*a", "k: '*a'\n"),
    ("&a", "k: '&a'\n"),
    ("!a", "k: '!a'\n"),
    ("@a", "k: '@a'\n"),
    ("`a", "k: '`a'\n"),
    ("%a", "k: '%a'\n"),
    ("'a", "k: '''a'\n"),
    ('"a', "k: '\"a'\n"),
    ("it's", "k: it's\n"),
    ("[a]", "k: '[a]'\n"),
    ("{a}", "k: '{a}'\n"),
    ("a,b", "k: a,b\n"),
    ("? a", "k: '? a'\n"),
    (" lead", "k: ' lead'\n"),
    ("trail ", "k: 'trail '\n"),
    ("\t", 'k: "\\t"\n'),
    ("é", "k: é\n"),
    ("日本語", "k: 日本語\n"),
    ("=", "k: =\n"),
    ("<<", "k: <<\n"),
    ("quay.io/containerdisks/fedora:41", "k: quay.io/containerdisks/fedora:41\n"),
    ("http://example.com/x?a=b&c=d", "k: http://example.com/x?a=b&c=d\n"),
    ("ml\nline", "k: |-\n  ml\n  line\n"),
    ("trail\n", "k: |\n  trail\n"),
    ("trail\n\n", "k: |+\n  trail\n\n"),
    (" lead\nx", "k: |2-\n   lead\n  x\n"),
    ("x \ny", 'k: "x \\ny"\n'),
    ("#cloud-config\nuser: u", "k: |-\n  #cloud-config\n  user: u\n"),
    (
        "word word word word word word word word word word word word word word word word word word word word ",
        "k: 'word word word word word word word word word word word word word word word word\n  word word word word '\n",
    ),
    (
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "k: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
    ),
]


@pytest.mark.parametrize(("value", "expected"), STRING_VECTORS, ids=[repr(v)[:40] for v, _ in STRING_VECTORS])
def test_string_quoting_matches_go(value, expected):
    assert goyaml.dump({"k": value}) == expected


@pytest.mark.parametrize(
    ("value", "style"),
    [
        ("plain", None),
        ("true", '"'),
        ("y", '"'),
        ("", '"'),
        ("1:20", '"'),
        ("a: b", None),
        ("a\nb", "|"),
        ("2001-12-14", '"'),
        ("2001-02-30", None),
        ("1e400", None),
        ("0b2", None),
        ("-", None),
        ("+.5", '"'),
        ("9223372036854775808", '"'),
        ("18446744073709551616", '"'),
        ("0x", None),
    ],
)
def test_string_style(value, style):
    assert goyaml.string_style(value) == style


def test_keys_sorted_like_go_yaml():
    document = {
        "b10": 1,
        "b9": 2,
        "B": 3,
        "_x": 4,
        "a1": 5,
        "a01": 6,
        "a10b": 7,
        "a2b": 8,
        "1": 9,
        "10": 10,
        "2": 11,
        "é": 12,
    }
    # letters by code point, digit runs as numbers (a shorter run of zeros first), non-letters before letters
    assert goyaml.dump(document) == (
        '_x: 4\n"1": 9\n"2": 11\n"10": 10\nB: 3\na1: 5\na01: 6\na2b: 8\na10b: 7\nb9: 2\nb10: 1\né: 12\n'
    )


def test_manifest_shape():
    document = {
        "status": {},
        "spec": {
            "template": {
                "metadata": {},
                "spec": {"volumes": [{"name": "a", "containerDisk": {"image": "x:1"}}], "disks": []},
            }
        },
        "kind": "VirtualMachine",
        "apiVersion": "kubevirt.io/v1",
        "metadata": {"name": "vm"},
    }
    assert goyaml.dump(document) == (
        "apiVersion: kubevirt.io/v1\n"
        "kind: VirtualMachine\n"
        "metadata:\n"
        "  name: vm\n"
        "spec:\n"
        "  template:\n"
        "    metadata: {}\n"
        "    spec:\n"
        "      disks: []\n"
        "      volumes:\n"
        "      - containerDisk:\n"
        "          image: x:1\n"
        "        name: a\n"
        "status: {}\n"
    )


def test_nested_lists_and_literal_blocks_in_lists():
    document = {"a": [[1, [2]], {"b": "line1\nline2"}, [], {}]}
    assert goyaml.dump(document) == "a:\n- - 1\n  - - 2\n- b: |-\n    line1\n    line2\n- []\n- {}\n"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (0, "0"),
        (-7, "-7"),
        (12345678901234567890, "12345678901234567890"),
        (1.5, "1.5"),
        (3.0, "3"),
        (-0.0, "-0"),
        (1e21, "1e+21"),
        (1e-06, "1e-06"),
        (float("inf"), ".inf"),
        (float("-inf"), "-.inf"),
        (float("nan"), ".nan"),
    ],
)
def test_scalars(value, text):
    assert goyaml.dump({"k": value}) == f"k: {text}\n"


def test_root_values():
    assert goyaml.dump({}) == "{}\n"
    assert goyaml.dump([]) == "[]\n"
    assert goyaml.dump("abc") == "abc\n"
    assert goyaml.dump("a\n\n") == "|+\n  a\n\n"
    assert goyaml.dump([1, "x"]) == "- 1\n- x\n"


def test_shared_objects_are_written_out_again():
    shared = {"name": "x"}
    assert goyaml.dump({"a": shared, "b": [shared, shared]}) == "a:\n  name: x\nb:\n- name: x\n- name: x\n"


def test_tuples_are_sequences():
    assert goyaml.dump({"k": ("a", "b")}) == "k:\n- a\n- b\n"


def test_long_plain_strings_fold_at_80_columns():
    text = " ".join(["word"] * 30)
    assert goyaml.dump({"key": text}) == (
        "key: word word word word word word word word word word word word word word word word\n"
        "  word word word word word word word word word word word word word word\n"
    )


def test_dump_all_separates_documents():
    assert goyaml.dump_all([{"a": 1}, {"b": [1]}]) == "a: 1\n---\nb:\n- 1\n"
    assert goyaml.dump_all([]) == ""


GOLDEN_FILES = sorted((Path(__file__).resolve().parent.parent / "golden").glob("*/*/expected.yaml"))


@pytest.mark.parametrize("pure_python", [False, True], ids=["libyaml", "pure-python"])
def test_golden_manifests_round_trip(pure_python, monkeypatch):
    import yaml

    if pure_python:
        monkeypatch.delattr(yaml, "CSafeDumper", raising=False)
    goyaml.yaml_dumpers.cache_clear()
    try:
        for path in GOLDEN_FILES:
            text = path.read_text()
            assert goyaml.dump(yaml.safe_load(text)) == text, path
    finally:
        goyaml.yaml_dumpers.cache_clear()


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("items:\n- a: 1\n- b: [1, .inf]\n", "items[1].b[1]"),
        ("a:\n  b:\n  - !!set {x}\n", "a.b[0]"),
        ("a: !!int x\n", "a"),
        # a merged map's values are named from that map (the walk before the fast path did so too)
        ("a:\n  <<: {c: .nan}\n", "c"),
        ("a:\n  ? [1]\n  : 2\n", ""),
        ("x: &a [*a]\n", ""),
        ("b: &m {k: .inf}\nc:\n  d: *m\n", "b.k"),  # the anchored value is read first, where it is written
    ],
)
def test_a_failing_value_is_named_by_its_path(text: str, path: str) -> None:
    with pytest.raises(yamltojson.YAMLError) as caught:
        yamltojson.load_document(text)
    assert caught.value.path == path


@pytest.mark.parametrize(
    "text",
    [
        "items:\n- {a: 1, b: [y, ~, 0x1F, 1e3, '1', .5]}\n- {c: {d: 2.5}}\n",
        "a:\n  <<: [{x: 1}, {x: 2, y: 3}]\n  z: no\n",
        "3: a\n1.5: b\ntrue: c\nn: d\n",
    ],
)
def test_the_walk_without_aliases_reads_as_the_shared_walk(text: str) -> None:
    """A document without ``*`` is walked without alias bookkeeping; both walks give the same value."""
    import yaml

    node = yaml.compose(text, Loader=yamltojson.composing_loader())
    assert yamltojson.Converter(shared=False).value(node) == yamltojson.Converter(shared=True).value(node)
    assert yamltojson.load_document(text) == yamltojson.Converter(shared=True).value(node)
