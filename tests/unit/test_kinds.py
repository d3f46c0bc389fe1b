"""instancetype.kinds: how every command reads a kind the user typed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kubectl_instancetype.instancetype import kinds


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("vmcf", kinds.CLUSTER_INSTANCETYPE),
        ("VMCFS", kinds.CLUSTER_INSTANCETYPE),
        ("vmclusterinstancetype", kinds.CLUSTER_INSTANCETYPE),
        ("virtualmachineclusterinstancetypes.instancetype.kubevirt.io", kinds.CLUSTER_INSTANCETYPE),
        ("VirtualMachineInstancetype", kinds.INSTANCETYPE),
        ("vminstancetypes", kinds.INSTANCETYPE),
        ("vmf.instancetype.kubevirt.io", kinds.INSTANCETYPE),
        ("vmcps", kinds.CLUSTER_PREFERENCE),
        ("vmpref", kinds.PREFERENCE),
        ("vmp", kinds.PREFERENCE),
        ("virtualmachinepreferences", kinds.PREFERENCE),
        ("vm", None),
        ("vmcf.kubevirt.io", None),
        ("instancetype.kubevirt.io", None),
        ("", None),
    ],
)
def test_spelled(word: str, expected) -> None:
    assert kinds.spelled(word) == expected


def test_names_and_scopes() -> None:
    assert [
        kinds.of(what, namespaced).short
        for what in (kinds.INSTANCETYPES, kinds.PREFERENCES)
        for namespaced in (False, True)
    ] == [
        "vmcf",
        "vmf",
        "vmcp",
        "vmp",
    ]
    assert kinds.CLUSTER_PREFERENCE.qualified == "virtualmachineclusterpreference.instancetype.kubevirt.io"
    assert kinds.INSTANCETYPE_KINDS == ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
    assert kinds.PREFERENCE_KINDS == ("VirtualMachinePreference", "VirtualMachineClusterPreference")


# ---- one kinds table: nothing else spells the kinds' table (enforcement) ----------------------------------------

PACKAGE = Path(kinds.__file__).resolve().parents[1]
TABLE = PACKAGE / "instancetype" / "kinds.py"
# written by `make completion-table` from the app's help texts (which name the kinds in sentences)
GENERATED = {PACKAGE / "cli" / "completion_data.py"}


def _spelled_by_the_table() -> tuple[dict[str, str], set[str]]:
    """(a literal only the table may spell -> what it is, the kind names a table of kinds would list)."""
    words: dict[str, str] = {}
    for kind in kinds.ALL:
        words[kind.plural] = f"the plural of {kind.kind} (kinds.{_constant(kind)}.plural)"
        words[kind.qualified] = f"the qualified name of {kind.kind} (kinds.{_constant(kind)}.qualified)"
        words[kind.qualified_plural] = f"the resource name of {kind.kind} (kinds.{_constant(kind)}.qualified_plural)"
        for short in kind.short_names:
            words[short] = f"a short name of {kind.kind} (kinds.{_constant(kind)}.short_names)"
    names = {kind.kind for kind in kinds.ALL} | {kind.singular for kind in kinds.ALL}
    return words, names


def _constant(kind: kinds.TypeKind) -> str:
    return next(name for name in dir(kinds) if getattr(kinds, name) is kind)


def kind_table_violations(source: str, filename: str = "<module>") -> list[str]:
    """Where ``source`` spells what instancetype/kinds.py holds: a kind's plural, qualified or short name as a
    literal (``"vmcf"``, ``"vmcf/"``, ``"virtualmachineinstancetypes"``), or a table (tuple, list, set or dict
    literal) naming two or more of the four kinds."""
    words, names = _spelled_by_the_table()
    problems = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            word = node.value.removesuffix("/").lower()
            if word in words:
                problems.append(
                    f"{filename}:{node.lineno}: {node.value!r} is {words[word]}: take it from instancetype/kinds.py"
                )
        elements: list[ast.expr | None] = []
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements = list(node.elts)
        elif isinstance(node, ast.Dict):
            elements = [*node.keys, *node.values]
        named = {e.value for e in elements if isinstance(e, ast.Constant) and e.value in names}
        if len(named) >= 2:
            problems.append(
                f"{filename}:{node.lineno}: a table of kinds ({', '.join(sorted(named))}): derive it from "
                "instancetype/kinds.py (kinds.ALL, kinds.BY_KIND, kinds.TYPE_KINDS, kinds.INSTANCETYPE_SINGULARS, ...)"
            )
    return sorted(problems, key=lambda problem: int(problem.split(":")[1]))


def test_no_module_but_the_kinds_table_spells_the_kinds() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE or path in GENERATED:
            continue
        problems += kind_table_violations(path.read_text(), str(path.relative_to(PACKAGE.parent)))
    assert problems == [], "\n".join(problems)


def test_the_check_finds_a_planted_table_and_a_planted_spelling() -> None:
    planted = (
        'SHORT = {"vmcf": "virtualmachineclusterinstancetype"}\n'
        'KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")\n'
        'PATH = "/apis/instancetype.kubevirt.io/v1beta1/" + "virtualmachinepreferences"\n'
        'ONE = "VirtualMachinePreference"  # one kind named alone is not a table\n'
    )
    problems = kind_table_violations(planted, "planted.py")
    assert problems == [
        "planted.py:1: 'vmcf' is a short name of VirtualMachineClusterInstancetype "
        "(kinds.CLUSTER_INSTANCETYPE.short_names): take it from instancetype/kinds.py",
        "planted.py:2: a table of kinds (VirtualMachineClusterInstancetype, VirtualMachineInstancetype): derive it "
        "from instancetype/kinds.py (kinds.ALL, kinds.BY_KIND, kinds.TYPE_KINDS, kinds.INSTANCETYPE_SINGULARS, ...)",
        "planted.py:3: 'virtualmachinepreferences' is the plural of VirtualMachinePreference "
        "(kinds.PREFERENCE.plural): take it from instancetype/kinds.py",
    ]


def test_the_table_answers_scope_counterparts_and_matchers() -> None:
    assert kinds.INSTANCETYPE.other_scope is kinds.CLUSTER_INSTANCETYPE
    assert kinds.CLUSTER_PREFERENCE.other_scope is kinds.PREFERENCE
    assert [kind.matcher_type for kind in kinds.ALL] == ["InstancetypeMatcher"] * 2 + ["PreferenceMatcher"] * 2
    assert kinds.INSTANCETYPE_SINGULARS == ("virtualmachineinstancetype", "virtualmachineclusterinstancetype")
    assert kinds.API_VERSION == "instancetype.kubevirt.io/v1beta1"
