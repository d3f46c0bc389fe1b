"""The kinds table (instancetype.kinds) is the real API server's: the four kinds' names, scope and shortNames as
discovery serves them from KubeVirt's installed CRDs, and every spelling kubectl accepts works in each command
that takes a kind."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype import kinds


def test_the_table_matches_discovery(control_plane) -> None:
    status, answer = control_plane.request("GET", "/apis/instancetype.kubevirt.io/v1beta1")
    assert status == 200, answer
    served = {
        resource["kind"]: resource
        for resource in answer["resources"]
        if "/" not in resource["name"]  # not a subresource
    }
    assert set(served) == {kind.kind for kind in kinds.ALL}
    for kind in kinds.ALL:
        resource = served[kind.kind]
        assert resource["name"] == kind.plural
        assert resource["singularName"] == kind.singular
        assert resource["namespaced"] == kind.namespaced
        assert sorted(resource["shortNames"]) == sorted(kind.short_names)


@pytest.mark.parametrize(
    "spelling", [word for kind in kinds.ALL for word in kind.spellings() if kind.namespaced is False]
)
def test_every_spelling_kubectl_takes_lists_the_kind(cli, spelling: str) -> None:
    """``list WORD``, ``get WORD/NAME`` and ``create vm --instancetype WORD/NAME`` read every spelling the API
    server's discovery offers (kubectl get WORD works for each)."""
    kind = kinds.spelled(spelling)
    assert kind is not None
    name = "u1.medium" if kind.what == kinds.INSTANCETYPES else "fedora"
    listed = cli("list", spelling, name, "-o", "name")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout == f"{kind.singular}.{kinds.GROUP}/{name}\n"
    got = cli("get", f"{spelling}.{kinds.GROUP}/{name}", "-o", "jsonpath={.kind}")
    assert got.exit_code == 0, got.stderr
    assert got.stdout == kind.kind
    flag = "--instancetype" if kind.what == kinds.INSTANCETYPES else "--preference"
    created = cli(
        "create", "vm", "--name", "x", flag, f"{spelling}/{name}", "--dry-run=client", "-o", "json", "--skip-checks"
    )
    assert created.exit_code == 0, created.stderr
    assert f'"kind": "{kind.singular}"' in created.stdout
