// Command kubevirtref runs KubeVirt's own instance type expansion (kubevirt.io/kubevirt/pkg/instancetype/expand at
// the version in ../KUBEVIRT_VERSION) on cases given as JSON, for kubectl-instancetype's differential tests
// (tests/unit/test_expand_differential.py).
//
//	kubevirtref expand     stdin: a JSON array of {"vm": VirtualMachine, "instancetype": spec|null,
//	                       "preference": spec|null, "arch": "amd64", "config": KubeVirtConfiguration|null};
//	                       stdout: a JSON array of
//	                       {"vm": expanded VirtualMachine} or {"error": KubeVirt's error text}
//	kubevirtref admit      stdin: the same cases; stdout: a JSON array of the StatusCauses ({"message", "field"})
//	                       VM admission denies each VM with (spread check, conflicts, requirements; [] when admitted), as
//	                       the validating webhook runs them (pkg/instancetype/webhooks/vm and vms-admitter.go)
//	kubevirtref roundtrip  stdin: a JSON array of VirtualMachines; stdout: each decoded into KubeVirt's
//	                       types and encoded again (what the API returns for it), as a JSON array
//
// The instance type and preference come from the case rather than from informers: expand.New takes the finders
// as interfaces, so the ones here hand back the given specs. The cluster configuration is the case's
// spec.configuration of a KubeVirt CR (KubeVirt's defaults when absent) on the case's architecture.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfield "k8s.io/apimachinery/pkg/util/validation/field"
	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"

	"kubevirt.io/kubevirt/pkg/defaults"
	"kubevirt.io/kubevirt/pkg/instancetype/apply"
	"kubevirt.io/kubevirt/pkg/instancetype/expand"
	"kubevirt.io/kubevirt/pkg/instancetype/preference/requirements"
	"kubevirt.io/kubevirt/pkg/instancetype/preference/validation"
	"kubevirt.io/kubevirt/pkg/testutils"
	virtconfig "kubevirt.io/kubevirt/pkg/virt-config"
)

type expandCase struct {
	VM           *virtv1.VirtualMachine                  `json:"vm"`
	Instancetype *v1beta1.VirtualMachineInstancetypeSpec `json:"instancetype"`
	Preference   *v1beta1.VirtualMachinePreferenceSpec   `json:"preference"`
	Arch         string                                  `json:"arch"`
	Config       *virtv1.KubeVirtConfiguration           `json:"config"`
}

type expandResult struct {
	VM    *virtv1.VirtualMachine `json:"vm,omitempty"`
	Error *string                `json:"error,omitempty"`
}

type fixedFinder struct {
	instancetype *v1beta1.VirtualMachineInstancetypeSpec
	preference   *v1beta1.VirtualMachinePreferenceSpec
}

func (f fixedFinder) Find(*virtv1.VirtualMachine) (*v1beta1.VirtualMachineInstancetypeSpec, error) {
	return f.instancetype, nil
}

func (f fixedFinder) FindPreference(*virtv1.VirtualMachine) (*v1beta1.VirtualMachinePreferenceSpec, error) {
	return f.preference, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kubevirtref expand|roundtrip < input.json")
		os.Exit(2)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var out any
	switch os.Args[1] {
	case "expand":
		var cases []expandCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := make([]expandResult, 0, len(cases))
		for _, c := range cases {
			results = append(results, run(c))
		}
		out = results
	case "admit":
		var cases []expandCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := make([][]metav1.StatusCause, 0, len(cases))
		for _, c := range cases {
			results = append(results, admit(c))
		}
		out = results
	case "roundtrip":
		var vms []virtv1.VirtualMachine
		if err := json.Unmarshal(input, &vms); err != nil {
			fail(err)
		}
		out = vms
	default:
		fail(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
	encoded, err := json.Marshal(out)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(encoded)
}

func clusterConfig(c expandCase) *virtconfig.ClusterConfig {
	arch := c.Arch
	if arch == "" {
		arch = "amd64"
	}
	kv := &virtv1.KubeVirt{
		ObjectMeta: metav1.ObjectMeta{Name: "kubevirt", Namespace: "kubevirt"},
		Status:     virtv1.KubeVirtStatus{DefaultArchitecture: arch},
	}
	if c.Config != nil {
		kv.Spec.Configuration = *c.Config
	}
	config, _, _ := testutils.NewFakeClusterConfigUsingKVWithCPUArch(kv, arch)
	return config
}

func run(c expandCase) expandResult {
	finder := fixedFinder{instancetype: c.Instancetype, preference: c.Preference}
	expanded, err := expand.New(clusterConfig(c), finder, finder).Expand(c.VM)
	if err != nil {
		text := err.Error()
		return expandResult{Error: &text}
	}
	return expandResult{VM: expanded}
}

// admit follows the instance type part of the VM validating webhook: InstancetypeAdmitter.ApplyToVM (spread
// check, then apply to a copy), VMI-spec defaults, then the preference requirements.
func admit(c expandCase) []metav1.StatusCause {
	causes := []metav1.StatusCause{}
	if c.Instancetype == nil && c.Preference == nil {
		return causes
	}
	if spread := validation.CheckSpreadCPUTopology(c.Instancetype, c.Preference); spread != nil {
		return append(causes, spread.StatusCauses()...)
	}
	vm := c.VM.DeepCopy()
	conflicts := apply.NewVMIApplier().ApplyToVMI(
		k8sfield.NewPath("spec", "template", "spec"), c.Instancetype, c.Preference,
		&vm.Spec.Template.Spec, &vm.Spec.Template.ObjectMeta,
	)
	if len(conflicts) > 0 {
		return append(causes, conflicts.StatusCauses()...)
	}
	if err := defaults.SetDefaultVirtualMachineInstanceSpec(clusterConfig(c), &vm.Spec.Template.Spec); err != nil {
		return append(causes, metav1.StatusCause{Message: err.Error()})
	}
	if conflicts, err := requirements.New().Check(c.Instancetype, c.Preference, &vm.Spec.Template.Spec); err != nil {
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseTypeFieldValueNotFound,
			Message: fmt.Sprintf("failure checking preference requirements: %v", err),
			Field:   conflicts.String(),
		})
	}
	return causes
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubevirtref:", err)
	os.Exit(1)
}
