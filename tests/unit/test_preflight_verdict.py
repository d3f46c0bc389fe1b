"""The pre-flight's stand-in for KubeVirt's webhooks: denials worded as the API server returns them."""

from __future__ import annotations

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.usecases.preflight import (
    MUTATING_WEBHOOK,
    VALIDATING_WEBHOOK,
    AdmissionDenied,
    Cause,
    Denial,
    Verdict,
    explain,
    is_admission_denial,
)

CONFLICT = "VM field(s) spec.template.spec.domain.cpu.{} conflicts with selected instance type"


def test_causes_are_joined_as_webhookutils_joins_them() -> None:
    causes = [Cause(f"f{i}", f"m{i}") for i in range(12)]
    denial = Denial.from_causes(VALIDATING_WEBHOOK, causes)
    assert denial.message == ", ".join(f"m{i}" for i in range(10)) + ", and 2 more validation errors"
    assert (denial.code, denial.reason, len(denial.causes)) == (422, "Invalid", 10)
    assert denial.status_message.startswith(
        'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: m0, m1'
    )


def test_a_denial_renders_like_the_servers_answer_with_what_to_change() -> None:
    denial = Denial.from_causes(
        VALIDATING_WEBHOOK, [Cause("spec.template.spec.domain.cpu.sockets", CONFLICT.format("sockets"))]
    )
    verdict = Verdict({"spec": {"instancetype": {"name": "u1.medium"}}}, denial=denial, check="conflicts")
    error = AdmissionDenied(denial.as_api_error(), explain(verdict, denial.status_message))
    assert error.render() == (
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        + CONFLICT.format("sockets")
        + "; the instance type u1.medium sets these fields: remove them from the VirtualMachine"
    )
    assert is_admission_denial(error)
    assert not is_admission_denial(APIError(403, "virtualmachines.kubevirt.io is forbidden", "Forbidden"))


def test_an_inference_denial_is_a_bad_request_without_reason() -> None:
    message = "unable to find required instancetype.kubevirt.io/default-instancetype label on the volume"
    denial = Denial(MUTATING_WEBHOOK, message, 400, "")
    assert AdmissionDenied(denial.as_api_error(), explain(None, message)).render() == (
        f'Error from server: admission webhook "virtualmachines-mutator.kubevirt.io" denied the request: {message}; '
        "label the volume with kubectl instancetype label, or name the type with --instancetype/--preference"
    )


def test_requirements_and_spread_explanations_name_the_preference() -> None:
    verdict = Verdict({"spec": {"instancetype": {"name": "u1.nano"}, "preference": {"name": "windows.11"}}})
    requirement = "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU"
    assert explain(verdict, requirement) == (
        "choose an instance type that meets the preference windows.11's requirements "
        "(kubectl instancetype recommend --preference windows.11)"
    )
    spread = "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference"
    assert "spread topology divides" in explain(verdict, spread)
    assert explain(verdict, "Input device can have only tablet type.") == ""


def test_a_foreseen_denial_is_explained_by_the_preflights_problems_not_the_servers_words() -> None:
    # the pre-flight's check says which rule denies the VM: the server's message is not read for the hint
    spec = {"spec": {"instancetype": {"name": "u1.medium"}, "preference": {"name": "fedora"}}}
    denial = Denial.from_causes(VALIDATING_WEBHOOK, [Cause("spec.instancetype", "whatever the server said")])
    spread = explain(Verdict(spec, denial=denial, check="spread"), "admission webhook denied the request: reworded")
    assert spread.startswith("choose an instance type whose vCPU count the preference fedora's spread topology")
    conflicts = explain(Verdict(spec, denial=denial, check="conflicts"), CONFLICT.format("sockets"))
    assert conflicts == "the instance type u1.medium sets these fields: remove them from the VirtualMachine"
    # the whole-VM rules have no hint, whatever the message says
    assert explain(Verdict(spec, denial=denial, check="vm"), CONFLICT.format("sockets")) == ""
    # a denial the pre-flight did not foresee (no denial in the verdict) is still recognised by its words
    assert explain(Verdict(spec), CONFLICT.format("sockets")).startswith("the instance type u1.medium sets")


def test_the_preflight_records_which_check_denies() -> None:
    from kubectl_instancetype.instancetype.expand import admission_check

    vm = {"spec": {"template": {"spec": {"domain": {"cpu": {"sockets": 2}}}}}}
    instancetype = {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}}
    checked = admission_check(vm, instancetype, None)
    assert checked.check == "conflicts"
    assert [problem.path for problem in checked.problems] == ["spec.template.spec.domain.cpu.sockets"]
    needs_more = {"requirements": {"cpu": {"guest": 4}}}
    assert admission_check({"spec": {"template": {"spec": {}}}}, instancetype, needs_more).check == "cpu"
    assert admission_check({"spec": {"template": {"spec": {}}}}, instancetype, {}).check == ""
