"""The user documentation says what the code does: a current command reference, every deliberate difference
from virtctl, a short README whose links lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_instancetype.cli import docgen
from kubectl_instancetype.cli.commands import COMMANDS
from kubectl_instancetype.instancetype import createtypes, createvm

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
COMMANDS_DIR = REPO / "docs" / "commands"


def test_the_command_reference_is_generated_from_the_app() -> None:
    generated = docgen.pages()
    on_disk = {path.name: path.read_text() for path in COMMANDS_DIR.glob("*.md")}
    assert sorted(on_disk) == sorted(generated), "run `make generate` (or `make docs`) (pages were added or removed)"
    stale = [name for name, text in generated.items() if on_disk[name] != text]
    assert not stale, f"run `make generate` (or `make docs`): {', '.join(stale)} differ from the app's help"


def test_the_readme_table_of_commands_is_generated_from_the_app() -> None:
    assert docgen.with_command_table(README, docgen.command_table()) == README, "run `make generate` (or `make docs`)"


def test_every_command_and_subcommand_has_a_reference_page() -> None:
    names = {path.name for path in COMMANDS_DIR.glob("*.md")}
    for command in COMMANDS:
        assert f"kubectl_instancetype_{command}.md" in names
    for subcommand in ("vm", "instancetype", "preference"):
        assert f"kubectl_instancetype_create_{subcommand}.md" in names
    index = (COMMANDS_DIR / docgen.INDEX).read_text()
    for command in COMMANDS:
        assert f"(kubectl_instancetype_{command}.md)" in index


def test_a_page_has_usage_flags_with_defaults_aliases_and_examples() -> None:
    page = (COMMANDS_DIR / "kubectl_instancetype_list.md").read_text()
    assert "## kubectl instancetype list\n" in page
    assert "```\nkubectl instancetype list [KIND] [NAME...] [flags]\n```" in page
    assert "### Aliases\n\n```\nlist, ls\n```" in page
    assert re.search(
        r"\n      --chunk-size int +Objects per list request \(paging\); 0 disables paging\. \(default 500\)\n", page
    )
    assert "### Examples\n\n```\n  kubectl instancetype list --min-cpu 4" in page
    assert "* [kubectl instancetype](README.md)" in page


def test_prose_escapes_html_outside_code_spans() -> None:
    assert docgen.escape_prose("source <(x) and `a <(b)`") == "source &lt;(x) and `a <(b)`"


def test_every_difference_from_virtctl_is_listed() -> None:
    differences = (REPO / "docs" / "virtctl-differences.md").read_text()
    for difference in createvm.DIFFERENCES_FROM_VIRTCTL + createtypes.DIFFERENCES_FROM_VIRTCTL:
        assert f"- {difference}" in differences


def test_the_readme_is_short_and_for_users() -> None:
    assert len(README.splitlines()) < 200
    for required in ("instancetype.kubevirt.io", "kubectl krew install", "pipx install", "1.26"):
        assert required in README


def test_develop_is_two_commands() -> None:
    develop = README.split("## Develop", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in develop.strip().splitlines()] == ["make demo", "make test"]


DOCS = sorted([REPO / "README.md", REPO / "DEVELOPERS.md", REPO / "bench" / "README.md", *(REPO / "docs").glob("*.md")])


@pytest.mark.parametrize("document", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_relative_links_lead_to_files_and_headings(document: Path) -> None:
    text = re.sub(r"```.*?```", "", document.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        assert linked.exists(), f"{document.name}: {target} does not exist"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(), flags=re.M)
            slugs = {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
            assert anchor in slugs, f"{document.name}: no heading #{anchor} in {path or document.name}"


SOURCE_ROOTS = (REPO, REPO / "kubectl_instancetype", REPO / "tests" / "unit", REPO / "tests" / "integration")


@pytest.mark.parametrize("document", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_source_files_named_in_the_docs_exist(document: Path) -> None:
    """A file the docs name (`kube/http.py`, `tests/golden/convert/`, `test_cli.py`) is where they say."""
    missing = []
    files = re.findall(r"`((?:[\w.-]+/)*[\w*-]+\.py)`", document.read_text())
    folders = re.findall(
        r"`((?:kubectl_instancetype|tests|hack|bench|docs|completions)/(?:[\w.-]+/)*)`", document.read_text()
    )
    for name in sorted(set(files + folders)):
        if re.search(r"(^|/)[A-Z_]+(\.py|/|$)", name):
            continue  # a placeholder (`cli/NAME.py`), not a file
        found = any(list(root.glob(name)) or (root / name).exists() for root in SOURCE_ROOTS)
        if not found and "/" not in name:
            found = any(REPO.glob(f"tests/**/{name}"))
        if not found:
            missing.append(name)
    assert not missing, f"{document.relative_to(REPO)} names files that do not exist (moved?): {missing}"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)", README))
    pages = {path.name for path in (REPO / "docs").glob("*.md")}
    assert not pages - linked, f"link these from the README's 'Read more': {sorted(pages - linked)}"


@pytest.mark.parametrize("bench", ["list", "create", "completion", "install"])
def test_bench_readme_has_a_block_for_each_benchmark(bench: str) -> None:
    """`make bench` (each script's --write) replaces its block; without one it would have nowhere to write."""
    text = (REPO / "bench" / "README.md").read_text()
    assert f"<!-- begin {bench} -->" in text and f"<!-- end {bench} -->" in text
    assert f'publish("{bench}"' in (REPO / "bench" / f"{bench}.py").read_text()


def test_no_click_markup_leaks_into_the_reference() -> None:
    """Click's ``\\b`` paragraph marker is markup; written as a literal backslash-b it shows in --help and here."""
    leaks = [page for page, text in docgen.pages().items() if re.search(r"^(\\b|\x08)$", text, flags=re.M)]
    assert not leaks
