//go:build !kubevirt_v1_8

package main

import (
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/components"
)

// KubeVirt v1.9 adds the Plugin CRD (components.NewPluginCrd).
var versionCrdFunctions = []func() (*extv1.CustomResourceDefinition, error){components.NewPluginCrd}
