"""Differential tests of the template printers against the real kubectl, on the same objects.

For each template, kubectl prints ``kubectl get RESOURCE -o FORMAT=TEMPLATE``; the plugin's printer is
given the document ``kubectl get RESOURCE -o json`` returned (the List kubectl's own printer received)
and must print the same bytes on stdout and stderr (kubectl's error line, and its debugging block). Objects: the catalog's instance types and
preferences, and objects of a test CRD that keeps every JSON shape (nulls, floats, nested lists,
unicode, HTML characters, empty maps) the KubeVirt schemas would prune.

Not compared: ``*`` and ``..`` over a map with several keys, which Go visits in random order (the
plugin visits keys sorted; see golang/jsonpath.py).
"""

from __future__ import annotations

import io
import json
import subprocess
import time

import pytest

from kubectl_instancetype.env import Environment
from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.output.printers import TemplatePrinter, as_list

pytestmark = [pytest.mark.controlplane]

GROUP = "kit.test.kubectl-instancetype.io"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"gadgets.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"},
        "scope": "Cluster",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                    }
                },
            }
        ],
    },
}
GADGETS = [
    {
        "metadata": {"name": "alpha", "labels": {"tier": "gold", "size": "2"}, "annotations": {"note": "a <b> & c"}},
        "spec": {
            "count": 3,
            "ratio": 0.25,
            "big": 1e21,
            "whole": 2.0,
            "flag": True,
            "nothing": None,
            "text": 'héllo "quoted"',
            "list": [1, "two", None, {"k": "v"}, [3, 4]],
            "empty": {},
            "emptyList": [],
            "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        },
    },
    {
        "metadata": {"name": "beta", "labels": {"tier": "silver"}},
        "spec": {"count": 10, "ratio": 1.5, "flag": False, "ports": [{"name": "ssh", "port": 22}], "text": ""},
    },
    {"metadata": {"name": "gamma"}, "spec": {"count": -1, "list": []}},
]

# (format, template) pairs; every one runs with kubectl's default --allow-missing-template-keys=true
# and again with false.
JSONPATH = [
    "{.items[*].metadata.name}",
    "{.kind}{' '}{.apiVersion}",
    '{range .items[*]}{.metadata.name}{"\\t"}{.spec.count}{"\\n"}{end}',
    "{.items[0].spec}",
    "{.items[0].spec.list}",
    "{.items[0].spec.list[*]}",
    "{.items[0].spec.nothing}",
    "{.items[0].spec.big} {.items[0].spec.whole} {.items[0].spec.ratio}",
    "{.items[*].spec.flag}",
    "{.items[0].metadata.annotations}",
    "{.items[-1:].metadata.name}",
    "{.items[0:2].metadata.name}",
    "{.items[::2].metadata.name}",
    "{.items[5].metadata.name}",
    "{.items[?(@.spec.count>2)].metadata.name}",
    "{.items[?(@.spec.count==3)].metadata.name}",
    "{.items[?(@.metadata.labels.tier=='gold')].metadata.name}",
    '{.items[?(@.metadata.labels.tier!="gold")].metadata.name}',
    "{.items[?(@.spec.ratio>1.0)].metadata.name}",
    "{.items[?(@.spec.ratio>1)].metadata.name}",
    "{.items[?(@.spec.flag)].metadata.name}",
    "{.items[*].spec.ports[?(@.port<100)].name}",
    "{..ports[*].port}",
    "{.items[0].spec.ports..name}",
    "{.items[*]['metadata.name']}",
    "{.items[*].metadata['name','labels']}",
    "{.items[0].spec.text}",
    "{.missing}",
    "{.items[*].missing}",
    "{.items[*].spec.count.deeper}",
    "{range .items[*]}[{.metadata.labels.tier}]{end}",
    "{range .items[*]}{range .spec.ports[*]}{.name}={.port};{end}{end}",
    "{range .items[*]}{.metadata.name}",
    "{end}",
    "{.items[0].metadata.name} {@.kind} {$.kind}",
    "{.metadata}",
    "text only",
    "{.items[*].spec.ratio}",
    "{.items[0].spec.ports[1:]}",
    "{.items[0].spec.count[0]}",
    "{.items[0].spec[?(@.x)]}",
    "{.items[2].spec.list[*].x}",
    "{.kind",
    "{.items[}",
    "{.items[a]}",
    "{.items[?(@.x=='y']}",
    "{'unterminated}",
    "{.items[*].metadata.name}{foo}",
    "{.items[1:0]}",
    "{.items[::-1]}",
]
GO_TEMPLATE = [
    '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}',
    "{{.kind}} {{len .items}}",
    "{{range $i, $e := .items}}{{$i}}:{{$e.metadata.name}} {{end}}",
    "{{range .items}}{{if gt .spec.count 2}}{{.metadata.name}} {{end}}{{end}}",
    "{{range .items}}{{if eq .spec.count 3}}three{{else if eq .spec.count 10}}ten{{else}}other{{end}} {{end}}",
    "{{range .items}}{{with .metadata.labels}}{{.tier}}{{else}}none{{end}};{{end}}",
    "{{(index .items 0).spec}}",
    "{{(index .items 0).spec.list}}",
    "{{(index .items 0).spec.nothing}}",
    "{{(index .items 0).spec.big}} {{(index .items 0).spec.whole}} {{(index .items 0).spec.ratio}}",
    "{{range .items}}{{.spec.missing}} {{end}}",
    "{{range .items}}{{.spec.missing.deeper}} {{end}}",
    "{{.missing}}",
    "{{range .items}}{{.metadata.labels}} {{end}}",
    "{{range .items}}{{range $k, $v := .metadata.labels}}{{$k}}={{$v}},{{end}}{{end}}",
    '{{range .items}}{{printf "%-8s|%5d|%v" .metadata.name .spec.count .spec.flag}}\n{{end}}',
    '{{printf "%q %s %x" .kind .apiVersion 255}}',
    '{{printf "%d"}}',
    '{{printf "%s" 3}}',
    "{{index .items 0 | len}}",
    '{{index (index .items 0).metadata.labels "tier"}}',
    '{{index (index .items 0).metadata.labels "nope"}}',
    "{{index .items 9}}",
    "{{ range .items -}}\n  {{ .metadata.name }}\n{{- end }}",
    "{{/* a comment */}}{{.kind}}",
    "{{$n := len .items}}{{$n}} {{$n = 5}}{{$n}}",
    "{{range .items}}{{if not .spec.flag}}{{.metadata.name}} {{end}}{{end}}",
    "{{range .items}}{{and .spec.flag .metadata.name}} {{or .spec.flag .metadata.name}} {{end}}",
    '{{range .items}}{{.spec.count | printf "<%v>"}}{{end}}',
    '{{range .items}}{{if exists . "spec" "ports" 0}}{{.metadata.name}} {{end}}{{end}}',
    "{{range .items}}{{if lt .spec.ratio 1.0}}{{.metadata.name}}{{end}}{{end}}",
    "{{range .items}}{{if lt .spec.ratio 1}}{{.metadata.name}}{{end}}{{end}}",
    "{{range .items}}{{.metadata.name.x}}{{end}}",
    "{{range .items}}{{.spec.nothing.x}}{{end}}",
    "{{range .items}}{{break}}{{end}}done",
    '{{range .items}}{{if eq .metadata.name "beta"}}{{continue}}{{end}}{{.metadata.name}}{{end}}',
    "{{range .items}}{{.metadata.name}}{{else}}empty{{end}}",
    "{{range (index .items 2).spec.list}}x{{else}}empty{{end}}",
    "{{range 3}}{{.}}{{end}}",
    '{{define "row"}}{{.metadata.name}};{{end}}{{range .items}}{{template "row" .}}{{end}}',
    '{{html (index .items 0).metadata.annotations.note}} {{js "a\'b"}} {{urlquery "a b&c"}}',
    '{{print 1 2 "a" "b" 3}} {{println 1 "x"}}',
    '{{slice "abcdef" 1 3}} {{len "héllo"}}',
    '{{base64decode "aGVsbG8="}} {{base64decode "!!"}}',
    "{{.kind",
    "{{.kind}",
    "{{if}}{{end}}",
    "{{end}}",
    "{{range .items}}",
    "{{nosuchfunc .kind}}",
    "{{$x}}",
    "{{.kind | 3}}",
    "{{eq}}",
    "{{len 3}}",
    "{{.items.x}}",
    '{{index .kind "a"}}',
]
CUSTOM_COLUMNS = [
    "NAME:.metadata.name,COUNT:.spec.count",
    "NAME:metadata.name,TIER:{.metadata.labels.tier}",
    "NAME:{.metadata.name},PORTS:.spec.ports[*].port,NAMES:.spec.ports[*].name",
    "SPEC:.spec.list,NIL:.spec.nothing,FLOAT:.spec.big,EMPTY:.spec.empty",
    "ALL:.spec.ports[*]",
    "NAME:.metadata.name,MISSING:.spec.nope.deeper",
    "BAD",
    "X:{.a}{.b}",
    "X:.spec.list[9]",
]


@pytest.fixture(scope="module")
def gadgets(control_plane):
    """The test CRD and its three objects, created once (cluster-scoped, removed at the end)."""
    control_plane.apply(CRD)
    deadline = time.monotonic() + 30
    kubectl = control_plane.kubectl
    env = {"KUBECONFIG": str(control_plane.kubeconfig("admin")), "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
    while True:
        probe = subprocess.run([str(kubectl), "get", "gadgets"], env=env, capture_output=True, text=True)
        if probe.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    created = []
    for gadget in GADGETS:
        obj = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", **gadget}
        control_plane.apply(obj)
        created.append(obj)
    yield
    for obj in created:
        control_plane.delete(obj)
    control_plane.delete(CRD)


@pytest.fixture(scope="module")
def kubectl_get(control_plane):
    env = {"KUBECONFIG": str(control_plane.kubeconfig("admin")), "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(control_plane.kubectl), "get", *args], env=env, capture_output=True, text=True, timeout=60
        )

    return run


def plugin_print(document: dict, output: str, allow_missing: bool, no_headers: bool = False) -> tuple[str, str]:
    """What the plugin's printer writes for ``document``: (stdout, stderr as main writes it)."""
    from kubectl_instancetype.cli.main import report_failure

    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    objects = list(document.get("items", [document]))  # templates see managedFields, as kubectl's do
    try:
        printer = TemplatePrinter(env, output, allow_missing_keys=allow_missing, no_headers=no_headers)
        text = printer.render(as_list(objects) if "items" in document else objects[0], objects)
    except PluginError as exc:
        report_failure(env, exc)
        return getattr(exc, "partial", ""), env.stderr.getvalue()
    return text, ""


def compare(kubectl_get, resource: list[str], output: str, allow_missing: bool, extra: tuple[str, ...] = ()) -> None:
    """The same stdout and the same stderr (kubectl's error line and, for JSONPath, its debugging block; a
    go-template's block is on stdout)."""
    flag = f"--allow-missing-template-keys={'true' if allow_missing else 'false'}"
    # the objects as the template printers get them: -o json leaves managedFields out unless asked
    document = json.loads(kubectl_get(*resource, "-o", "json", "--show-managed-fields").stdout)
    expected = kubectl_get(*resource, "-o", output, flag, *extra)
    stdout, stderr = plugin_print(document, output, allow_missing, no_headers="--no-headers" in extra)
    assert (stdout, stderr, 1 if stderr else 0) == (expected.stdout, expected.stderr, expected.returncode), output


@pytest.mark.parametrize("allow_missing", [True, False])
@pytest.mark.parametrize("template", JSONPATH)
def test_jsonpath_matches_kubectl(gadgets, kubectl_get, template: str, allow_missing: bool) -> None:
    compare(kubectl_get, ["gadgets"], f"jsonpath={template}", allow_missing)


@pytest.mark.parametrize("allow_missing", [True, False])
@pytest.mark.parametrize("template", GO_TEMPLATE)
def test_go_template_matches_kubectl(gadgets, kubectl_get, template: str, allow_missing: bool) -> None:
    compare(kubectl_get, ["gadgets"], f"go-template={template}", allow_missing)


@pytest.mark.parametrize("spec", CUSTOM_COLUMNS)
def test_custom_columns_match_kubectl(gadgets, kubectl_get, spec: str) -> None:
    compare(kubectl_get, ["gadgets"], f"custom-columns={spec}", True)
    compare(kubectl_get, ["gadgets"], f"custom-columns={spec}", True, ("--no-headers",))


@pytest.mark.parametrize(
    "output",
    [
        "jsonpath={.metadata.name}{'\\t'}{.spec.cpu.guest}",
        "jsonpath-as-json={.spec.memory}",
        'go-template={{.metadata.name}} {{.spec.cpu}} {{index .metadata.labels "instancetype.kubevirt.io/class"}}',
        "custom-columns=NAME:.metadata.name,CPU:.spec.cpu.guest,MEMORY:.spec.memory.guest",
    ],
)
def test_one_object_is_printed_alone(gadgets, kubectl_get, output: str) -> None:
    compare(kubectl_get, ["virtualmachineclusterinstancetypes", "u1.medium"], output, True)


@pytest.mark.parametrize(
    "output",
    [
        "jsonpath={range .items[*]}{.metadata.name}{' '}{.spec.cpu.guest}{' '}{.spec.memory.guest}{'\\n'}{end}",
        "jsonpath-as-json={.items[*].metadata.labels}",
        "go-template={{range .items}}{{.metadata.name}}:{{.spec.requirements}}\n{{end}}",
        "custom-columns=NAME:.metadata.name,CPU:.spec.cpu.guest,HUGE:.spec.memory.hugepages.pageSize",
    ],
)
def test_catalog_lists_print_as_kubectl(gadgets, kubectl_get, output: str) -> None:
    compare(kubectl_get, ["virtualmachineclusterinstancetypes"], output, True)
    compare(kubectl_get, ["virtualmachineclusterpreferences"], output, True)


def test_template_files_as_kubectl(gadgets, kubectl_get, tmp_path) -> None:
    columns = tmp_path / "columns.txt"
    columns.write_text("NAME   COUNT\n.metadata.name   {.spec.count}\n")
    jsonpath = tmp_path / "template.jsonpath"
    jsonpath.write_text('{range .items[*]}{.metadata.name}{"\\n"}{end}')
    gotemplate = tmp_path / "template.gotmpl"
    gotemplate.write_text("{{range .items}}{{.metadata.name}}\n{{end}}")
    for output in (
        f"custom-columns-file={columns}",
        f"jsonpath-file={jsonpath}",
        f"go-template-file={gotemplate}",
        f"templatefile={gotemplate}",
        f"jsonpath-file={tmp_path / 'missing'}",
    ):
        compare(kubectl_get, ["gadgets"], output, True)
