// cdi-manifests prints, as one JSON List, what CDI's operator writes for cdi-apiserver
// (kubevirt.io/containerized-data-importer/pkg/operator/resources/cluster): the CDI CRD and CDI's other CRDs ("crd-resources"), the
// apiserver's cluster role and binding ("apiserver-rbac"), the aggregated cdi.kubevirt.io roles
// ("aggregate-roles"), the apiserver's service account, role and binding (namespaced "apiserver"), and its APIService and admission webhook configurations ("apiserver-registrations",
// without a client: no CA bundle, which hack/localcluster fills in with the service references it rewrites).
//
//	cdi-manifests [-namespace cdi]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kubevirt.io/containerized-data-importer/pkg/operator/resources/cluster"
	"kubevirt.io/containerized-data-importer/pkg/operator/resources/namespaced"
	"kubevirt.io/containerized-data-importer/pkg/operator/resources/operator"
)

func main() {
	namespace := flag.String("namespace", "cdi", "CDI's install namespace")
	flag.Parse()
	args := &cluster.FactoryArgs{Namespace: *namespace}
	// The CDI CRD itself comes with the operator's own manifests (pkg/operator/resources/operator).
	items := []client.Object{operator.NewCdiCrd()}
	for _, group := range []string{"crd-resources", "apiserver-rbac", "aggregate-roles"} {
		objects, err := cluster.CreateStaticResourceGroup(group, args)
		if err != nil {
			fail(err)
		}
		items = append(items, objects...)
	}
	objects, err := cluster.CreateDynamicResourceGroup("apiserver-registrations", args)
	if err != nil {
		fail(err)
	}
	items = append(items, objects...)
	// The apiserver's service account, role and binding in CDI's namespace (its Deployment and Service are what
	// the local plane replaces with a process and an ExternalName service).
	namespacedObjects, err := namespaced.CreateResourceGroup("apiserver", &namespaced.FactoryArgs{
		Namespace: *namespace, APIServerImage: "cdi-apiserver", Verbosity: "1", PullPolicy: "IfNotPresent",
	})
	if err != nil {
		fail(err)
	}
	for _, object := range namespacedObjects {
		switch object.(type) {
		case *corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding:
			items = append(items, object)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cdi-manifests:", err)
	os.Exit(1)
}
