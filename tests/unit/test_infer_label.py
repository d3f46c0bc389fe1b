"""``label``'s pure part: the merge patch, kubectl label's verbs and overwrite rule, and the kind spellings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.instancetype import infer
from kubectl_instancetype.instancetype.infer import canonical_kind
from kubectl_instancetype.usecases.labeling import LabelPatch, LabelRequest, label_patch
from tests.conftest import run_cli

IT, IT_KIND = infer.INSTANCETYPE_LABEL, infer.INSTANCETYPE_KIND_LABEL
PREF, PREF_KIND = infer.PREFERENCE_LABEL, infer.PREFERENCE_KIND_LABEL

CASES = [
    ("new labels", {}, LabelRequest(instancetype="u1.medium", preference="fedora"),
     {IT: "u1.medium", PREF: "fedora"}, "labeled"),
    ("same value is no change", {IT: "u1.medium"}, LabelRequest(instancetype="u1.medium"), {}, "not labeled"),
    ("kind written", {}, LabelRequest(preference="rhel.9", preference_kind="virtualmachinepreference"),
     {PREF: "rhel.9", PREF_KIND: "virtualmachinepreference"}, "labeled"),
    ("stale kind removed with a new name", {IT: "a", IT_KIND: "virtualmachineinstancetype"},
     LabelRequest(instancetype="b", overwrite=True), {IT: "b", IT_KIND: None}, "modified"),
    ("same name, kind dropped", {IT: "a", IT_KIND: "virtualmachineinstancetype"}, LabelRequest(instancetype="a"),
     {IT_KIND: None}, "unlabeled"),
    ("remove only what exists", {IT: "a", "app": "x"}, LabelRequest(remove=True), {IT: None}, "unlabeled"),
    ("remove nothing", {"app": "x"}, LabelRequest(remove=True), {}, "not labeled"),
    ("overwrite", {PREF: "old"}, LabelRequest(preference="new", overwrite=True), {PREF: "new"}, "labeled"),
]  # fmt: skip


@pytest.mark.parametrize(("current", "request_", "patch", "verb"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_label_patch(current, request_, patch, verb):
    assert label_patch(current, request_) == LabelPatch(patch, verb)


def test_overwrite_errors_are_kubectls():
    with pytest.raises(UsageError) as one:
        label_patch({IT: "a"}, LabelRequest(instancetype="b"))
    assert one.value.message == f"'{IT}' already has a value (a), and --overwrite is false"
    with pytest.raises(UsageError) as two:
        label_patch({IT: "a", PREF: "p"}, LabelRequest(instancetype="b", preference="q"))
    assert two.value.message == (
        f"['{IT}' already has a value (a), and --overwrite is false, "
        f"'{PREF}' already has a value (p), and --overwrite is false]"
    )


@pytest.mark.parametrize(
    ("value", "matcher", "expected"),
    [
        ("", "instancetype", ""),
        ("VirtualMachineInstancetype", "instancetype", "virtualmachineinstancetype"),
        ("virtualmachineclusterinstancetypes", "instancetype", "virtualmachineclusterinstancetype"),
        ("VirtualMachinePreferences", "preference", "virtualmachinepreference"),
        ("virtualmachineclusterpreference", "preference", "virtualmachineclusterpreference"),
    ],
)
def test_canonical_kind(value, matcher, expected):
    assert canonical_kind(value, matcher) == expected


def test_canonical_kind_refuses_the_other_family():
    with pytest.raises(UsageError, match='invalid preference kind "virtualmachineinstancetype"'):
        canonical_kind("virtualmachineinstancetype", "preference")


label_keys = st.sampled_from([IT, IT_KIND, PREF, PREF_KIND, "app"])
values = st.text(alphabet="abc.", min_size=1, max_size=4)


@given(
    current=st.dictionaries(label_keys, values),
    instancetype=st.none() | values,
    preference=st.none() | values,
)
def test_patch_applied_gives_the_request(current, instancetype, preference):
    """With --overwrite, applying the merge patch yields exactly the requested reference and keeps other labels."""
    request = LabelRequest(instancetype=instancetype, preference=preference, overwrite=True)
    planned = label_patch(current, request)
    result = dict(current)
    for key, value in planned.labels.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    if instancetype is not None:
        assert result[IT] == instancetype and IT_KIND not in result
    if preference is not None:
        assert result[PREF] == preference and PREF_KIND not in result
    assert result.get("app") == current.get("app")
    assert (planned.verb == "not labeled") == (not planned.labels)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--default-instancetype", "vmp/u1.small"],
            'invalid instancetype kind "vmp", supported values are: virtualmachineinstancetype, '
            "virtualmachineclusterinstancetype",
        ),
        (
            ["--default-instancetype", "vmf/u1.small", "--default-instancetype-kind", "vmcf"],
            '--default-instancetype "vmf/u1.small" names kind virtualmachineinstancetype, but '
            "--default-instancetype-kind says vmcf: give one",
        ),
        (
            ["--default-preference", "vmp/a/b"],
            'invalid argument "vmp/a/b" for "--default-preference" flag: invalid count 2 of slashes in prefix/name',
        ),
    ],
)
def test_kind_prefix_errors(flags, message) -> None:
    for command in (["label", "pvc/x"], ["upload", "dv", "x", "--size", "1Gi", "--image-path", "/dev/null"]):
        result = run_cli([*command, *flags])
        assert (result.exit_code, result.stderr) == (1, f"error: {message}\n"), command
