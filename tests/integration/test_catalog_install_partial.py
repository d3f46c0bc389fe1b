"""``catalog install`` partly forbidden by RBAC (the real API server): the instance types are applied, the first
preference is refused, and the one error line says what was applied and what was not."""

from __future__ import annotations

import pytest

from kubectl_instancetype.catalog import load_catalog

pytestmark = pytest.mark.controlplane

NAMESPACE = "partial"
CATALOG = load_catalog()


def test_partly_forbidden_install_ends_with_what_exists(control_plane, cli) -> None:
    control_plane.ensure_namespace(NAMESPACE)
    rules = [
        {
            "apiGroups": ["instancetype.kubevirt.io"],
            "resources": ["virtualmachineinstancetypes", "virtualmachinepreferences"],
            "verbs": ["get", "list"],
        },
        {
            "apiGroups": ["instancetype.kubevirt.io"],
            "resources": ["virtualmachineinstancetypes"],
            "verbs": ["patch", "create"],
        },
    ]
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "partial-installer", "namespace": NAMESPACE},
        "rules": rules,
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "partial-installer", "namespace": NAMESPACE},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "partial-installer"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "mallory"}],
    }
    control_plane.apply(role)
    control_plane.apply(binding)
    namespaced = CATALOG.namespaced(NAMESPACE)
    try:
        result = cli("catalog", "install", "--namespaced", "-n", NAMESPACE, user="mallory")
        count = len(namespaced.instancetypes)
        assert result.exit_code == 1
        assert len(result.stdout.splitlines()) == count
        first = sorted(namespaced.preferences, key=lambda obj: obj["metadata"]["name"])[0]["metadata"]["name"]
        # mallory may not read CRDs: one warning, then the install learns missing fields from the server
        warning, _, error = result.stderr.partition("\n")
        assert warning.startswith(
            "Warning: cannot read the CRD virtualmachineinstancetypes.instancetype.kubevirt.io (customresourcedefinitions"
        )
        assert error.startswith(
            "error: Error from server (Forbidden): virtualmachinepreferences.instancetype.kubevirt.io "
        )
        assert 'User "mallory" cannot patch resource "virtualmachinepreferences"' in result.stderr
        assert result.stderr.endswith(
            f"; applied before that: {count} created; not applied: "
            f"virtualmachinepreference.instancetype.kubevirt.io/{first} and {len(namespaced.preferences) - 1} more\n"
        )
        assert error.count("\n") == 1
    finally:
        for obj in namespaced.instancetypes:
            control_plane.delete(obj)
        control_plane.delete(binding)
        control_plane.delete(role)
