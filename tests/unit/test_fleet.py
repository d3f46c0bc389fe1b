"""The fleet's parts that need no server: which contexts are selected, the bounded fan-out with one deadline per
context, and the merged printing (a CONTEXT column, one List whose items carry their context)."""

from __future__ import annotations

import io
import json
import threading
import time

import pytest
import yaml

from kubectl_instancetype.env import Environment
from kubectl_instancetype.errors import ConfigurationError, UsageError
from kubectl_instancetype.kube.fleet import ContextTimeout, Fleet, select_contexts
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, KubeconfigFiles
from kubectl_instancetype.output.capture import Capture, capturing
from kubectl_instancetype.output.fleet import CONTEXT_ANNOTATION, print_fleet
from kubectl_instancetype.usecases.fleet import ContextResult, FleetResult


def _files(*names: str) -> KubeconfigFiles:
    return KubeconfigFiles(paths=["/k"], current_context=names[0], contexts={n: {"cluster": n} for n in names})


@pytest.mark.parametrize(
    ("names", "pattern", "every", "expected"),
    [
        ((), None, True, ["prod-eu", "prod-us", "dev"]),
        ((), "prod", False, ["prod-eu", "prod-us"]),
        ((), "^prod-us$", False, ["prod-us"]),
        (("dev",), "eu", False, ["prod-eu", "dev"]),  # the kubeconfig's order, whatever the flags' order
        (("dev", "prod-eu"), None, False, ["prod-eu", "dev"]),
    ],
)
def test_select_contexts(names, pattern, every, expected):
    assert select_contexts(_files("prod-eu", "prod-us", "dev"), names, pattern, every) == expected


def test_select_contexts_refusals():
    files = _files("a", "b")
    with pytest.raises(ConfigurationError, match="context was not found for specified context: c"):
        select_contexts(files, ("a", "c"), None, False)
    with pytest.raises(ConfigurationError, match='no kubeconfig context matching "z" to run on'):
        select_contexts(files, (), "z", False)
    with pytest.raises(UsageError, match='invalid argument "\\(" for "--contexts" flag'):
        select_contexts(files, (), "(", False)


def _fleet(names: tuple[str, ...], **kwargs) -> Fleet:
    return Fleet(ConnectionOptions(), {}, "/nonexistent", every=True, files=_files(*names), **kwargs)


def test_fan_out_is_bounded_and_keeps_the_contexts_order():
    running, peak, lock = [0], [0], threading.Lock()

    def work(session):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return session.options.context.upper()

    names = tuple(f"c{i}" for i in range(7))
    outcomes = _fleet(names, parallel=3).run(work)
    assert [o.context for o in outcomes] == list(names)
    assert [o.value for o in outcomes] == [n.upper() for n in names]
    assert peak[0] == 3


def test_a_context_past_its_deadline_fails_alone_and_is_not_waited_for():
    release = threading.Event()

    def work(session):
        if session.options.context == "slow":
            release.wait(10)
        if session.options.context == "broken":
            raise ConfigurationError("boom")
        return 0

    began = time.monotonic()
    outcomes = _fleet(("fast", "slow", "broken"), timeout=0.3).run(work)
    took = time.monotonic() - began
    release.set()
    assert outcomes[0].value == 0 and outcomes[0].error is None
    assert isinstance(outcomes[1].error, ContextTimeout)
    assert str(outcomes[1].error.message) == "no answer within 0.3s (--context-timeout)"
    assert isinstance(outcomes[2].error, ConfigurationError)
    assert took < 5  # the slow context's thread was left behind, not joined


def test_each_contexts_requests_are_bounded_by_its_deadline():
    fleet = _fleet(("a",), timeout=2.0)
    assert fleet.session("a").options.request_timeout == 2.0
    fleet = Fleet(
        ConnectionOptions(request_timeout=1.0), {}, "/nonexistent", every=True, timeout=2.0, files=_files("a")
    )
    assert fleet.session("a").options.request_timeout == 1.0


def _captured(context: str, tables=(), objects=(), text="", stderr="") -> Capture:
    capture = Capture()
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    with capturing(env, capture) as inner:
        from kubectl_instancetype.output.printers import print_objects
        from kubectl_instancetype.output.table import render_table

        for headers, rows in tables:
            inner.stdout.write(render_table(headers, rows))
        if objects:
            print_objects(inner, "json", list(objects), [])
        inner.stdout.write(text)
        inner.stderr.write(stderr)
    assert env.stdout.getvalue() == ""  # nothing reached the command's own streams
    return capture


def test_tables_merge_with_a_context_column_and_failures_warn_once():
    captures = {
        "a": _captured("a", tables=[(("NAME", "CPU"), [["u1.small", "1"], ["u1.medium", "1"]])]),
        "b": _captured("b", tables=[(("NAME", "CPU"), [["u1.large", "2"]])], stderr="Warning: deprecated\n"),
    }
    result = FleetResult(
        (ContextResult("a", 0), ContextResult("b", 0), ContextResult("c", error=ConfigurationError("no way")))
    )
    out, err = io.StringIO(), io.StringIO()
    status = print_fleet(Environment(stdout=out, stderr=err), result, captures)
    assert status == 1
    assert out.getvalue() == (
        "CONTEXT   NAME        CPU\na         u1.small    1\na         u1.medium   1\nb         u1.large    2\n"
    )
    assert err.getvalue() == 'Warning: context "b": deprecated\nWarning: context "c": no way\n'


def test_objects_merge_into_one_list_that_round_trips():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": {"keep": "me"}}}
    captures = {"a": _captured("a", objects=[obj]), "b": _captured("b", text=yaml.safe_dump(obj))}
    out = io.StringIO()
    result = FleetResult((ContextResult("a", 0), ContextResult("b", 0)))
    assert print_fleet(Environment(stdout=out, stderr=io.StringIO()), result, captures) == 0
    document = json.loads(out.getvalue())
    assert document["kind"] == "List"
    assert [item["metadata"]["annotations"] for item in document["items"]] == [
        {"keep": "me", CONTEXT_ANNOTATION: "a"},
        {"keep": "me", CONTEXT_ANNOTATION: "b"},
    ]
    assert obj["metadata"]["annotations"] == {"keep": "me"}  # the captured object itself is not changed


def test_text_is_printed_per_context():
    captures = {"a": _captured("a", text="Name: x\n"), "b": _captured("b", text="Name: y\n")}
    out = io.StringIO()
    result = FleetResult((ContextResult("a", 0), ContextResult("b", 0)))
    print_fleet(Environment(stdout=out, stderr=io.StringIO()), result, captures)
    assert out.getvalue() == "Context:  a\nName: x\n\nContext:  b\nName: y\n"


def test_compare_finds_missing_different_and_release():
    from kubectl_instancetype.instancetype.fleetdiff import DIFFERENT, MISSING, VERSION, FieldDifference, Key, compare

    def obj(memory: str, version: str, extra: dict | None = None) -> dict:
        labels = {"instancetype.kubevirt.io/common-instancetypes-version": version, **(extra or {})}
        return {"metadata": {"name": "x", "labels": labels}, "spec": {"memory": {"guest": memory}}}

    medium, small = Key("VirtualMachineClusterInstancetype", "", "u1.medium"), Key("K", "", "u1.small")
    objects = {
        "a": {medium: obj("4Gi", "v1.7.0")},
        "b": {medium: obj("6Gi", "v1.6.0", {"app/x": "1"}), small: obj("2Gi", "v1.6.0")},
        "c": {medium: obj("4Gi", "v1.7.0"), small: obj("2Gi", "v1.6.0")},
    }
    findings = compare(["a", "b", "c"], objects, ["VirtualMachineClusterInstancetype"])
    assert [(f.key.name, f.context, f.state, f.base_context) for f in findings] == [
        ("u1.medium", "b", VERSION, "a"),
        ("u1.medium", "b", DIFFERENT, "a"),
        ("u1.small", "a", MISSING, "b"),  # its base is the first context that has it
    ]
    assert findings[0].base_version == "v1.7.0" and findings[0].version == "v1.6.0"
    assert findings[1].fields == (
        FieldDifference('metadata.labels["app/x"]', None, "1"),
        FieldDifference("spec.memory.guest", "4Gi", "6Gi"),
    )


def test_a_fleet_list_imports_no_dataclasses(tmp_path):
    # the fleet's modules use records and no typing at run time: dataclasses (with inspect, ast, dis, tokenize)
    # cost a fleet run about 20 ms before its first context started
    import subprocess
    import sys

    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "a",
        "clusters": [{"name": n, "cluster": {"server": "http://127.0.0.1:1"}} for n in "ab"],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "u"}} for n in "ab"],
    }
    (tmp_path / "config").write_text(yaml.safe_dump(config))
    code = (
        "import io, sys; from kubectl_instancetype.cli.main import run;"
        "from kubectl_instancetype.env import Environment;"
        "err = io.StringIO();"
        "code = run(['list', 'vmf', '--all-contexts'],"
        " Environment(stdout=io.StringIO(), stderr=err, environ={'KUBECONFIG': sys.argv[1]}));"
        "print(code, err.getvalue().count('context \"'), sorted({'dataclasses', 'inspect'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "config")], capture_output=True, text=True)
    assert result.stdout == "1 2 []\n", result.stderr
