"""goyaml's direct writer (the fast path of :func:`dump`) writes exactly what PyYAML's emitter writes for every
document it accepts (hypothesis over JSON-shaped documents with keys, strings and numbers chosen to hit go-yaml's
quoting and ordering rules), and accepts the common shapes (a VM)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.golang import goyaml

KEYS = st.sampled_from(
    ["a", "b", "name", "kind", "apiVersion", "spec", "10", "2", "x1", "x10", "x2", "A", "_z", "guest", "a-b", "a.b"]
)
WORDS = [
    "v",
    "1Gi",
    "q35",
    "x/y",
    "true",
    "1",
    "null",
    "a b",
    "a: b",
    "-x",
    "",
    "u1.nano",
    "image:41",
    "0x1f",
    "1e3",
    "y",
    "0755",
    "@x",
    "a:",
    # multi-line texts: literal blocks (``|``, ``|-``) where the emitter writes them so, else the emitter's own
    "#cloud-config\npassword: fedora\n",
    "a\nb",
    "a\n\nb\n",
    "a\n b\n",
    " a\nb",
    "a \nb",
    "a\n\n",
    "a\n",
    "\na",
    "a\tb\nc",
    "a\n  \nb",
    "é\nb",
    "a\r\nb",
    "- x\n# y\n",
    "a\nb ",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.text(alphabet=st.sampled_from("ab \n\t:#-\"'é"), max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_the_direct_writer_writes_what_the_emitter_writes(document) -> None:
    fast = goyaml.direct_dump(document)
    if fast is not None:
        assert fast == goyaml.emitter_dump(document)


def test_a_vm_takes_the_direct_path() -> None:
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm-1", "labels": {"app": "x"}},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"name": "u1.nano"},
            "template": {
                "spec": {
                    "domain": {
                        "devices": {"disks": [{"name": "root"}], "interfaces": [{"bridge": {}, "name": "default"}]}
                    },
                    "volumes": [{"containerDisk": {"image": "quay.io/containerdisks/fedora:41"}, "name": "root"}],
                }
            },
        },
    }
    assert goyaml.direct_dump(vm) == goyaml.emitter_dump(vm)


def nest(value, depth: int) -> dict:
    """``value`` as a map value and a list item, ``depth`` maps and lists deep (where a literal block's lines go
    depends on it)."""
    document = {"k": value, "l": [value, {"m": value}]}
    for level in range(depth):
        document = {"a": document, "b": [document] if level % 2 else document}
    return document


@settings(max_examples=400, deadline=None)
@given(SCALARS, st.integers(0, 3))
def test_each_scalar_the_direct_writer_takes_is_written_as_the_emitter_writes_it(value, depth) -> None:
    document = nest(value, depth)
    fast = goyaml.direct_dump(document)
    if fast is not None:
        assert fast == goyaml.emitter_dump(document)


@pytest.mark.parametrize(
    "value",
    ["#cloud-config\npassword: fedora\n", "a\nb", "a\n\nb\n", "a\n b\n", "- x\n# y\n", "true", "1", "0x1F", "n"],
)
def test_literal_blocks_and_quoted_words_take_the_direct_path(value) -> None:
    """What VMs hold (cloud-init user data, a label "true") does not send a whole document to the emitter."""
    for depth in range(3):
        document = nest(value, depth)
        assert goyaml.direct_dump(document) == goyaml.emitter_dump(document)
