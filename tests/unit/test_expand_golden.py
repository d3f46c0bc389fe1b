"""Golden tests of ``kubectl instancetype expand`` (offline: everything from files).

Each case is a directory ``tests/golden/expand/<case>/`` with

* ``vm.yaml``: the input (one or more documents; instance type and preference documents in it are used too);
* ``instancetype.yaml`` / ``preference.yaml`` (optional): passed as ``--instancetype-file`` / ``--preference-file``;
* ``args`` (optional): more flags, one shell-quoted line;
* ``expected.yaml`` (stdout of a YAML expansion, exit 0), ``expected.stdout`` (stdout of ``--diff``, ``--explain``
  or ``-o json``, exit 0) or ``expected.stderr`` (stderr, exit 1, nothing on stdout).

Regenerate after a deliberate change with ``KUBECTL_INSTANCETYPE_UPDATE_GOLDEN=1`` (then review the diff), like
black's test data. When KubeVirt's reference expansion is built (``hack/kubevirtref/build.sh``), the expanded
cases are also compared with it, so the expected files are KubeVirt's output and not only ours.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "expand"
CASES = sorted(path.name for path in GOLDEN.iterdir() if path.is_dir())
UPDATE = os.environ.get("KUBECTL_INSTANCETYPE_UPDATE_GOLDEN") == "1"
OFFLINE_NOTE = (
    "checked offline (no kubeconfig): instance type and preference rules, input devices, interface bindings and "
    "launch security firmware only\n"
)


def _argv(case: Path) -> list[str]:
    argv = ["expand", "-f", str(case / "vm.yaml")]
    for name, flag in (("instancetype.yaml", "--instancetype-file"), ("preference.yaml", "--preference-file")):
        if (case / name).exists():
            argv += [flag, str(case / name)]
    if (case / "args").exists():
        argv += shlex.split((case / "args").read_text())
    return argv


def _stdout_file(case: Path) -> str:
    args = (case / "args").read_text().split() if (case / "args").exists() else []
    # expected.yaml files must be YAML as our printer writes it (test_goyaml round-trips every golden one)
    return "expected.stdout" if {"--diff", "--explain", "json"} & set(args) else "expected.yaml"


@pytest.mark.parametrize("name", CASES)
def test_expand_golden(name: str) -> None:
    case = GOLDEN / name
    result = run_cli(_argv(case))
    if UPDATE:
        for stale in ("expected.yaml", "expected.stdout", "expected.stderr"):
            (case / stale).unlink(missing_ok=True)
        if result.exit_code == 0:
            (case / _stdout_file(case)).write_text(result.stdout)
        else:
            (case / "expected.stderr").write_text(result.stderr)
    if (case / "expected.stderr").exists():
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", (case / "expected.stderr").read_text())
    else:
        # no cluster is configured here: one line says what was checked without KubeVirt's verdict
        skipped = "--skip-checks" in _argv(case)  # KubeVirt's expand alone: nothing was checked
        assert (result.exit_code, result.stderr) == (0, "" if skipped else OFFLINE_NOTE)
        assert result.stdout == (case / _stdout_file(case)).read_text()


def _reference_binary() -> Path | None:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kubectl-instancetype" / "kubevirtref"
    found = sorted(cache.glob("*/kubevirtref")) if cache.is_dir() else []
    return found[-1] if found else None


def _local_objects(case: Path) -> tuple[dict, dict | None, dict | None]:
    docs = list(yaml.safe_load_all((case / "vm.yaml").read_text()))
    vm = next(doc for doc in docs if doc["kind"] == "VirtualMachine")
    specs: dict[str, dict | None] = {"instancetype": None, "preference": None}
    for key in specs:
        file = case / f"{key}.yaml"
        matcher = vm["spec"].get(key)
        if matcher is None:
            continue
        if file.exists():
            specs[key] = yaml.safe_load(file.read_text())["spec"]
        else:
            specs[key] = next(d["spec"] for d in docs if d["metadata"]["name"] == matcher["name"] and d is not vm)
    return vm, specs["instancetype"], specs["preference"]


def test_golden_expansions_are_kubevirts() -> None:
    binary = _reference_binary()
    if binary is None:
        pytest.skip("KubeVirt's reference expansion is not built (hack/kubevirtref/build.sh)")
    cases, expected = [], []
    for name in CASES:
        case = GOLDEN / name
        args = (case / "args").read_text().split() if (case / "args").exists() else []
        # only plain expansions (checks off or passing); --diff/--explain/-o json and other cluster defaults aside
        if not (case / "expected.yaml").exists() or set(args) - {"--skip-checks"}:
            continue
        vm, instancetype, preference = _local_objects(case)
        cases.append({"vm": vm, "instancetype": instancetype, "preference": preference, "arch": "amd64"})
        expected.append(yaml.safe_load((case / "expected.yaml").read_text()))
    done = subprocess.run([str(binary), "expand"], input=json.dumps(cases), capture_output=True, text=True, check=True)
    results = json.loads(done.stdout)
    assert len(cases) > 10
    for case, want, got in zip(cases, expected, results, strict=True):
        assert got.get("vm") == want, case["vm"]["metadata"]["name"]
