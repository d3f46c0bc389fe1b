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


# ---- one reading of a matcher's kind: kinds.matcher_kind (enforcement) -------------------------------------------


@pytest.mark.parametrize(
    ("word", "matcher", "short_names", "expected"),
    [
        # KubeVirt's reading of spec.<matcher>.kind (pkg/instancetype/find/spec.go: strings.ToLower, singular or plural)
        ("", "instancetype", False, kinds.CLUSTER_INSTANCETYPE),
        ("", "preference", False, kinds.CLUSTER_PREFERENCE),
        ("VirtualMachineInstancetype", "instancetype", False, kinds.INSTANCETYPE),
        ("virtualmachineclusterinstancetypes", "instancetype", False, kinds.CLUSTER_INSTANCETYPE),
        ("VIRTUALMACHINEPREFERENCES", "preference", False, kinds.PREFERENCE),
        ("vmf", "instancetype", False, None),  # a short name is kubectl's, not KubeVirt's
        ("virtualmachinepreference", "instancetype", False, None),  # the other matcher's kind
        ("virtualmachineinstancetypess", "instancetype", False, None),
        # a flag's KIND/ prefix: kubectl's spellings too (our extension)
        ("vmf", "instancetype", True, kinds.INSTANCETYPE),
        ("VMCP", "preference", True, kinds.CLUSTER_PREFERENCE),
        ("vmpref.instancetype.kubevirt.io", "preference", True, kinds.PREFERENCE),
        ("vmcp", "instancetype", True, None),
    ],
)
def test_matcher_kind(word: str, matcher: str, short_names: bool, expected) -> None:
    assert kinds.matcher_kind(word, matcher, short_names=short_names) is expected


def test_unexpected_kind_is_kubevirts_message() -> None:
    assert kinds.unexpected_kind("preference", "vmf") == "got unexpected kind in PreferenceMatcher: vmf"


# A module that may lower a kind word to decide something, and why it is not a matcher's kind.
LOWERS_OTHER_KIND_WORDS = {
    "cli/list_options.py": "list/get/describe's KIND argument: a resource word (instancetypes, vmcf, ...) as "
    "kubectl's RESTMapper reads it, not a VM matcher's kind",
}
_STRING_TESTS = {"startswith", "endswith", "removesuffix", "removeprefix", "rstrip", "strip"}


def kind_reading_violations(source: str, filename: str = "<module>") -> list[str]:
    """Where ``source`` reads a kind word itself: a kind (an expression whose text names ``kind`` or ``prefix``)
    lowered with ``.lower()``/``.casefold()`` and then compared (``==``, ``in``), looked up (``table[...]``,
    ``.get(...)``) or tested (``.startswith``, ``.removesuffix``, ...). Lowering a kind to print it
    (``f"{kind.lower()}/{name}"``, a singular in a report) is no reading."""
    tree = ast.parse(source, filename)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    problems = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("lower", "casefold"):
            continue
        receiver = (ast.get_source_segment(source, node.func.value) or "").lower()
        if "kind" not in receiver and "prefix" not in receiver:
            continue
        parent = parents.get(node)
        decides = (
            isinstance(parent, ast.Compare)
            or (isinstance(parent, ast.Subscript) and parent.slice is node)
            or (isinstance(parent, ast.Attribute) and parent.attr in _STRING_TESTS)
            or (
                isinstance(parent, ast.Call)
                and isinstance(parent.func, ast.Attribute)
                and parent.func.attr == "get"
                and node in parent.args
            )
        )
        if decides:
            problems.append(
                f"{filename}:{node.lineno}: `{ast.get_source_segment(source, parent)}` reads a kind word itself: "
                "a matcher's kind is read once, by instancetype.kinds.matcher_kind(word, matcher) (a flag's "
                "KIND/ prefix: short_names=True); any other kind word by kinds.spelled(word)"
            )
    return problems


def test_no_module_but_the_kinds_table_reads_a_kind_word() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        if path == TABLE or path in GENERATED or relative in LOWERS_OTHER_KIND_WORDS:
            continue
        problems += kind_reading_violations(path.read_text(), str(path.relative_to(PACKAGE.parent)))
    assert problems == [], "\n".join(problems)


def test_the_check_finds_a_planted_kind_reading() -> None:
    planted = (
        "def cluster(matcher):\n"
        '    return str(matcher.get("kind") or "").lower().startswith("virtualmachinecluster")\n'
        "def namespaced(kind, kinds):\n"
        '    return kind.lower() in kinds or TABLE[kind.lower()] or TABLE.get(kind.lower().removesuffix("s"))\n'
        "def shown(kind, name):\n"
        '    return f"{kind.lower()}/{name}"  # printing a singular is no reading\n'
    )
    problems = kind_reading_violations(planted, "planted.py")
    assert [problem.split(" reads ")[0] for problem in problems] == [
        'planted.py:2: `str(matcher.get("kind") or "").lower().startswith`',
        "planted.py:4: `kind.lower() in kinds`",
        "planted.py:4: `TABLE[kind.lower()]`",
        "planted.py:4: `kind.lower().removesuffix`",
    ]
    assert problems[0].endswith(
        "a matcher's kind is read once, by instancetype.kinds.matcher_kind(word, matcher) (a flag's KIND/ prefix: "
        "short_names=True); any other kind word by kinds.spelled(word)"
    )
