"""The cases of the printer differential test (tests/unit/test_printers_differential.py): upstream suites adapted
to instance types, as table data.

Sources, each adapted to instance-type objects (the suites' data moved under an instance type's spec):
client-go's util/jsonpath tests (jsonpath_test.go: types, store, points and nodes data), cli-runtime's printer
tests (template_test.go, jsonpath_test.go), kubectl get's custom-columns and sort tests (customcolumn_test.go,
sorter_test.go), Go's text/template exec and parse tests (exec_test.go, parse/parse_test.go) and, for issue 34,
Go's fmt limits (fmt_test.go: BADWIDTH, BADPREC, %c, %U, %x of floats).

A case is (output, items, options): ``items`` a key of :data:`ITEMS`; options ``single`` (one object named, printed
alone), ``allow`` (--allow-missing-template-keys, default true), ``no_headers``, ``sort_by``.

Left out: ``*`` and ``..`` over a map of several keys (client-go's "allfields" and "recurfields"), which Go visits
in random order (the plugin in sorted order: docs/output-formats.md).
"""

from __future__ import annotations

from typing import Any

GROUP_VERSION = "instancetype.kubevirt.io/v1beta1"
KIND = "VirtualMachineClusterInstancetype"


def _instancetype(name: str, cpu: int, memory: str, extra: dict[str, Any] | None = None, **metadata: Any) -> dict:
    spec: dict[str, Any] = {"cpu": {"guest": cpu}, "memory": {"guest": memory}}
    spec.update(extra or {})
    return {"apiVersion": GROUP_VERSION, "kind": KIND, "metadata": {"name": name, **metadata}, "spec": spec}


# client-go jsonpath_test.go's data, under spec.data
TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [
        {"name": "one", "value": 1},
        {"name": "two", "value": 2.02},
        {"name": "three", "value": 3.03},
        {"name": "four", "value": 4.04},
    ],
}
STORE = {
    "Name": "jsonpath",
    "Book": [
        {"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey", "Price": 8.95},
        {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour", "Price": 12.99},
        {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick", "Price": 8.99},
    ],
    "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": True}, {"Color": "green", "Price": 20.01, "IsNew": False}],
    "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
    "Employees": {"jason": "manager", "dan": "clerk"},
}
POINTS = [
    {"id": "i1", "x": 4, "y": -5},
    {"id": "i2", "x": -2, "y": -5, "z": 1},
    {"id": "i3", "x": 8, "y": 3},
    {"id": "i4", "x": -6, "y": -1},
    {"id": "i5", "x": 0, "y": 2, "z": 1},
    {"id": "i6", "x": 1, "y": 4},
    {"id": "i7", "x": None, "y": 4},
]
SHAPES = {
    "count": 3,
    "ratio": 0.25,
    "big": 1e21,
    "small": 1e-7,
    "whole": 2.0,
    "flag": True,
    "nothing": None,
    "text": 'héllo "quoted" <b> & \u2028',
    "list": [1, "two", None, {"k": "v"}, [3, 4]],
    "empty": {},
    "emptyList": [],
    "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
    "secret": "aGVsbG8=",
}

MEDIUM = _instancetype(
    "u1.medium",
    1,
    "4Gi",
    {"data": TYPES, "store": STORE, "points": POINTS, "shapes": SHAPES},
    labels={"instancetype.kubevirt.io/class": "general.purpose", "instancetype.kubevirt.io/size": "medium"},
    annotations={"note": "a <b> & c", "kubernetes.io/hostname": "host-1"},
    managedFields=[{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {}}}],
)
LARGE = _instancetype(
    "u1.large",
    2,
    "8Gi",
    {"shapes": {"count": 10, "ratio": 1.5, "flag": False, "ports": [{"name": "ssh", "port": 22}], "text": ""}},
    labels={"instancetype.kubevirt.io/class": "general.purpose", "instancetype.kubevirt.io/size": "large"},
)
SMALL = _instancetype("cx1.small", 1, "2Gi", {"shapes": {"count": -1, "list": []}}, labels={"tier": "b"})
# sorter_test.go's shapes: a value some objects lack, quantities, mixed types
SORTING = [
    _instancetype("b", 4, "512Mi", {"sort": {"n": 2, "q": "1Gi", "s": "b", "f": 1.5, "mixed": 1}}),
    _instancetype("a", 2, "2Gi", {"sort": {"n": 10, "q": "900Mi", "s": "a", "f": 0.5, "mixed": "x"}}),
    _instancetype("d", 8, "1Gi", {"sort": {}}),
    _instancetype("c", 1, "64Gi", {"sort": {"n": -1, "q": "2", "s": "C", "f": 1e3, "map": {"a": 1}, "list": [1]}}),
    _instancetype("e", 16, "16Gi", {}),
]

ITEMS: dict[str, list[dict]] = {
    "catalog": [MEDIUM, LARGE, SMALL],
    "medium": [MEDIUM],
    "none": [],
    "sorting": SORTING,
    "sorting-many": [
        _instancetype(f"t{i:02d}", (i * 7) % 5, f"{(i * 3) % 7 + 1}Gi", {"sort": {"n": (i * 5) % 4}} if i % 3 else {})
        for i in range(20)
    ],
}

J = "jsonpath="
G = "go-template="
C = "custom-columns="
S = {"single": True}

# (output, items, options)
CASES: list[tuple[str, str, dict[str, Any]]] = []


def _add(outputs: list[str], items: str = "medium", **options: Any) -> None:
    opts = {"single": True, **options} if items == "medium" else options
    CASES.extend((output, items, opts) for output in outputs)


# ---- client-go util/jsonpath (jsonpath_test.go), on one object ------------------------------------------------
_add(
    [
        J + "{ .spec.data.bools }",
        J + "{ .spec.data.bools[0] }",
        J + "{ .spec.data.bools[-1] }",
        J + "{ .spec.data.bools[0:2] }",
        J + "{ .spec.data.bools[:4:2] }",
        J + "{ .spec.data.integers }",
        J + "{ .spec.data.integers[-2] }",
        J + "{ .spec.data.integers[:4:2] }",
        J + "{ .spec.data.floats }",
        J + "{ .spec.data.floats[-2] }",
        J + "{ .spec.data.floats[0:2] }",
        J + "{ .spec.data.strings }",
        J + "{ .spec.data.strings[:4:2] }",
        J + "{ .spec.data.interfaces }",
        J + "{ .spec.data.interfaces[0:2] }",
        J + "{ .spec.data.maps }",
        J + "{ .spec.data.maps[-2] }",
        J + "{ .spec.data.maps[1::2] }",
        J + "hello jsonpath",
        J + '{"{"}',
        J + "{.spec.data.integers[1,3]}",
        J + "hello {.spec.store.Name}",
        J + "{$.spec.store.Labels.web/html}",
        J + "{$.spec.store.Employees.jason}",
        J + "{.spec.store.Labels.k8s-app}",
        J + "{.spec.store.Bicycle[*].Color}",
        J + "{.spec.store.Book[*].Author}",
        J + "{............................................................Price}",
        J + "{.spec.store.Bicycle}",
        J + '{range .spec.store.Bicycle[*]}{ @ }{ " " }{end}',
        J + "{.spec.store.Book[-1:]}",
        J + "{..Book[2]}",
        J + "{.spec.store.Bicycle[?(@.IsNew==true)]}",
        J + "{.hello}",
        J + "before-{.hello}after",
        J + "{hello}",
        J + "{.spec.store.Labels[0]}",
        J + "{.spec.store.Book[?(@.Price<>10)]}",
        J + "{range .spec.store.Labels.*}{@}{end}{end}",
        J + "{.spec.points[?(@.z)].id}",
        J + "{.spec.points[0]['id']}",
        J + "{.spec.points[-1]['x']}",
        J + "{.spec.points[?(@.x>0)].id}",
        J + "{.spec.points[?(@.y<=-5)].id}",
        J + '{.spec.points[?(@.id=="i3")].x}',
        J + "{.metadata.annotations.kubernetes\\.io/hostname}",
        J + "{.spec.points[?(@.x)].id}",
        J + "{.spec.shapes}",
        J + "{.spec.shapes.text}",
        J + "{.spec.shapes.big} {.spec.shapes.small} {.spec.shapes.whole} {.spec.shapes.ratio}",
        J + "{.spec.shapes.nothing}",
        J + "{.spec.shapes.list}",
        J + "{.spec.shapes.list[*]}",
        J + "{.spec.shapes.count[0]}",
        J + "{.spec.shapes[?(@.x)]}",
        J + "{.spec.shapes.ports[1:0]}",
        J + "{.spec.shapes.ports[::-1]}",
        J + "{.spec.shapes.ports[5]}",
        J + "{.spec.shapes.ports[?(@.port>100)].name}",
        J + "{.spec.cpu.guest}{'\\t'}{.spec.memory.guest}{'\\n'}",
        J + "{.metadata.managedFields[0].manager}",
        J + '{"\\xff"}',
        J + "{.kind",
        J + "{.items[}",
        J + "{'unterminated}",
        J + "{range .spec.shapes.ports[*]}{.name}",
        J + "{end}",
    ]
)
_add([J + "{.hello}", J + "{.spec.store.nope.deeper}", J + "{.spec.shapes.count.deeper}"], allow=False)
_add(["jsonpath-as-json={.spec.shapes.ports[*].port}", "jsonpath-as-json={.spec.memory}"])

# ---- on lists (cli-runtime jsonpath_test.go, nodes data) -------------------------------------------------------
_add(
    [
        J + "{range .items[*]}{.metadata.name}, {end}{.kind}",
        J + '{range .items[*]}{.metadata.name}{"\\t"}{end}',
        J + "{.items[*].metadata.name}",
        J + "{.items[*]['metadata.name', 'spec.cpu']}",
        J + "{range .items[*]}[{.metadata.name}, {.spec.cpu}] {end}",
        J + "{.items[?(@.spec.cpu.guest==1)].metadata.name}",
        J + "{.items[?(@.spec.shapes.count>2)].metadata.name}",
        J + "{.items[?(@.spec.shapes.flag)].metadata.name}",
        J + "{.items[0].metadata.name} {@.kind} {$.kind}",
        J + "{.items[5].metadata.name}",
        J + "{.items[*].spec.shapes.count.deeper}",
        J + "{.metadata}",
        J + "{.items[*].metadata.labels.instancetype\\.kubevirt\\.io/size}",
    ],
    "catalog",
)
_add([J + "{range .items[*]}{.metadata.name}{end}", J + "{.items[*].metadata.name}", J + "{.items}"], "none")

# ---- go-template: cli-runtime template_test.go and Go's text/template exec_test.go, adapted ------------------
_add(
    [
        G + "{{ .spec.shapes.secret | base64decode }}",
        G + '{{ base64decode "!!" }}',
        G + "{{ eq .spec.cpu.guest 1}}",
        G + "{{.metadata.name}}",
        G + "{{.spec.shapes}}",
        G + "{{.spec.shapes.list}}",
        G + "{{.spec.shapes.nothing}}",
        G + "{{.spec.shapes.big}} {{.spec.shapes.small}} {{.spec.shapes.whole}} {{.spec.shapes.ratio}}",
        G + "{{.spec.shapes.missing}}",
        G + "{{.spec.shapes.missing.deeper}}",
        G + "{{.metadata.name.x}}",
        G + "{{.spec.shapes.nothing.x}}",
        G + "{{.metadata.name 1}}",
        G + "{{call .metadata.name}}",
        G + "{{call .spec.shapes.nothing}}",
        G + "{{call nil}}",
        G + "{{len .spec.shapes.missing}}",
        G + "{{len .spec.shapes.nothing}}",
        G + "{{len .spec.shapes.count}}",
        G + "{{len .spec.shapes.text}}",
        G + "{{html .spec.shapes.missing}}",
        G + "{{html .spec.shapes.text}}",
        G + '{{js .spec.shapes.text}} {{js "a\'b\\"c<d>&=\\u2028\\x01"}}',
        G + "{{js .spec.shapes.missing}} {{urlquery .spec.shapes.missing}}",
        G + '{{urlquery "a b&c/é"}} {{urlquery 1 2}}',
        G + "{{1i}} {{1+7i}} {{-1.5i}} {{0i}} {{1e3i}}",
        G + '{{printf "%v %T" 1i 1i}} {{printf "%.2f" 1+2i}}',
        G + "{{eq 1i 1i}}",
        G + "{{1.5}} {{1e3}} {{0x10}} {{0o17}} {{0b101}} {{1_000}} {{'a'}} {{'\\n'}} {{-0}} {{.5}}",
        G + "{{0x1p4}} {{1e100}} {{-1e-100}} {{9223372036854775807}} {{9223372036854775808}}",
        G + "{{1e10000}}",
        G + "{{0x1p99999}}",
        G + "{{-1e10000}}",
        G + '{{"\\xff"}}',
        G + '{{"\\377\\x41"}} {{len "\\xff"}} {{printf "%q" "\\xff"}}',
        G + '{{print "a" 1 2 "b" 3.5 nil true}}',
        G + "{{println 1 2}}",
        G + '{{define "a"}}x{{end}}{{define "a"}}y{{end}}{{template "a"}}',
        G + '{{define "a"}}x{{end}}{{template "a"}}{{define "a"}}{{end}}',
        G + '{{define "a"}}{{end}}{{define "a"}}y{{end}}{{template "a"}}',
        G + '{{define "output"}}body{{end}}',
        G + '{{define "output"}}body{{end}}main',
        G + '{{template "nope"}}',
        G + '{{block "b" .metadata}}{{.name}}{{end}}',
        G + '{{define "t"}}{{.}}{{end}}{{template "t" .spec.cpu.guest}}',
        G + "{{range .spec.data.integers}}{{.}},{{end}}",
        G + "{{range $i, $v := .spec.data.strings}}{{$i}}={{$v}};{{end}}",
        G + "{{range $k, $v := .spec.store.Labels}}{{$k}}={{$v}};{{end}}",
        G + "{{range .spec.shapes.emptyList}}x{{else}}empty{{end}}",
        G + "{{range 3}}{{.}}{{end}}",
        G + "{{range $i := 3}}{{$i}}{{end}}",
        G + "{{range $i, $j := 3}}{{$i}}{{end}}",
        G + "{{range .spec.shapes.count}}{{.}}{{end}}",
        G + "{{range .spec.shapes.text}}{{.}}{{end}}",
        G + "{{range .spec.data.integers}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}",
        G + "{{range .spec.data.integers}}{{if eq . 3}}{{continue}}{{end}}{{.}}{{end}}",
        G + "{{break}}",
        G + "{{if .spec.shapes.flag}}yes{{else}}no{{end}}",
        G + "{{if .spec.shapes.emptyList}}yes{{else if .spec.shapes.empty}}map{{else}}no{{end}}",
        G + "{{with .spec.shapes.missing}}x{{else with .spec.cpu}}{{.guest}}{{end}}",
        G + "{{with $x := .spec.cpu.guest}}{{$x}}{{end}}",
        G + "{{$x := 1}}{{$x = 2}}{{$x}}",
        G + "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}",
        G + "{{$}}",
        G + "{{$.kind}}",
        G + "{{$x}}",
        G + '{{.spec.cpu.guest | printf "%d-%d" 1}}',
        G + '{{"x" | printf "%s"}}',
        G + '{{and 1 0}} {{and 1 2}} {{or 0 2}} {{or 0 ""}} {{not 0}} {{not .spec.shapes.nothing}}',
        G + "{{and}}",
        G + "{{not 1 2}}",
        G + '{{eq .spec.cpu.guest 1 2}} {{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt 1.5 1.2}} {{ge "a" "b"}}',
        G + "{{eq .spec.shapes.ratio 0.25}} {{eq .spec.shapes.count 3}} {{lt .spec.shapes.count 4}}",
        G + '{{eq 1 "a"}}',
        G + "{{lt true false}}",
        G + "{{eq .spec.shapes.list .spec.shapes.list}}",
        G + "{{eq .spec.shapes.missing 1}}",
        G + "{{eq .spec.shapes.nothing .spec.shapes.missing}}",
        G + "{{lt .spec.shapes.ratio 1}}",
        G + '{{index .spec.data.strings 1}} {{index .spec.store.Labels "k8s-app"}} {{index .spec.store.Labels "x"}}',
        G + "{{index .spec.data.strings 9}}",
        G + "{{index .spec.data.strings -1}}",
        G + '{{index .spec.data.strings "a"}}',
        G + "{{index .spec.shapes.text 1}}",
        G + "{{index nil 1}}",
        G + "{{index .spec.shapes.missing 1}}",
        G + "{{index .spec.shapes.count 1}}",
        G + "{{index .spec.store.Labels 1}}",
        G + '{{slice "abcdef" 1 3}} {{slice .spec.data.strings 1}} {{slice .spec.data.strings 1 2 3}}',
        G + '{{slice "abc" 2 1}}',
        G + '{{slice "abc" 1 2 3}}',
        G + "{{slice .spec.shapes.count 1}}",
        G + "{{.spec.cpu.guest | len}}",
        G + "{{nosuch}}",
        G + "{{.kind",
        G + "{{.kind}",
        G + "{{if}}{{end}}",
        G + "{{end}}",
        G + "{{else}}",
        G + "{{range .items}}",
        G + "{{.kind | 3}}",
        G + "{{3 | printf}}",
        G + "{{(1)}} {{(.spec).cpu.guest}} {{(nil)}}",
        G + "{{nil}}",
        G + "{{nil.x}}",
        G + "{{.spec.cpu.guest.x.y}}",
        G + "{{/* comment */}}{{.kind}}",
        G + "{{- /* comment */ -}} x",
        G + "{{/* unclosed",
        G + "{{/*x*/ .kind}}",
        G + " a {{- .kind -}} b ",
        G + "{{-3}} {{- 3}} {{3 -}} {{ -3 }}",
        G + "{{.Method 1}}",
        G + "{{'ab'}}",
        G + '{{"unterminated}}',
        G + "{{`raw\nstring`}}",
        G + "{{1 2}}",
        G + "{{$x := 1}}{{$x := 2}}{{$x}}",
        G + "{{$x, $y := 1}}",
        G + "{{range $x, $y, $z := .spec.data.integers}}{{end}}",
        G + "{{with $x := 1}}{{end}}{{$x}}",
        G + "{{.spec.data.maps}}",
        G + "{{range .spec.data.maps}}{{.name}}:{{.value}} {{end}}",
        G + '{{template "x" 1 2}}',
        G + "{{if 1}}a{{else}}b{{else}}c{{end}}",
        G + "{{range .spec.data.integers}}{{end}}{{continue}}",
        G + "{{printf}}",
        G + "{{printf 1}}",
        G + '{{exists . "spec" "shapes" "ports" 0}} {{exists . "spec" "nope"}} {{exists .spec.data.strings 9}}',
        G + "{{.spec.shapes.flag.x}}",
        G + "{{.spec.shapes.list.x}}",
        G + "{{range .spec.shapes.list}}[{{.}}]{{end}}",
        G + "{{index .spec.shapes.list 2}}|{{index .spec.shapes.list 3}}",
        G + '{{printf "%v|%s|%d" .spec.shapes.nothing .spec.shapes.nothing .spec.shapes.nothing}}',
        G + '{{printf "%T %T %T %T %T" .spec.shapes.count 1 .spec.shapes.ratio .spec.shapes.list .spec.shapes}}',
        G + '{{printf "%T" .spec.shapes.missing}} {{printf "%v" .spec.shapes.missing}}',
        G + '{{range .spec.data.floats}}{{printf "%T=%v " . .}}{{end}}{{printf "%T" .spec.shapes.whole}}',
    ]
)
_add(
    [
        G + "{{.spec.shapes.missing}}",
        G + "{{.spec.shapes.missing.deeper}}",
        G + '{{index .spec.store.Labels "x"}}',
        G + "{{range .items}}{{.x}}{{end}}",
    ],
    allow=False,
)
_add(
    [
        G + '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}',
        G + "{{.kind}} {{len .items}}",
        G + "{{range .items}}{{.spec.shapes.missing.deeper}} {{end}}",
        G + '{{range .items}}{{.metadata.name}}:{{.spec.shapes.count | printf "%03d"}} {{end}}',
        G + "{{range .items}}{{.metadata.name}} {{len .spec.shapes.list}}{{end}}",
        G + "{{range .items}}{{.metadata.name}} {{.metadata.name.x}}{{end}}",
        G + '{{range .items}}{{.metadata.name}}{{end}}{{template "nope"}}',
    ],
    "catalog",
)
_add([G + "{{range .items}}x{{else}}none{{end}}", G + "{{len .items}}", G + "{{.items}}"], "none")

# ---- Go's text/template parse tests (parse/parse_test.go errorTests, and a few that parse) --------------------
_add(
    [
        G + "line1\n{{",
        G + "line1\n{{define `x`}}line2\n{{",
        G + 'line1\n{{"x"\n"y"\n',
        G + "{{\n\n\n\n\n",
        G + "line1\n{{\nx\n}}",
        G + "{{foo}}",
        G + "{{/*}}",
        G + "{{/*\nhello\n}}",
        G + "{{.X (1 2 3}}",
        G + "{{.X 1 2 3 ) }}",
        G + "{{(.X 1 2 3",
        G + "{{`x`3}}",
        G + "{{a#}}",
        G + "{{'a}}",
        G + '{{"a}}',
        G + "{{`a}}",
        G + "{{0xi}}",
        G + "{{define `a`}}a{{end}}{{define `a`}}b{{end}}",
        G + "{{range .X}}",
        G + "{{$x := 23}}{{with $x.y := 3}}{{$x 23}}{{end}}",
        G + "{{$a,$b,$c := 23}}",
        G + "{{$a}}",
        G + "{{true.any}}",
        G + "{{12|false}}",
        G + "{{ ( ) }}",
        G + "{{ $v := `\n` }} {{",
        G + "{{range $k}}{{end}}",
        G + "{{range $k, $v}}{{end}}",
        G + "{{range $k,}}{{end}}",
        G + "{{range $k, $v := }}{{end}}",
        G + "{{range $k, .}}{{end}}",
        G + "{{range $k, 123 := .}}{{end}}",
        G + "{{range .spec.data.integers}}{{end}}{{break}}",
        G + "{{break 1}}",
        G + "{{if .spec.cpu}}{{else if .spec.memory}}x{{else}}y{{end}}",
        G + "{{with .spec.cpu}}{{.guest}}{{else with .spec.memory}}{{.guest}}{{end}}",
        G + '{{.spec.cpu.guest|printf "%d"|printf "%s"}}',
        G + "{{3 | len}}",
        G + "{{$x := .spec.cpu}}{{$x.guest}}",
        G + '{{ .spec.cpu.guest }}{{- " x " -}}{{ .spec.memory.guest }}',
        G + "{{`a`}}{{\"\\u00e9\"}}{{'\\u00e9'}}{{'\\x41'}}",
        G + "{{0x1P-2}} {{1e-3}} {{-0x10}} {{+10}} {{08}} {{0_1}} {{1__0}}",
        G + "{{1.}} {{.1e1}} {{0b}} {{0x}} {{1e}} {{1+}} {{1+2}} {{1+2j}}",
    ]
)

# ---- Go's fmt in printf (fmt_test.go; issue 34's limits) -------------------------------------------------------
_add(
    [
        G + '{{printf "%999999999d" 1}}',
        G + '{{printf "%1000001d" 1}}',
        G + '{{printf "%1000000d|" 1 | len}}',
        G + '{{printf "%*d" 99999999 1}}',
        G + '{{printf "%*d" -3 1}}|',
        G + '{{printf "%*d" "x" 1}}',
        G + '{{printf "%0999999999d" 1}}',
        G + '{{printf "%-999999999s" "a"}}',
        G + '{{printf "%.*f" 99999999 1.5}}',
        G + '{{printf "%.999999999f" 1.5}}',
        G + '{{printf "%.*f" -1 1.5}}',
        G + '{{printf "%c" 1114112}} {{printf "%c" -1}} {{printf "%c" 65}} {{printf "%c" 55296}}',
        G + '{{printf "%U" -1}} {{printf "%U" 65}} {{printf "%#U" 9731}} {{printf "%U" 1114112}}',
        G + '{{printf "%x" 1e308}} {{printf "%X" 1.5}} {{printf "%x" -0.5}} {{printf "%.3x" 1.0}}',
        G + '{{printf "%b" 1.0}} {{printf "%b" 5}} {{printf "%o %O %#o" 8 8 8}}',
        G + '{{printf "%e %E %.2e %g %G %.3g" 1234.5678 1e-7 0.000123 1e21 1e-5 123456.0}}',
        G + '{{printf "%f %.0f %.1f %5.1f %-8.2f| %+f % f" 1.5 2.5 0.05 3.14159 2.0 1.0 1.0}}',
        G + '{{printf "%v %v %v %v" 1e6 1e20 1e21 123456789.0}}',
        G + '{{printf "%d %+d % d %5d %-5d| %05d %x %X %#x %o %b" 42 42 42 42 42 -42 255 255 255 8 5}}',
        G + '{{printf "%s %q %x %X % x %10s|%-10s|%.2s" "hi" "hi" "hi" "hi" "hi" "hi" "hi" "hello"}}',
        G + '{{printf "%q %+q %#q %q" "é\\n" "é" "a`b" 65}}',
        G + '{{printf "%t %v %s" true false true}}',
        G + '{{printf "%d %s" "x" 1}}',
        G + '{{printf "%!" 1}} {{printf "%z" 1}} {{printf "%" }}',
        G + '{{printf "%d"}} {{printf "%d %d" 1}} {{printf "x" 1 2}}',
        G + '{{printf "%[2]d %[1]d" 1 2}} {{printf "%[3]d" 1}} {{printf "%[x]d" 1}} {{printf "%[1]*d" 3 1}}',
        G + '{{printf "%v" .spec.shapes.ports}} {{printf "%d" .spec.data.integers}} {{printf "%s" .spec.data.strings}}',
        G + '{{printf "%v" .spec.store.Labels}} {{printf "%d" .spec.store.Labels}} {{printf "%x" .spec.data.strings}}',
        G + '{{printf "%6.2f|%-6.2v|%06.2f" 3.14159 3.14159 -3.14159}}',
        G + '{{printf "%#v" 1}}',
        G + '{{printf "%.3d %.0d|%8.3d" 7 0 7}}',
        G + '{{printf "%5t|%-5t|" true false}} {{printf "%5c|%-3c|" 65 66}}',
        G + '{{printf "%.1e %.0e %#.0e %#g %#.3g" 1.25 5.0 5.0 1.0 1.0}}',
        G + '{{printf "%v %v %v" .spec.shapes.nothing nil 1i}}',
        G + '{{printf "%d %v" 9223372036854775807 -9223372036854775808}}',
        G + '{{printf "%x %X %o" -255 -255 -8}}',
        G + '{{printf "%08.3f|%+08d|%-08d|%x" -3.5 42 42 "é"}}',
        G + '{{printf "%s" 1.5}} {{printf "%d" 1.5}} {{printf "%t" 1}} {{printf "%f" 1}} {{printf "%c" "a"}}',
    ]
)

# ---- custom-columns (kubectl get customcolumn_test.go) --------------------------------------------------------
_add(
    [
        C + "NAME:.metadata.name,CPU:.spec.cpu.guest",
        C + "NAME:metadata.name,SIZE:{.metadata.labels.instancetype\\.kubevirt\\.io/size}",
        C + "NAME:{.metadata.name},PORTS:.spec.shapes.ports[*].port,NAMES:.spec.shapes.ports[*].name",
        C + "LIST:.spec.shapes.list,NIL:.spec.shapes.nothing,FLOAT:.spec.shapes.big,EMPTY:.spec.shapes.empty",
        C + "NAME:.metadata.name,MISSING:.spec.nope.deeper",
        C + "BAD",
        C + "X:{.a}{.b}",
        C + "NAME:.metadata.name,P:.spec.shapes.ports[1].name",
        C + "NAME:.metadata.name,C:.spec.shapes.count[0]",
        C + "NAME:.metadata.name,F:.spec.shapes.ports[?(@.port>2)].name",
        C + "NAME:.metadata.name,T:.spec.shapes.text",
    ],
    "catalog",
)
_add([C + "NAME:.metadata.name,CPU:.spec.cpu.guest"], "catalog", no_headers=True)
_add([C + "NAME:.metadata.name,CPU:.spec.cpu.guest"], "none")
_add([C + "NAME:.metadata.name,CPU:.spec.cpu.guest"], "none", no_headers=True)
_add([C + "NAME:.metadata.name,CPU:.spec.cpu.guest"])

# ---- -o json/yaml/name/kyaml and the format list ---------------------------------------------------------------
_add(["json", "yaml", "name", "kyaml"])
_add(["json", "yaml", "name", "kyaml"], "catalog")
_add(["json", "yaml", "name", "kyaml"], "none")
_add(["xml", "jsonpath", "go-template", "custom-columns", "foo=bar", "jsonpath-file", "JSON"])

# ---- --sort-by (kubectl get sorter_test.go) -------------------------------------------------------------------
for _path in (
    ".spec.sort.n",
    ".spec.sort.q",
    ".spec.sort.s",
    ".spec.sort.f",
    "{.metadata.name}",
    "metadata.name",
    ".spec.memory.guest",
    ".spec.cpu.guest",
    ".spec.sort.nope",
    ".spec.sort.mixed",
    ".spec.sort.map",
    ".spec.sort.list",
    ".spec.sort",
    ".spec.sort[",
):
    CASES.append((C + "NAME:.metadata.name", "sorting", {"sort_by": _path, "no_headers": True}))
CASES.append((C + "NAME:.metadata.name", "sorting-many", {"sort_by": ".spec.sort.n", "no_headers": True}))
CASES.append((C + "NAME:.metadata.name", "sorting-many", {"sort_by": ".spec.cpu.guest", "no_headers": True}))
CASES.append((J + "{.items[*].metadata.name}", "sorting", {"sort_by": ".spec.sort.n"}))
CASES.append(("name", "sorting", {"sort_by": ".spec.sort.q"}))
CASES.append((C + "NAME:.metadata.name", "none", {"sort_by": ".spec.sort.n"}))
