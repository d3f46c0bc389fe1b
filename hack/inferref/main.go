// Command inferref runs KubeVirt's own inferFromVolume code (kubevirt.io/kubevirt/pkg/instancetype/infer, the
// version in ../KUBEVIRT_VERSION) against a real API server, for the differential test of the plugin's resolver
// (tests/integration/test_infer_differential.py).
//
//	inferref KUBECONFIG < vms.json
//
// stdin: a JSON array of VirtualMachines (each with metadata.namespace set, as the webhook's request has it).
// stdout: a JSON array, one entry per VM: {"spec": the VM spec after Infer (as the mutating webhook leaves it),
// "error": the error text or null, "ignorable": whether that error is KubeVirt's IgnoreableInferenceError}.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/client-go/kubecli"
	"kubevirt.io/kubevirt/pkg/instancetype/infer"
)

type result struct {
	Spec      virtv1.VirtualMachineSpec `json:"spec"`
	Error     *string                   `json:"error"`
	Ignorable bool                      `json:"ignorable"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: inferref KUBECONFIG < vms.json")
		os.Exit(2)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var vms []virtv1.VirtualMachine
	if err := json.Unmarshal(input, &vms); err != nil {
		fail(err)
	}
	client, err := kubecli.GetKubevirtClientFromFlags("", os.Args[1])
	if err != nil {
		fail(err)
	}
	handler := infer.New(client)
	results := make([]result, 0, len(vms))
	for i := range vms {
		vm := &vms[i]
		entry := result{}
		if err := handler.Infer(vm); err != nil {
			message := err.Error()
			entry.Error = &message
			var ignorable *infer.IgnoreableInferenceError
			entry.Ignorable = errors.As(err, &ignorable)
		}
		entry.Spec = vm.Spec
		results = append(results, entry)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
