"""The GitHub workflows: actionlint (rhysd/actionlint v1.7.12, built from the Go module by hack/actionlint) finds
nothing, the release's platform matrix is plugin.yaml's platforms on native runners, and every ``run:`` step is a
command of the repository (so that what the workflows do on Linux is what ``make test`` runs here)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from hack.krew import PLUGIN_YAML, archive_name

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
# GitHub-hosted runner labels by the platform they run natively (actionlint v1.7.12's list of known labels;
# macos-13, the last Intel image with a number below 15, was retired in December 2025).
NATIVE_RUNNERS = {
    ("linux", "amd64"): {"ubuntu-latest", "ubuntu-24.04", "ubuntu-22.04"},
    ("linux", "arm64"): {"ubuntu-24.04-arm", "ubuntu-22.04-arm"},
    ("darwin", "amd64"): {"macos-15-intel", "macos-26-intel"},
    ("darwin", "arm64"): {"macos-latest", "macos-14", "macos-15", "macos-26"},
    ("windows", "amd64"): {"windows-latest", "windows-2025", "windows-2022"},
}
# What a `run:` step may start with: a command of this repository, or the installer/test runner it is run with.
REPO_COMMANDS = (
    "python -m hack.release ",
    "python -m pip install --quiet -e ",
    "python -m pytest tests/unit",
    "bash hack/",
    ".ci/run",
)


def _load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def _plugin_platforms() -> set[tuple[str, str]]:
    plugin = yaml.safe_load(PLUGIN_YAML.read_text())
    return {
        (p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]) for p in plugin["spec"]["platforms"]
    }


def _matrix(workflow: str, job: str) -> list[dict]:
    return _load(workflow)["jobs"][job]["strategy"]["matrix"]["include"]


@pytest.fixture(scope="module")
def actionlint() -> Path:
    if not shutil.which("go"):
        pytest.skip("Go is not installed: cannot build actionlint")
    result = subprocess.run(
        ["bash", str(REPO / "hack" / "actionlint" / "build.sh")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return Path(result.stdout.strip().splitlines()[-1])


def test_actionlint_finds_nothing(actionlint: Path) -> None:
    # shellcheck and pyflakes are switched off explicitly: every run: step is one command of the repository (the
    # next test), and the result must not depend on which of them a machine happens to have.
    workflows = sorted(str(path) for path in WORKFLOWS.glob("*.yml"))
    assert [Path(path).name for path in workflows] == ["ci.yml", "release.yml"]
    result = subprocess.run(
        [str(actionlint), "-shellcheck=", "-pyflakes=", "-no-color", *workflows],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_actionlint_is_the_pinned_version(actionlint: Path) -> None:
    result = subprocess.run([str(actionlint), "-version"], capture_output=True, text=True, check=False)
    expected = (REPO / "hack" / "actionlint" / "ACTIONLINT_VERSION").read_text().strip()
    assert result.stdout.splitlines()[0] == expected == "v1.7.12"


def test_actionlint_would_catch_an_unknown_runner(actionlint: Path, tmp_path: Path) -> None:
    # the check above can fail: a workflow naming the retired macos-13 image is refused
    broken = tmp_path / "release.yml"
    broken.write_text((WORKFLOWS / "release.yml").read_text().replace("runner: macos-15-intel", "runner: macos-13"))
    result = subprocess.run(
        [str(actionlint), "-shellcheck=", "-pyflakes=", "-no-color", str(broken)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert 'label "macos-13" is unknown' in result.stdout


def test_release_matrix_is_plugin_yamls_platforms_on_native_runners() -> None:
    matrix = _matrix("release.yml", "platform")
    pairs = [(entry["os"], entry["arch"]) for entry in matrix]
    assert len(pairs) == len(set(pairs))
    assert set(pairs) == _plugin_platforms()
    for entry in matrix:
        assert entry["runner"] in NATIVE_RUNNERS[(entry["os"], entry["arch"])], entry


def test_ci_runs_every_other_platform_natively() -> None:
    matrix = _matrix("ci.yml", "platform")
    pairs = {(entry["os"], entry["arch"]) for entry in matrix}
    # Linux runs everything (.ci/run); the other platforms of plugin.yaml run the unit suite and the smoke test
    assert pairs == {pair for pair in _plugin_platforms() if pair[0] != "linux"}
    for entry in matrix:
        assert entry["runner"] in NATIVE_RUNNERS[(entry["os"], entry["arch"])], entry
    linux = [step.get("run") for step in _load("ci.yml")["jobs"]["linux"]["steps"] if step.get("run")]
    assert linux == [".ci/run"]


def _run_steps(workflow: str) -> list[tuple[str, str]]:
    return [
        (job, step["run"])
        for job, spec in _load(workflow)["jobs"].items()
        for step in spec.get("steps", [])
        if "run" in step
    ]


@pytest.mark.parametrize("workflow", ["release.yml", "ci.yml"])
def test_every_run_step_is_one_command_of_the_repository(workflow: str) -> None:
    steps = _run_steps(workflow)
    assert steps
    for job, command in steps:
        assert "\n" not in command.strip(), (job, command)
        assert command.startswith(REPO_COMMANDS), (job, command)


@pytest.mark.parametrize("workflow", ["release.yml", "ci.yml"])
def test_platform_jobs_build_and_smoke_the_archive_named_in_plugin_yaml(workflow: str) -> None:
    steps = [command for job, command in _run_steps(workflow) if job == "platform"]
    assert "python -m hack.release archive --out dist/release" in steps
    (smoke,) = [command for command in steps if command.startswith("python -m hack.release smoke ")]
    name = re.search(r"dist/release/([^\"]+)\"", smoke).group(1)
    for entry in _matrix(workflow, "platform"):
        assert name.replace("${{ matrix.os }}", entry["os"]).replace("${{ matrix.arch }}", entry["arch"]) == (
            archive_name(entry["os"], entry["arch"])
        )
    assert "python -m pytest tests/unit -q" in steps


def test_release_publishes_with_trusted_publishing_after_every_check() -> None:
    jobs = _load("release.yml")["jobs"]
    # the tag and the package agree before anything is built (after the install: the check reads YAML)
    for job in ("platform", "python-dist"):
        runs = [step.get("run") for step in jobs[job]["steps"] if step.get("run")]
        check = runs.index('python -m hack.release version --tag "$GITHUB_REF_NAME"')
        assert runs[check - 1].startswith("python -m pip install") and check < len(runs) - 2
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}
    assert pypi["environment"]["name"] == "pypi"
    assert pypi["needs"] == jobs["krew-index"]["needs"] == "github-release"
    assert set(jobs["github-release"]["needs"]) == {"python-dist", "krew-manifest"}
    assert jobs["krew-manifest"]["needs"] == "platform"
    assert jobs["github-release"]["permissions"] == {"contents": "write"}
    uses = [step.get("uses", "") for step in pypi["steps"]]
    assert "pypa/gh-action-pypi-publish@release/v1" in uses
    # no long-lived secret anywhere: trusted publishing and the workflow's own token only
    text = (WORKFLOWS / "release.yml").read_text()
    assert "secrets." not in text
    bot = [
        step for step in jobs["krew-index"]["steps"] if step.get("uses", "").startswith("rajatjindal/krew-release-bot@")
    ]
    assert bot and bot[0]["with"]["krew_template_file"] == ".krew.yaml"
