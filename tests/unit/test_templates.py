"""The template engines and printers without a cluster: vectors whose expected outputs are kubectl's
(tests/integration/test_output_formats_differential.py checks the same behaviour against kubectl itself)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.env import Environment
from kubectl_instancetype.errors import PluginError, UsageError
from kubectl_instancetype.golang.encoding_json import marshal
from kubectl_instancetype.golang.fmt import format_float, sprint, sprint_value
from kubectl_instancetype.golang.jsonpath import JSONPath, JSONPathError
from kubectl_instancetype.golang.text_template import Template, TemplateError
from kubectl_instancetype.output.customcolumns import columns_from_spec, columns_from_template, relaxed_jsonpath
from kubectl_instancetype.output.printers import check_output_format, print_objects

ITEMS = [
    {
        "metadata": {"name": "u1.small", "labels": {"class": "general.purpose"}},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}, "ratio": 0.5, "none": None},
    },
    {"metadata": {"name": "cx1.large"}, "spec": {"cpu": {"guest": 2, "dedicatedCPUPlacement": True}}},
]
LIST = {"apiVersion": "v1", "items": ITEMS, "kind": "List", "metadata": {"resourceVersion": ""}}


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (1e6, "1e+06"), (123456.0, "123456"), (0.0001, "0.0001"), (1e-5, "1e-05"), (-2.5, "-2.5")],
)
def test_go_float_formatting(value: float, text: str) -> None:
    assert format_float(value, "g", -1) == text == sprint([value])


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON_VALUES)
@settings(max_examples=200, deadline=None)
def test_sprint_value_is_sprint_of_one_value(value: object) -> None:
    # the per-cell fast path and fmt's printer (one fmt module, two entry points) print every JSON value alike
    assert sprint_value(value) == sprint([value])


def test_sprint_and_marshal_are_go_shaped() -> None:
    assert sprint_value({"b": [1, None], "a": True}) == "map[a:true b:[1 <nil>]]"
    assert marshal({"b": "<&>", "a": 1e21, "c": 2.0}) == '{"a":1e+21,"b":"\\u003c\\u0026\\u003e","c":2}'


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{.items[*].metadata.name}", "u1.small cx1.large"),
        ('{range .items[*]}{.metadata.name}{"\\t"}{.spec.cpu.guest}{"\\n"}{end}', "u1.small\t1\ncx1.large\t2\n"),
        ("{.items[?(@.spec.cpu.guest>1)].metadata.name}", "cx1.large"),
        ("{.items[?(@.spec.cpu.dedicatedCPUPlacement)].metadata.name}", "cx1.large"),
        ("{.items[?(@.metadata.labels.class=='general.purpose')].metadata.name}", "u1.small"),
        ("{.items[-1:].metadata.name}", "cx1.large"),
        ("{.items[0].spec.cpu}", '{"guest":1}'),
        ("{.items[0].spec.none}", "null"),
        ("{.items[0].spec.ratio}", "0.5"),
        ("{..guest}", "1 2Gi 2"),
        ("{.items[*].metadata['name']}", "u1.small cx1.large"),
        ("{.missing}", ""),
        ("kind={.kind}", "kind=List"),
    ],
)
def test_jsonpath(template: str, expected: str) -> None:
    assert JSONPath(template, allow_missing_keys=True).execute(LIST) == expected


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{.kind", "unclosed action"),
        ("{.items[a]}", "invalid array index a"),
        ("{'x}", "unterminated quoted string"),
        ("{end}", "not in range, nothing to end"),
        ("{.items[5]}", "array index out of bounds: index 5, length 2"),
        ("{.items[?(@.spec.ratio>1)].metadata.name}", "incompatible types for comparison"),
        ("{.missing}", "missing is not found"),
        ("{.kind[0]}", "string is not array or slice"),
    ],
)
def test_jsonpath_errors(template: str, message: str) -> None:
    with pytest.raises(JSONPathError) as raised:
        JSONPath(template).execute(LIST)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{range .items}}{{.metadata.name}} {{end}}", "u1.small cx1.large "),
        ("{{len .items}} {{.missing}} {{(index .items 0).spec.none}}", "2 <no value> <no value>"),
        ("{{range $i, $e := .items}}{{$i}}={{$e.spec.cpu.guest}};{{end}}", "0=1;1=2;"),
        ("{{range .items}}{{if eq .spec.cpu.guest 2}}two{{else}}one{{end}}{{end}}", "onetwo"),
        ('{{printf "%-6s|%3d|%v" "ab" 7 .items}}', "ab    |  7|" + sprint_value(ITEMS)),
        ("{{with .metadata}}{{.resourceVersion}}!{{end}}", "!"),
        ("{{- range .items -}}\n  {{ .metadata.name }}\n{{- end }}", "u1.smallcx1.large"),
        ('{{define "n"}}<{{.metadata.name}}>{{end}}{{range .items}}{{template "n" .}}{{end}}', "<u1.small><cx1.large>"),
        ("{{range .items}}{{break}}{{end}}x", "x"),
        ('{{exists . "items" 1 "spec"}} {{base64decode "aGk="}}', "true hi"),
        ("{{range .items}}{{.metadata.labels}}{{end}}", "map[class:general.purpose]<no value>"),
    ],
)
def test_go_template(template: str, expected: str) -> None:
    assert Template(template).execute(LIST) == expected


@pytest.mark.parametrize(
    ("template", "missing_key_error", "message"),
    [
        ("{{.kind", False, "template: output:1: unclosed action"),
        ("{{foo}}", False, 'template: output:1: function "foo" not defined'),
        ("{{$x}}", False, 'template: output:1: undefined variable "$x"'),
        ("{{end}}", False, "template: output:1: unexpected {{end}}"),
        (
            "{{.missing}}",
            True,
            'template: output:1:2: executing "output" at <.missing>: map has no entry for key "missing"',
        ),
        (
            "{{.kind.x}}",
            False,
            'template: output:1:7: executing "output" at <.kind.x>: can\'t evaluate field x in type interface {}',
        ),
        (
            "{{eq (index .items 0).spec.ratio 1}}",
            False,
            'template: output:1:2: executing "output" at <eq (index .items 0).spec.ratio 1>: error calling eq: '
            "incompatible types for comparison: float64 and int",
        ),
    ],
)
def test_go_template_errors(template: str, missing_key_error: bool, message: str) -> None:
    with pytest.raises(TemplateError) as raised:
        Template(template, missing_key_error=missing_key_error).execute(LIST)
    assert str(raised.value) == message


def test_custom_columns_parsing() -> None:
    assert relaxed_jsonpath("metadata.name") == relaxed_jsonpath("{.metadata.name}") == "{.metadata.name}"
    assert [c.header for c in columns_from_spec("NAME:.metadata.name,CPU:.spec.cpu.guest")] == ["NAME", "CPU"]
    assert [c.field_spec for c in columns_from_template("A B\n.a {.b}\n")] == ["{.a}", "{.b}"]
    with pytest.raises(UsageError, match="expected <header>:<json-path-expr>"):
        columns_from_spec("NAME")
    with pytest.raises(UsageError, match=r"number of headers \(2\) and field specifications \(1\) don't match"):
        columns_from_template("A B\n.a\n")


def printed(output: str, objects: list, *, single: bool = False, **options) -> str:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    print_objects(env, output, objects, [], single=single, **options)
    return env.stdout.getvalue()


def test_printers_print_lists_and_single_objects_as_kubectl() -> None:
    assert printed("jsonpath={.kind}", ITEMS) == "List"
    assert printed("jsonpath={.metadata.name}", ITEMS[:1], single=True) == "u1.small"
    assert printed("custom-columns=NAME:.metadata.name,CPU:.spec.cpu.guest,X:.x", ITEMS) == (
        "NAME        CPU   X\nu1.small    1     <none>\ncx1.large   2     <none>\n"
    )
    assert printed("custom-columns=NAME:.metadata.name", ITEMS, no_headers=True) == "u1.small\ncx1.large\n"


def test_template_errors_are_one_line_and_keep_partial_output() -> None:
    """kubectl's GoTemplatePrinter: what the template wrote, then its debugging block on stdout; one error line."""
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    with pytest.raises(PluginError) as raised:
        print_objects(env, "go-template=a{{.missing}}", ITEMS[1:], [], allow_missing_keys=False)
    assert env.stdout.getvalue() == (
        'aError executing template: template: output:1:3: executing "output" at <.missing>: map has no entry for '
        'key "missing". Printing more information for debugging the template:\n'
        "\ttemplate was:\n\t\ta{{.missing}}\n"
        '\traw data was:\n\t\t{"apiVersion":"v1","items":[{"metadata":{"name":"cx1.large"},'
        '"spec":{"cpu":{"dedicatedCPUPlacement":true,"guest":2}}}],"kind":"List","metadata":{"resourceVersion":""}}\n'
        "\tobject given to template engine was:\n\t\tmap[apiVersion:v1 items:[map[metadata:map[name:cx1.large] "
        "spec:map[cpu:map[dedicatedCPUPlacement:true guest:2]]]] kind:List metadata:map[resourceVersion:]]\n\n"
    )
    assert raised.value.render() == (
        'error: error executing template "a{{.missing}}": template: output:1:3: executing "output" at '
        '<.missing>: map has no entry for key "missing"'
    )


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("jsonpath", "template format specified but no template given"),
        ("custom-columns=", "custom-columns format specified but no custom columns given"),
        (
            "xml",
            'unable to match a printer suitable for the output format "xml", allowed formats are: custom-columns,json,jsonpath,yaml',
        ),
    ],
)
def test_output_format_checks(output: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        check_output_format(output, ("json", "yaml", "jsonpath", "custom-columns"))
    assert str(raised.value) == message


def test_unknown_commands_suggest_by_edit_distance_over_the_real_table() -> None:
    """cobra's SuggestionsFor (Levenshtein <= 2, or a prefix) through golang/cobra.did_you_mean."""
    from tests.conftest import run_cli

    assert run_cli(["describ"]).stderr == (
        'error: unknown command "describ" for "kubectl instancetype"; did you mean describe?\n'
    )
    assert run_cli(["desc"]).stderr.endswith("did you mean describe?\n")  # derive is 3 edits away
    assert run_cli(["create", "vn"]).stderr.endswith("did you mean vm?\n")
    assert run_cli(["xyz"]).stderr == 'error: unknown command "xyz" for "kubectl instancetype"\n'
