// Command kubevirtref runs KubeVirt's own instance type expansion (kubevirt.io/kubevirt/pkg/instancetype/expand at
// the version in ../KUBEVIRT_VERSION) on cases given as JSON, for kubectl-instancetype's differential tests
// (tests/unit/test_expand_differential.py).
//
//	kubevirtref expand     stdin: a JSON array of {"vm": VirtualMachine, "instancetype": spec|null,
//	                       "preference": spec|null, "arch": "amd64", "config": KubeVirtConfiguration|null};
//	                       stdout: a JSON array of
//	                       {"vm": expanded VirtualMachine} or {"error": KubeVirt's error text}
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
	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"

	"kubevirt.io/kubevirt/pkg/instancetype/expand"
	"kubevirt.io/kubevirt/pkg/testutils"
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

func run(c expandCase) expandResult {
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
	finder := fixedFinder{instancetype: c.Instancetype, preference: c.Preference}
	expanded, err := expand.New(config, finder, finder).Expand(c.VM)
	if err != nil {
		text := err.Error()
		return expandResult{Error: &text}
	}
	return expandResult{VM: expanded}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubevirtref:", err)
	os.Exit(1)
}
