"""The plugin's printers against kubectl's, byte for byte with the exit code, on the same objects.

The reference is printref (hack/controlplane/printref/main.go): kubectl v1.36.3's own printer code, linked from the
module graph the kubectl binary is built from, run as ``kubectl get`` runs it once it holds the objects
(printGeneric: the printer from kubectl get's print flags, --sort-by's SortingPrinter, the v1 List of several
objects, the error through cmdutil.CheckErr). All cases go through one printref process (a kubectl run per case
would cost a process start and a request each); tests/integration/test_output_formats_differential.py holds a few
of them against the kubectl binary and a real API server.

The plugin side is its own list/get path on the same objects: an in-memory source (as the catalog source is) into
list_rows (filters, --sort-by), print_listing (the printers), and main's error line.

The cases (tests/unit/printer_cases.py) are the upstream suites adapted to instance types. Deliberate differences
(docs/output-formats.md) are applied to kubectl's side before comparing: see :func:`expected`.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from kubectl_instancetype.cli import main
from kubectl_instancetype.cli.list_options import ListOutputFlags
from kubectl_instancetype.env import Environment
from kubectl_instancetype.instancetype.listing import INSTANCETYPES, RangeFilter, SortBy
from kubectl_instancetype.output.listing import print_listing, row_function
from kubectl_instancetype.records import fields
from kubectl_instancetype.usecases.listing import Query, list_rows

from .printer_cases import CASES, ITEMS

pytestmark = [pytest.mark.filterwarnings("ignore")]


class Objects:
    """A source of fixed cluster-scoped objects (the catalog source's shape)."""

    namespace = "default"

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects

    def scan(self, query: Query, consume: Any) -> list[str]:
        for obj in self.objects:
            consume(json.loads(json.dumps(obj)), None)
        return []


def plugin(output: str, items: str, options: dict[str, Any]) -> tuple[bytes, bytes, int]:
    """What the plugin's list/get prints for these objects: (stdout, stderr, exit code)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(stdout=stdout, stderr=stderr, environ={})
    objects = ITEMS[items]
    try:
        flags = ListOutputFlags(
            output=output,
            no_headers=options.get("no_headers", False),
            sort_by=options.get("sort_by"),
            allow_missing_template_keys="true" if options.get("allow", True) else "false",
        )
        flags.validate()
        names = (objects[0]["metadata"]["name"],) if options.get("single") else ()
        table = {"table": flags.format in ("", "wide")} if "table" in [spec.name for spec in fields(Query)] else {}
        query = Query(
            what=INSTANCETYPES,
            label_selector="",
            ranges=RangeFilter(INSTANCETYPES),
            cluster_only=True,
            sort_by=SortBy(flags.sort_by) if flags.sort_by else None,
            names=names,
            **table,
        )
        row_of, columns = row_function(INSTANCETYPES, flags.format, age=False, now=0.0)
        listing = list_rows(Objects(objects), query, row_of)
        print_listing(
            env,
            listing,
            flags.format,
            columns,
            no_headers=flags.no_headers,
            in_namespace=False,
            query=query,
            allow_missing_keys=flags.allow_missing_keys,
        )
        code = 0
    except Exception as exc:  # every failure as the CLI reports it
        code = main.report_failure(env, exc)
    return (
        stdout.getvalue().encode("utf-8", "surrogateescape"),
        stderr.getvalue().encode("utf-8", "surrogateescape"),
        code,
    )


def kubectl_case(output: str, items: str, options: dict[str, Any]) -> dict[str, Any]:
    objects = ITEMS[items]
    single = options.get("single", False)
    return {
        "output": output,
        "object": objects[0] if single else objects,
        "list": not single,
        "allowMissing": options.get("allow", True),
        "noHeaders": options.get("no_headers", False),
        "sortBy": options.get("sort_by", ""),
    }


def expected(kubectl: tuple[bytes, bytes, int], case: tuple[str, str, dict[str, Any]]) -> tuple[bytes, bytes, int]:
    """kubectl's answer with the plugin's deliberate differences applied (docs/output-formats.md)."""
    stdout, stderr, code = kubectl
    output = case[0]
    if stderr.startswith(b"Field "):
        # an unsortable --sort-by value: kubectl's klog.Exitf line (its time and pid header left out by printref);
        # the plugin's one error line says the same
        stderr = b"error: " + stderr
    if output == "json":
        # the plugin writes DEL and the C1 controls as \\u00XX (test_json_output_escaping.py)
        stdout = re.sub(rb"[\x7f]|\xc2[\x80-\x9f]", lambda m: b"\\u%04x" % ord(m.group().decode()), stdout)
    return stdout, stderr, code


@pytest.fixture(scope="module")
def kubectl_answers(printref) -> list[tuple[bytes, bytes, int]]:
    return printref([kubectl_case(*case) for case in CASES])


def case_id(case: tuple[str, str, dict[str, Any]]) -> str:
    output, items, options = case
    extra = ",".join(f"{k}={v}" for k, v in sorted(options.items()) if k != "single")
    return f"{items}:{output}" + (f"[{extra}]" if extra else "")


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(case) for case in CASES])
def test_printer_matches_kubectl(kubectl_answers, index: int) -> None:
    case = CASES[index]
    want = expected(kubectl_answers[index], case)
    got = plugin(*case)
    assert got == want, case


def printf_cases(count: int, seed: int) -> list[str]:
    """``{{printf FORMAT ARGS}}`` templates drawn from every flag, width, precision and verb fmt has, on every kind
    of value a template holds (fmt_test.go's matrix, sampled)."""
    import random

    rng = random.Random(seed)
    flags = ["", "+", "-", "#", " ", "0", "-0", "+0", "# ", "#0"]
    widths = ["", "1", "5", "12", "*", "0"]
    precisions = ["", ".", ".0", ".3", ".10", ".*"]
    verbs = [*"vdsqxXobeEfFgGcUtT%", "z"]
    values = [
        *("1", "-42", "0", "255", "1.5", "-0.5", "1e21", "1e-7", "123456789.0", "3.0", '"hi"', '"é"', '""', "true"),
        *("nil", "1i", "2+3i", "'a'", "9223372036854775807", "-9223372036854775808", "1114111", "0x1p-1074"),
        *("1e308", "-0.0", "0.000001", ".spec.shapes.count", ".spec.shapes.ratio", ".spec.shapes.list"),
        *(".spec.shapes.ports", ".spec.shapes.nothing", ".spec.shapes.text", ".spec.data.strings"),
        *(".spec.data.floats", ".spec.shapes.empty", ".spec.shapes.big", ".spec.shapes.small", ".spec.data.interfaces"),
    ]
    templates = []
    for _ in range(count):
        verbs_text = "".join(
            "%" + rng.choice(flags) + rng.choice(widths) + rng.choice(precisions) + rng.choice(verbs)
            for _ in range(rng.randint(1, 2))
        )
        args = [rng.choice(values) for _ in range(rng.randint(0, 3))]
        if "*" in verbs_text:
            args.insert(0, rng.choice(["3", "-3", "99", '"x"']))
        templates.append("{{printf " + json.dumps(verbs_text) + "".join(" " + arg for arg in args) + "}}")
    return templates


def test_printf_matches_go(printref) -> None:
    """A thousand printf formats (flags, widths, precisions, verbs, argument kinds) print as Go's fmt prints them."""
    templates = printf_cases(1000, seed=29)
    cases = [("go-template=" + template, "medium", {"single": True}) for template in templates]
    answers = printref([kubectl_case(*case) for case in cases])
    mismatches = []
    for case, answer in zip(cases, answers):
        printed = plugin(*case)
        if printed != answer:
            mismatches.append((case[0], answer, printed))
    assert mismatches == []


# Cases the kubectl binary itself prints offline: `kubectl patch --local -f OBJECT -p {} -o ...` runs the same print
# flags and printers on one object without a server (a List file would be printed item by item, unlike get; patch's
# print flags have no custom-columns, and list other formats as allowed).
BINARY_CASES = [
    'go-template={{.metadata.name}} {{.spec.shapes.missing.x}}|{{printf "%999999999d|%*d|%c" 1 99999999 2 1114112}}',
    "go-template={{.metadata.name}}{{.spec.nope.x}}",
    "go-template={{len .spec.shapes.missing}}",
    'go-template={{1+7i}} {{html .spec.shapes.missing}} {{js .spec.shapes.text}} {{"\\xff"}}',
    "go-template={{1e10000}}",
    "jsonpath={.spec.nope}",
    "jsonpath={.spec.shapes.ports[5]}",
    "json",
    "kyaml",
    "name",
]


def kubectl_binary() -> Any:
    from tests.conftest import printref_binary

    binary = printref_binary()
    return None if binary is None else binary.parent.parent / "kubectl"


@pytest.mark.parametrize("allow", [True, False])
def test_the_kubectl_binary_agrees_offline(tmp_path, allow: bool) -> None:
    """The kubectl binary (hack/controlplane/build.sh) prints these as the plugin does, byte for byte."""
    import subprocess

    kubectl = kubectl_binary()
    if kubectl is None or not kubectl.is_file():
        pytest.skip("kubectl not built (run make tools, or set KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1)")
    obj = ITEMS["medium"][0]
    path = tmp_path / "object.json"
    path.write_text(json.dumps(obj))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "none")}
    for output in BINARY_CASES:
        flag = f"--allow-missing-template-keys={'true' if allow else 'false'}"
        done = subprocess.run(
            [str(kubectl), "patch", "--local", "-f", str(path), "--type", "merge", "-p", "{}", "-o", output, flag],
            capture_output=True,
            env=env,
            timeout=60,
        )
        got = plugin(output, "medium", {"single": True, "allow": allow})
        want = expected((done.stdout, done.stderr, done.returncode), (output, "medium", {}))
        assert got == want, output


def test_table_sort_errors_name_the_table_sorter() -> None:
    """The table formats sort rows as kubectl's TableSorter does (sorter.go; printref runs printGeneric's
    SortingPrinter only): the same order, and its klog line names the rows' type, [][][]reflect.Value."""
    stdout, stderr, code = plugin("", "sorting", {"sort_by": ".spec.sort"})
    assert (stdout, code) == (b"", 1)
    assert stderr == (
        b"error: Field {.spec.sort} in [][][]reflect.Value is an unsortable type: interface, err: unsortable type: "
        b"map[string]interface {}\n"
    )
    names, _, _ = plugin("name", "sorting", {"sort_by": ".spec.sort.n"})
    table, _, _ = plugin("", "sorting", {"sort_by": ".spec.sort.n", "no_headers": True})
    assert [line.split()[0] for line in table.decode().splitlines()] == [
        line.rsplit("/", 1)[1] for line in names.decode().splitlines()
    ]
