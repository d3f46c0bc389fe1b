package main

import (
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/components"
)

func wrap(f func() (*extv1.CustomResourceDefinition, error)) func() (any, error) {
	return func() (any, error) { return f() }
}

// The CRD list of createCrdsFor... in pkg/virt-operator/resource/generate/install/strategy.go, in its order.
func crdFunctions() []func() (any, error) {
	functions := []func() (*extv1.CustomResourceDefinition, error){
		components.NewVirtualMachineInstanceCrd, components.NewPresetCrd, components.NewReplicaSetCrd,
		components.NewVirtualMachineCrd, components.NewVirtualMachineInstanceMigrationCrd,
		components.NewVirtualMachineSnapshotCrd, components.NewVirtualMachineSnapshotContentCrd,
		components.NewVirtualMachineRestoreCrd, components.NewVirtualMachineInstancetypeCrd,
		components.NewVirtualMachineClusterInstancetypeCrd, components.NewVirtualMachinePoolCrd,
		components.NewMigrationPolicyCrd, components.NewVirtualMachinePreferenceCrd,
		components.NewVirtualMachineClusterPreferenceCrd, components.NewVirtualMachineExportCrd,
		components.NewVirtualMachineCloneCrd, components.NewVirtualMachineBackupCrd,
		components.NewVirtualMachineBackupTrackerCrd,
	}
	var wrapped []func() (any, error)
	for _, f := range append(functions, versionCrdFunctions...) {
		wrapped = append(wrapped, wrap(f))
	}
	return wrapped
}
