"""goyaml's direct writer (the fast path of :func:`dump`) writes exactly what PyYAML's emitter writes for every
document it accepts (hypothesis over JSON-shaped documents with keys, strings and numbers chosen to hit go-yaml's
quoting and ordering rules), and accepts the common shapes (a VM)."""

from __future__ import annotations

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
]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.sampled_from(WORDS), st.text(max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_the_direct_writer_writes_what_the_emitter_writes(document) -> None:
    fast = goyaml._fast_dump(document)
    if fast is not None:
        assert fast == goyaml._emitted(document)


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
    assert goyaml._fast_dump(vm) == goyaml._emitted(vm)
