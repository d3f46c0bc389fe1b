"""The pure parts of catalog install/diff: unknown-field messages, dropping fields, verbs, the diff's projection."""

from __future__ import annotations

import copy

import pytest

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.errors import APIError, PluginError
from kubectl_instancetype.kube import resources
from kubectl_instancetype.usecases import catalog_install as use

CATALOG = load_catalog()
# kube-apiserver v1.36.3's answer to a server-side apply of windows.11.virtio when the CRD lacks the field
SERVER_MESSAGE = (
    "failed to create typed patch object (/windows.11.virtio; instancetype.kubevirt.io/v1beta1, "
    "Kind=VirtualMachineClusterPreference): .spec.devices.preferredVideoType: field not declared in schema"
)


def test_unknown_fields_from_the_servers_message() -> None:
    assert use.unknown_fields(APIError(500, SERVER_MESSAGE)) == [".spec.devices.preferredVideoType"]
    two = SERVER_MESSAGE + "\n.spec.preferredLaunchSecurity: field not declared in schema"
    assert use.unknown_fields(APIError(500, two)) == [
        ".spec.devices.preferredVideoType",
        ".spec.preferredLaunchSecurity",
    ]
    assert use.unknown_fields(APIError(409, "Apply failed with 1 conflict")) == []


def test_drop_field() -> None:
    obj = copy.deepcopy(CATALOG.preference("windows.11.virtio"))
    assert use.has_field(obj, ".spec.devices.preferredVideoType")
    assert use.drop_field(obj, ".spec.devices.preferredVideoType")
    assert "preferredVideoType" not in obj["spec"]["devices"] and obj["spec"]["devices"]["preferredDiskBus"] == "virtio"
    assert not use.drop_field(obj, ".spec.devices.preferredVideoType")
    assert not use.drop_field(obj, ".spec..x")
    assert CATALOG.preference("windows.11.virtio")["spec"]["devices"]["preferredVideoType"] == "virtio"


def test_operator_managed_objects_are_refused_by_name() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=True, preferences=False))
    existing = {}
    for item in objects[:5]:
        managed = copy.deepcopy(item.obj)
        managed["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "virt-operator"
        existing[("VirtualMachineClusterInstancetype", item.name)] = managed
    with pytest.raises(PluginError) as raised:
        use.refuse_operator_managed(objects, existing)
    assert str(raised.value).startswith(
        "5 objects are managed by virt-operator (app.kubernetes.io/managed-by=virt-operator), which would revert "
        "changes to them: virtualmachineclusterinstancetype.instancetype.kubevirt.io/cx1.2xlarge, "
    )
    assert ", and 2 more; install into a namespace with --namespaced, or use --force" in str(raised.value)
    use.refuse_operator_managed(objects, {})


def test_catalog_objects_scopes() -> None:
    both = use.catalog_objects(CATALOG, use.Scope(namespace="dev"))
    assert len(both) == len(CATALOG.instancetypes) + len(CATALOG.preferences)
    assert {item.resource for item in both} == {resources.INSTANCETYPES, resources.PREFERENCES}
    assert all(item.obj["metadata"]["namespace"] == "dev" for item in both)
    only = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    assert {item.resource for item in only} == {resources.CLUSTER_PREFERENCES}
    assert only[0].shown == f"virtualmachineclusterpreference.instancetype.kubevirt.io/{only[0].name}"


def test_client_dry_run_verbs_compare_the_catalogs_fields() -> None:
    desired = CATALOG.instancetype("u1.medium")
    live = copy.deepcopy(desired)
    live["metadata"].update(resourceVersion="5", uid="u")
    live["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "someone"
    assert use.apply_verb(None, None, desired, "client") == "created"
    assert use.apply_verb(live, None, desired, "client") == "unchanged"
    live["spec"]["memory"]["guest"] = "5Gi"
    assert use.apply_verb(live, None, desired, "client") == "configured"
    assert (
        use.apply_verb({"metadata": {"resourceVersion": "5"}}, {"metadata": {"resourceVersion": "5"}}, desired, "none")
        == "unchanged"
    )
    assert (
        use.apply_verb({"metadata": {"resourceVersion": "5"}}, {"metadata": {"resourceVersion": "6"}}, desired, "none")
        == "configured"
    )


def test_diff_ignores_deployment_metadata_and_annotations_the_catalog_does_not_carry() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(preferences=False))
    existing = {}
    for item in objects:
        live = copy.deepcopy(item.obj)
        live["metadata"].update(resourceVersion="1", uid="x", generation=1, creationTimestamp="2026-01-01T00:00:00Z")
        live["metadata"]["labels"].update(
            {"app.kubernetes.io/managed-by": "virt-operator", "app.kubernetes.io/component": "kubevirt"}
        )
        live["metadata"]["annotations"].update(
            {
                "instancetype.kubevirt.io/description": "The U Series ...",
                "kubevirt.io/install-strategy-version": "v1.9.0",
            }
        )
        existing[(item.resource.kind, item.name)] = live
    kinds = [resources.CLUSTER_INSTANCETYPES]
    assert use.diff(CATALOG, objects, existing, kinds) == []

    existing[("VirtualMachineClusterInstancetype", "u1.medium")]["spec"]["memory"]["guest"] = "5Gi"
    del existing[("VirtualMachineClusterInstancetype", "u1.nano")]
    gone = copy.deepcopy(CATALOG.instancetype("u1.small"))
    gone["metadata"]["name"] = "gn1.xlarge"
    existing[("VirtualMachineClusterInstancetype", "gn1.xlarge")] = gone
    mine = copy.deepcopy(gone)
    mine["metadata"]["name"] = "my.own"
    del mine["metadata"]["labels"]["instancetype.kubevirt.io/vendor"]
    existing[("VirtualMachineClusterInstancetype", "my.own")] = mine
    diffs = use.diff(CATALOG, objects, existing, kinds)
    name = "virtualmachineclusterinstancetype.instancetype.kubevirt.io"
    assert [text.splitlines()[:2] for text in diffs] == [
        [f"--- cluster/{name}/u1.medium", f"+++ catalog-v1.7.0/{name}/u1.medium"],
        ["--- /dev/null", f"+++ catalog-v1.7.0/{name}/u1.nano"],
        [f"--- cluster/{name}/gn1.xlarge", "+++ /dev/null"],
    ]
    assert [line for line in diffs[0].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        "-    guest: 5Gi",
        "+    guest: 4Gi",
    ]


class _ApplyingClient:
    """A client double for install(): applies succeed (a new resourceVersion) until ``fail_at``, which raises ``error``
    (after storing the object when ``applied_then_cut``: the server applied it, the answer never arrived).
    ``read_back`` answers from what was stored, or raises ``read_error``."""

    def __init__(self, fail_at: int, error: BaseException, *, applied_then_cut: bool = False, read_error=None):
        self.fail_at, self.error, self.calls = fail_at, error, 0
        self.applied_then_cut, self.read_error = applied_then_cut, read_error
        self.stored: dict[str, dict] = {}
        self.read: list[str] = []

    def apply(self, resource, name, namespace, body, **kwargs):
        self.calls += 1
        if self.calls == self.fail_at and not self.applied_then_cut:
            raise self.error
        stored = copy.deepcopy(body)
        stored["metadata"]["resourceVersion"] = str(self.calls)
        self.stored[name] = stored
        if self.calls == self.fail_at:
            raise self.error
        return stored

    def read_back(self, resource, name, namespace=None):
        self.read.append(name)
        if self.read_error is not None:
            raise self.read_error
        return self.stored.get(name)


def _forbidden(name: str) -> APIError:
    return APIError(
        403,
        f'virtualmachineclusterpreferences.instancetype.kubevirt.io "{name}" is forbidden: User "bob" cannot patch '
        'resource "virtualmachineclusterpreferences" in API group "instancetype.kubevirt.io" at the cluster scope',
        reason="Forbidden",
    )


def test_a_failure_part_way_says_what_was_applied_and_what_was_not() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope())
    existing = {("VirtualMachineClusterInstancetype", objects[0].name): {"metadata": {"resourceVersion": "1"}}}
    fourth = objects[3].shown
    printed = []
    with pytest.raises(PluginError) as raised:
        use.install(_ApplyingClient(4, _forbidden("x")), objects, existing, report=printed.append)
    assert len(printed) == 3
    assert raised.value.render() == (
        'error: Error from server (Forbidden): virtualmachineclusterpreferences.instancetype.kubevirt.io "x" is '
        'forbidden: User "bob" cannot patch resource "virtualmachineclusterpreferences" in API group '
        '"instancetype.kubevirt.io" at the cluster scope; applied before that: 1 unchanged, 2 created; '
        f"not applied: {fourth} and {len(objects) - 4} more"
    )


def test_an_interruption_says_what_was_applied() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    with pytest.raises(PluginError) as raised:
        use.install(_ApplyingClient(3, KeyboardInterrupt()), objects, {})
    third = objects[2].shown
    assert raised.value.render() == (
        f"error: interrupted; applied before that: 2 created; not applied: {third} and {len(objects) - 3} more"
    )


def test_an_interruption_after_the_server_applied_counts_what_exists() -> None:
    # Ctrl-C while the answer to the third apply was on its way: the server had applied it; reading it back finds it
    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    client = _ApplyingClient(3, KeyboardInterrupt(), applied_then_cut=True)
    with pytest.raises(PluginError) as raised:
        use.install(client, objects, {})
    assert client.read == [objects[2].name]
    assert raised.value.render() == (
        f"error: interrupted; applied before that: 3 created; not applied: {objects[3].shown} and "
        f"{len(objects) - 4} more"
    )


def test_an_interruption_whose_read_back_fails_says_the_object_is_in_doubt() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    client = _ApplyingClient(3, KeyboardInterrupt(), applied_then_cut=True, read_error=KeyboardInterrupt())
    with pytest.raises(PluginError) as raised:
        use.install(client, objects, {})
    assert raised.value.render() == (
        f"error: interrupted; applied before that: 2 created; {objects[2].shown} may or may not have been applied "
        f"(reading it back failed: interrupted again); not applied: {objects[3].shown} and {len(objects) - 4} more"
    )


def test_a_connection_lost_after_sending_is_read_back_but_a_refusal_is_not() -> None:
    from kubectl_instancetype.errors import TransportError

    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    lost = TransportError("read tcp 127.0.0.1:1: connection reset by peer")
    client = _ApplyingClient(2, lost, applied_then_cut=True)
    with pytest.raises(PluginError) as raised:
        use.install(client, objects, {})
    assert raised.value.render() == (
        "error: Unable to connect to the server: read tcp 127.0.0.1:1: connection reset by peer; applied before "
        f"that: 2 created; not applied: {objects[2].shown} and {len(objects) - 3} more"
    )
    refused = _ApplyingClient(2, _forbidden("b"))
    with pytest.raises(PluginError):
        use.install(refused, objects, {})
    assert refused.read == []


def test_a_failure_on_the_first_object_says_nothing_was_applied() -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(instancetypes=False))
    with pytest.raises(PluginError) as raised:
        use.install(_ApplyingClient(1, _forbidden("a")), objects, {})
    assert raised.value.render().endswith(
        f"; nothing was applied; not applied: {objects[0].shown} and {len(objects) - 1} more"
    )
