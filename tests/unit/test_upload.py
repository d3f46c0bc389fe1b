"""``upload``'s pure parts against virtctl v1.9's own test vectors (pkg/virtctl/imageupload/imageupload_test.go)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.instancetype import upload as spec
from kubectl_instancetype.output.progress import PlainProgress, RichProgress, human_bytes, progress_for
from tests.conftest import run_cli

SIZE_REGEX_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def parse(args, **flags):
    return spec.parse_flags(spec.Flags(args=tuple(args), **flags))


# virtctl's "Bad args" table (the arguments before any cluster access)
BAD_ARGS = [
    ("either image-path or archive-path must be provided", [], {}),
    ("expecting two args", ["targetName"], {"size": "500Mi", "image_path": "/dev/null"}),
    ("expecting two args", [], {"size": "500Mi", "image_path": "/dev/null"}),
    ("either image-path or archive-path must be provided", ["dv", "t"], {"size": "500Mi"}),
    (
        "cannot handle both image-path and archive-path, provide only one",
        ["dv", "t"],
        {"image_path": "/dev/null", "archive_path": "/dev/null.tar"},
    ),
    (
        "In archive upload the volume mode should always be filesystem",
        ["dv", "t"],
        {"archive_path": "/dev/null.tar", "block_volume": True},
    ),
    (
        "incompatible --volume-mode 'filesystem' and --block-volume",
        ["dv", "t"],
        {"archive_path": "/dev/null.tar", "block_volume": True, "volume_mode": "filesystem"},
    ),
    (
        "Invalid volume mode 'foo'. Valid values are 'block' and 'filesystem'.",
        ["dv", "t"],
        {"archive_path": "/dev/null.tar", "volume_mode": "foo"},
    ),
    ("cannot use --pvc-name and args", ["foo"], {"pvc_name": "t", "image_path": "/dev/null"}),
    ("invalid resource type foo", ["foo", "t"], {"image_path": "/dev/null"}),
    (
        "--pvc-size and --size can not be specified at the same time",
        ["dv", "t"],
        {"size": "500G", "pvc_size": "50G", "image_path": "/dev/null"},
    ),
    (
        "--default-instancetype must be provided with --default-instancetype-kind",
        ["pvc", "t"],
        {"image_path": "/dev/null", "default_instancetype_kind": "foo"},
    ),
    (
        "--default-preference must be provided with --default-preference-kind",
        ["pvc", "t"],
        {"image_path": "/dev/null", "default_preference_kind": "foo"},
    ),
    (
        "--default-instancetype and --default-preference cannot be used with --no-create",
        ["pvc", "t"],
        {"image_path": "/dev/null", "default_instancetype": "foo", "no_create": True},
    ),
    (
        "--default-instancetype and --default-preference cannot be used with --no-create",
        ["pvc", "t"],
        {"image_path": "/dev/null", "default_preference": "foo", "no_create": True},
    ),
]


@pytest.mark.parametrize(("message", "args", "flags"), BAD_ARGS)
def test_virtctl_bad_args(message, args, flags):
    with pytest.raises(UsageError) as caught:
        parse(args, **flags)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ("", "when creating a resource, the size must be specified"),
        ("500Zb", f"validation failed for size=500Zb: {SIZE_REGEX_ERROR}"),
    ],
)
def test_size_checks(size, message):
    plan = parse(["dv", "t"], image_path="/dev/null", size=size)
    with pytest.raises(UsageError) as caught:
        spec.data_volume(plan, "ns")
    assert caught.value.message == message


def test_data_volume_body_with_every_flag():
    plan = parse(
        ["DV", "fedora"],
        image_path="/i.qcow2",
        size="10Gi",
        storage_class="fast",
        access_mode="ReadWriteMany",
        volume_mode="block",
        force_bind=True,
        default_instancetype="u1.medium",
        default_instancetype_kind="virtualmachineclusterinstancetype",
        default_preference="fedora",
    )
    assert not plan.create_pvc
    assert spec.data_volume(plan, "ns") == {
        "apiVersion": "cdi.kubevirt.io/v1beta1",
        "kind": "DataVolume",
        "metadata": {
            "name": "fedora",
            "namespace": "ns",
            "annotations": {"cdi.kubevirt.io/storage.bind.immediate.requested": ""},
            "labels": {
                "instancetype.kubevirt.io/default-instancetype": "u1.medium",
                "instancetype.kubevirt.io/default-instancetype-kind": "virtualmachineclusterinstancetype",
                "instancetype.kubevirt.io/default-preference": "fedora",
            },
        },
        "spec": {
            "source": {"upload": {}},
            "contentType": "kubevirt",
            "storage": {
                "resources": {"requests": {"storage": "10Gi"}},
                "storageClassName": "fast",
                "accessModes": ["ReadWriteMany"],
                "volumeMode": "Block",
            },
        },
    }


def test_pvc_body_archive_and_defaults():
    plan = parse(["pvc", "data"], archive_path="/a.tar", size="1Gi")
    assert plan.create_pvc and plan.archive_upload and plan.image_path == "/a.tar"
    assert spec.upload_pvc(plan, "ns") == {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "data",
            "namespace": "ns",
            "annotations": {
                "cdi.kubevirt.io/storage.upload.target": "",
                "cdi.kubevirt.io/storage.contentType": "archive",
            },
            "labels": {"cdi.kubevirt.io/applyStorageProfile": "true"},
        },
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


@pytest.mark.parametrize("kind", ["dv", "pvc"])
def test_readonly_access_mode_is_refused(kind):
    plan = parse([kind, "t"], image_path="/i", size="1Gi", access_mode="ReadOnlyMany")
    build = spec.upload_pvc if kind == "pvc" else spec.data_volume
    with pytest.raises(
        UsageError, match="^cannot upload to a readonly volume, use either ReadWriteOnce or ReadWriteMany if supported$"
    ):
        build(plan, "ns")


def test_deprecated_pvc_name_form():
    plan = parse([], pvc_name="t", pvc_size="1Gi", image_path="/i")
    assert (plan.name, plan.create_pvc, plan.size) == ("t", True, "1Gi")


# virtctl's "Server URL validations" table, plus the async path
@pytest.mark.parametrize(
    ("url", "uri", "expected"),
    [
        ("http://localhost:12345/", spec.UPLOAD_PROXY_URI, "http://localhost:12345/v1beta1/upload"),
        ("http://localhost:12345/v1beta1/upload", spec.UPLOAD_PROXY_URI, "http://localhost:12345/v1beta1/upload"),
        ("http://localhost:12345", spec.UPLOAD_PROXY_URI, "http://localhost:12345/v1beta1/upload"),
        ("https://proxy/base", spec.UPLOAD_PROXY_URI_ASYNC, "https://proxy/base/v1beta1/upload-async"),
    ],
)
def test_proxy_path(url, uri, expected):
    assert spec.proxy_path(url, uri) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [("cdi-uploadproxy.example.com", "https://cdi-uploadproxy.example.com"), ("http://x:1", "http://x:1")],
)
def test_with_scheme(url, expected):
    assert spec.with_scheme(url) == expected


def test_existing_pvc_checks():
    plan = parse(["pvc", "t"], image_path="/i")
    with pytest.raises(UsageError, match="^PVC t already successfully imported/cloned/updated$"):
        spec.check_existing_pvc({"metadata": {"annotations": {spec.POD_PHASE_ANNOTATION: "Succeeded"}}}, plan)
    with pytest.raises(UsageError, match="^PVC t not available for upload$"):
        spec.check_existing_pvc({"metadata": {}}, plan)
    spec.check_existing_pvc({"metadata": {}}, parse(["pvc", "t"], image_path="/i", no_create=True))
    archive = parse(["pvc", "t"], archive_path="/a", no_create=True)
    with pytest.raises(UsageError, match="^PVC t doesn't have archive contentType annotation$"):
        spec.check_existing_pvc({"metadata": {}}, archive)


def test_missing_data_volume_messages():
    gc = {
        "metadata": {
            "namespace": "ns",
            "annotations": {spec.DELETE_AFTER_COMPLETION_ANNOTATION: "true", spec.POD_PHASE_ANNOTATION: "Succeeded"},
        }
    }
    assert spec.missing_data_volume_message(gc, "t") == (
        "DataVolume already garbage-collected: Assuming PVC ns/t is successfully populated"
    )
    assert spec.missing_data_volume_message({"metadata": {"namespace": "ns"}}, "t") == (
        "No DataVolume is associated with the existing PVC ns/t"
    )


@pytest.mark.parametrize(("phase", "force"), [("WaitForFirstConsumer", False), ("PendingPopulation", False)])
def test_dv_phase_needing_force_bind(phase, force):
    with pytest.raises(
        UsageError,
        match=f"^cannot upload to DataVolume in {phase} phase, make sure the PVC is Bound, or use force-bind flag$",
    ):
        spec.dv_upload_ready({"status": {"phase": phase}}, force)
    assert spec.dv_upload_ready({"status": {"phase": phase}}, True) is False
    assert spec.dv_upload_ready({"status": {"phase": "UploadReady"}}, False) is True


@pytest.mark.parametrize(
    ("value", "ready"), [("true", True), ("True", True), ("1", True), ("t", True), ("yes", False), ("", False)]
)
def test_pod_ready_parses_as_go_parse_bool(value, ready):
    assert spec.pvc_upload_ready({"metadata": {"annotations": {spec.POD_READY_ANNOTATION: value}}}) is ready


def test_event_errors():
    events = [
        {
            "involvedObject": {"kind": "PersistentVolumeClaim", "uid": "p"},
            "reason": "ProvisioningFailed",
            "message": spec.OPTIMISTIC_LOCK_MESSAGE,
        },
        {
            "involvedObject": {"kind": "PersistentVolumeClaim", "uid": "other"},
            "reason": "ProvisioningFailed",
            "message": "x",
        },
        {"involvedObject": {"kind": "DataVolume", "uid": "d"}, "reason": "ErrClaimNotValid", "message": "bad claim"},
    ]
    assert spec.event_error(events, "p", "") is None
    assert spec.event_error(events, "p", "d") == "Claim not valid: bad claim"
    events.append(
        {
            "involvedObject": {"kind": "PersistentVolumeClaim", "uid": "p"},
            "reason": "ProvisioningFailed",
            "message": "no space",
        }
    )
    assert spec.event_error(events, "p", "") == "Provisioning failed: no space"


def test_data_source_bodies():
    plan = parse(["dv", "fedora"], image_path="/i", default_preference="fedora")
    assert spec.data_source(plan, "ns")["spec"] == {"source": {"pvc": {"name": "fedora", "namespace": "ns"}}}
    patch = spec.data_source_patch(
        {"metadata": {"labels": {"a": "b"}}, "spec": {"source": {"snapshot": {"name": "s"}}}}, plan, "ns"
    )
    assert patch == [
        {
            "op": "add",
            "path": "/metadata/labels",
            "value": {"a": "b", "instancetype.kubevirt.io/default-preference": "fedora"},
        },
        {"op": "remove", "path": "/spec/source/snapshot"},
        {"op": "add", "path": "/spec/source/pvc", "value": {"name": "fedora", "namespace": "ns"}},
    ]


def run_policy(retries, statuses):
    """Drive the retry policy as the use case does; returns (posts, tokens, outcome)."""
    policy = spec.RetryPolicy(retries)
    posts, tokens = 0, 1
    answers = iter(statuses)
    while policy.should_try():
        posts += 1
        status = next(answers, statuses[-1])
        if status == 200:
            return posts, tokens, "ok"
        try:
            if policy.failed(status, f"unexpected return value {status}, ") == "refresh":
                tokens += 1
        except spec.UploadFailed as exc:
            return posts, tokens, str(exc)
    return posts, tokens, "exhausted"


def test_retry_with_new_token_on_authorization_error():
    # virtctl: 400, then 401 (refresh), then 400s: 5 POSTs, 2 tokens, the last error is the 400
    posts, tokens, outcome = run_policy(5, [400, 401, 400])
    assert (posts, tokens) == (5, 2)
    assert outcome == "error uploading image after 5 retries: unexpected return value 400, "


def test_first_attempt_401_fails_fast():
    assert run_policy(5, [401]) == (1, 1, "authentication failed: unexpected return value 401, ")


def test_token_refreshes_are_capped_at_three():
    # virtctl: 1 POST(400) + 3 POST(401 with refresh) + 1 POST(401 fail fast), 4 tokens
    posts, tokens, outcome = run_policy(10, [400, 401])
    assert (posts, tokens) == (5, 4)
    assert outcome.startswith("authentication failed")


@pytest.mark.parametrize(("retries", "failures"), [(5, 5), (10, 10)])
def test_retries_before_success(retries, failures):
    assert run_policy(retries, [502] * (failures - 1) + [200])[2] == "ok"
    assert run_policy(retries, [502] * failures)[2].startswith(f"error uploading image after {retries} retries")


@given(st.lists(st.sampled_from([200, 400, 401, 500, 502]), min_size=1, max_size=20), st.integers(1, 12))
def test_policy_is_bounded(statuses, retries):
    posts, tokens, _ = run_policy(retries, statuses)
    assert posts <= retries
    assert tokens <= 1 + spec.MAX_TOKEN_REFRESHES


def test_plain_progress_lines():
    out = io.StringIO()
    now = [0.0]
    progress = PlainProgress(out, 1000, clock=lambda: now[0])
    for sent in range(0, 1001, 50):
        now[0] += 0.5
        progress.update(sent)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("Uploaded 10% (100 B of 1000 B, ")
    assert lines[-1].startswith("Uploaded 100% (1000 B of 1000 B")
    progress.restart()
    assert out.getvalue().splitlines()[-1] == "Retrying the upload from the start"


def test_empty_file_still_reports_100_percent():
    out = io.StringIO()
    progress = PlainProgress(out, 0)
    progress.finish()
    assert out.getvalue().startswith("Uploaded 100% (0 B of 0 B")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_rich_bar_on_a_terminal_only():
    assert isinstance(progress_for(io.StringIO(), 10, "x"), PlainProgress)
    out = Terminal()
    bar = progress_for(out, 4 * 1024 * 1024, "fedora")
    assert isinstance(bar, RichProgress)
    bar.update(2 * 1024 * 1024)
    bar.finish()
    bar.close()
    assert "fedora" in out.getvalue()
    assert "4.0/4.0 MiB" in out.getvalue()


@pytest.mark.parametrize(
    ("count", "text"), [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"), (10 * 1024**3, "10.0 GiB")]
)
def test_human_bytes(count, text):
    assert human_bytes(count) == text


# the command line, without a cluster: every check runs before the kubeconfig is read
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dv", "t", "--size", "1Gi"], "either image-path or archive-path must be provided"),
        (["dv", "t", "u", "--image-path", "/i"], "accepts at most 2 arg(s), received 3"),
        (
            ["dv", "t", "--image-path", "/i", "--wait-secs", "-1"],
            'invalid argument "-1" for "--wait-secs" flag: strconv.ParseUint: parsing "-1": invalid syntax',
        ),
        (
            [
                "dv",
                "t",
                "--image-path",
                "/i",
                "--default-instancetype",
                "u1.small",
                "--default-instancetype-kind",
                "fake.large",
            ],
            'invalid instancetype kind "fake.large", supported values are: virtualmachineinstancetype, virtualmachineclusterinstancetype',
        ),
        (
            ["dv", "t", "--image-path", "/nonexistent/disk.img", "--size", "1Gi"],
            "open /nonexistent/disk.img: no such file or directory",
        ),
    ],
)
def test_cli_checks(args, message):
    result = run_cli(["upload", *args])
    assert (result.exit_code, result.stderr, result.stdout) == (1, f"error: {message}\n", "")


def test_deprecated_flags_say_so(tmp_path):
    result = run_cli(["upload", "--pvc-name", "t", "--pvc-size", "1Gi", "--block-volume"])
    assert result.stderr.splitlines()[:3] == [
        "Flag --pvc-name has been deprecated, specify the name as the second argument instead.",
        "Flag --pvc-size has been deprecated, use --size instead.",
        "Flag --block-volume has been deprecated, specify volume mode (filesystem/block) with --volume-mode instead.",
    ]
    assert result.stderr.splitlines()[-1] == "error: open : no such file or directory"


def test_help_lists_virtctl_flags():
    result = run_cli(["upload", "--help"])
    assert result.exit_code == 0
    for flag in ("--image-path", "--archive-path", "--size", "--storage-class", "--access-mode", "--volume-mode",
                 "--no-create", "--uploadproxy-url", "--insecure", "--wait-secs", "--retry", "--force-bind",
                 "--datasource", "--default-instancetype", "--default-instancetype-kind", "--default-preference",
                 "--default-preference-kind"):  # fmt: skip
        assert flag in result.stdout


def test_state_report_says_what_exists_and_how_to_go_on():
    from kubectl_instancetype.usecases.upload import State

    plan = parse(["pvc", "disk"], archive_path="/a.tar", size="1Gi")
    state = State("ns", plan)
    assert state.report() == "nothing was created"
    state.created, state.total, state.sent = True, 100, 40
    assert state.report() == (
        "PersistentVolumeClaim ns/disk was created; 40 of 100 bytes were sent (the upload is incomplete); resume with "
        "`kubectl instancetype upload pvc disk -n ns --no-create --archive-path /a.tar` or remove it with "
        "`kubectl delete pvc disk -n ns`"
    )
    state.sent, state.attempts = 0, 2
    assert "the upload did not complete (2 attempts failed)" in state.report()
    state.uploaded, state.datasource = True, "created"
    assert state.report() == (
        "PersistentVolumeClaim ns/disk was created; the upload completed; CDI goes on processing it; "
        "DataSource ns/disk was created"
    )
    existing = State("ns", parse(["dv", "disk"], image_path="/i", no_create=True), existing=True)
    assert existing.report().startswith("DataVolume ns/disk exists; no data was uploaded; resume with ")
