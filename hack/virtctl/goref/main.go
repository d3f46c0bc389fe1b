// Command goref prints reference outputs of the Go libraries whose behaviour kubectl-instancetype
// reproduces in Python, for the differential tests (tests/unit/test_virtctl_differential.py).
//
//	goref yaml      stdin: a JSON array of documents; stdout: each as sigs.k8s.io/yaml prints it, NUL-terminated
//	goref quantity  stdin: a JSON array of strings; stdout: a JSON array of {"value": ..., "error": ...}
//	                (value = resource.ParseQuantity(s).String(), error = its error text)
//	goref requirements  stdin: a JSON array of {"instancetype": spec|null, "preference": spec, "vmi": VMI spec};
//	                stdout: a JSON array of KubeVirt's preference requirement error texts (null when met)
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"kubevirt.io/kubevirt/pkg/instancetype/preference/requirements"
	"sigs.k8s.io/yaml"
)

type requirementsCase struct {
	Instancetype *v1beta1.VirtualMachineInstancetypeSpec `json:"instancetype"`
	Preference   *v1beta1.VirtualMachinePreferenceSpec   `json:"preference"`
	VMI          virtv1.VirtualMachineInstanceSpec       `json:"vmi"`
}

type quantityResult struct {
	Value *string `json:"value"`
	Error *string `json:"error"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goref yaml|quantity|requirements < input.json")
		os.Exit(2)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	switch os.Args[1] {
	case "yaml":
		var documents []json.RawMessage
		if err := json.Unmarshal(input, &documents); err != nil {
			fail(err)
		}
		for _, document := range documents {
			out, err := yaml.JSONToYAML(document)
			if err != nil {
				fail(err)
			}
			os.Stdout.Write(append(out, 0))
		}
	case "quantity":
		var texts []string
		if err := json.Unmarshal(input, &texts); err != nil {
			fail(err)
		}
		results := make([]quantityResult, 0, len(texts))
		for _, text := range texts {
			quantity, err := resource.ParseQuantity(text)
			if err != nil {
				message := err.Error()
				results = append(results, quantityResult{Error: &message})
				continue
			}
			value := quantity.String()
			results = append(results, quantityResult{Value: &value})
		}
		if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
			fail(err)
		}
	case "requirements":
		var cases []requirementsCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := make([]*string, 0, len(cases))
		for i := range cases {
			_, err := requirements.New().Check(cases[i].Instancetype, cases[i].Preference, &cases[i].VMI)
			if err != nil {
				message := err.Error()
				results = append(results, &message)
				continue
			}
			results = append(results, nil)
		}
		if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
			fail(err)
		}
	default:
		fail(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
