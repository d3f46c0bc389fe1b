// kubevirt-manifests prints, as one JSON List, what virt-operator would install for virt-api and virt-controller
// (kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/install strategy.go): KubeVirt's CRDs, the
// virt-api-mutator and virt-api-validator webhook configurations, the subresources.kubevirt.io APIServices, and
// the service accounts, roles and bindings of virt-api and virt-controller plus the aggregated kubevirt.io:admin,
// edit and view cluster roles (pkg/virt-operator/resource/generate/rbac). hack/localcluster installs them; the
// webhooks' and APIServices' service references are rewritten there to the local processes.
//
//	kubevirt-manifests [-namespace kubevirt]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"

	"kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/components"
	"kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/rbac"
)

func main() {
	namespace := flag.String("namespace", "kubevirt", "KubeVirt's install namespace")
	flag.Parse()
	var items []any
	// The KubeVirt CRD itself comes with virt-operator's own manifests; the rest is the install strategy's list.
	for _, newCrd := range append([]func() (any, error){wrap(components.NewKubeVirtCrd)}, crdFunctions()...) {
		crd, err := newCrd()
		if err != nil {
			fail(err)
		}
		items = append(items, crd)
	}
	items = append(items,
		components.NewVirtAPIMutatingWebhookConfiguration(*namespace),
		components.NewVirtAPIValidatingWebhookConfiguration(*namespace),
	)
	for _, service := range components.NewVirtAPIAPIServices(*namespace) {
		items = append(items, service)
	}
	for _, objects := range [][]runtime.Object{
		rbac.GetAllApiServer(*namespace), rbac.GetAllController(*namespace, false), rbac.GetAllCluster(),
	} {
		for _, object := range objects {
			items = append(items, object)
		}
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubevirt-manifests:", err)
	os.Exit(1)
}
