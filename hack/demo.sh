#!/usr/bin/env bash
# A short tour of the plugin through the real kubectl, against the local control plane (make demo).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN_DIR="$(.venv/bin/python -m hack.localcluster bin-dir)"
export KUBECONFIG="$PWD/.cluster/kubeconfig"
# Only existing directories: kubectl plugin list warns about every missing one.
CLEAN_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do [ -d "$dir" ] && printf '%s:' "$dir"; done)
export PATH="$PWD/.venv/bin:$BIN_DIR:${CLEAN_PATH%:}"
# The Go tools' caches stay the user's (Prometheus and promtool for the rightsize step are found, never rebuilt,
# under another HOME): hack/lib/gobuild.sh's cache root and Go's module and build caches, resolved before HOME moves.
export KUBECTL_INSTANCETYPE_CACHE="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
if command -v go >/dev/null; then
  { read -r GOPATH; read -r GOMODCACHE; read -r GOCACHE; read -r GOENV; } < <(go env GOPATH GOMODCACHE GOCACHE GOENV)
  export GOPATH GOMODCACHE GOCACHE GOENV
fi
export HOME="${DEMO_HOME:-$PWD/.cluster/home}"  # no stray ~/.kube/cache or kuberc
mkdir -p "$HOME"

step() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$@"
}

step_sh() {  # a pipeline, shown as written
  printf '\n\033[1m$ %s\033[0m\n' "$1"
  bash -c "$1" || true
}

step kubectl instancetype version
step kubectl plugin list --name-only
step kubectl instancetype list --min-cpu 4 --max-cpu 4 --class general.purpose
step kubectl instancetype list --min-memory 16Gi --max-memory 32Gi --class memory.intensive -o wide
step kubectl instancetype list --hugepages=1Gi --cpu 2 -A
step kubectl instancetype list preferences --os-type windows --min-memory 4Gi
step kubectl instancetype list preferences --arch arm64 -o name
step kubectl get virtualmachineclusterinstancetypes -l instancetype.kubevirt.io/cpu=4
step kubectl instancetype create vm --name demo-fedora --instancetype u1.medium --preference fedora \
  --volume-containerdisk src:quay.io/containerdisks/fedora:41 -n demo --dry-run=client -o yaml
kubectl delete virtualmachine demo-fedora -n demo --ignore-not-found >/dev/null
step kubectl instancetype create vm --name demo-fedora --instancetype u1.medium --preference fedora \
  --volume-containerdisk src:quay.io/containerdisks/fedora:41 -n demo
kubectl delete virtualmachine demo-halted -n demo --ignore-not-found >/dev/null
step kubectl instancetype create vm --name demo-halted --instancetype u1.small --preference fedora \
  --run-strategy Halted --volume-containerdisk src:quay.io/containerdisks/fedora:41 -n demo
# KubeVirt's virt-controller stores a ControllerRevision per type and starts demo-fedora: kube-scheduler binds its
# virt-launcher pod to one of the simulated nodes (KWOK runs it) and the VMI is Scheduled there; no virt-handler
# runs the guest, so the VM shows Starting; demo-halted shows Stopped.
kubectl wait vm/demo-fedora vm/demo-halted -n demo --timeout=60s \
  --for=jsonpath='{.status.instancetypeRef.controllerRevisionRef.name}' >/dev/null 2>&1 || true
kubectl wait vmi/demo-fedora -n demo --timeout=60s --for=jsonpath='{.status.phase}'=Scheduled >/dev/null 2>&1 || true
step kubectl get virtualmachines -n demo
# The simulated nodes (KWOK; shapes from hack/localcluster/nodes.yaml), labelled as virt-handler labels them.
step kubectl get nodes -L kubernetes.io/arch,kubevirt.io/schedulable,cpumanager
step kubectl get pods -n demo -l kubevirt.io=virt-launcher -o wide
step kubectl instancetype revisions vm/demo-fedora -n demo
step kubectl instancetype expand vm/demo-fedora -n demo --diff
step kubectl instancetype expand vm/demo-fedora -n demo --explain
step kubectl instancetype usage virtualmachineclusterinstancetype/u1.medium -n demo
step kubectl instancetype lint --all
step kubectl instancetype switch vm/demo-fedora -n demo --instancetype u1.large --plan
# The controller's answer (--wait): a new revision, the VMI's sockets live-updated, memory only after a restart.
step kubectl instancetype switch vm/demo-fedora -n demo --instancetype u1.large --wait --timeout 60s
step kubectl instancetype revisions vm/demo-fedora -n demo
step kubectl get vmi demo-fedora -n demo -o jsonpath='{.spec.domain.cpu.sockets}{"\n"}'
step kubectl get vm demo-fedora -n demo \
  -o jsonpath='{.status.conditions[?(@.type=="RestartRequired")].message}{"\n"}'
step kubectl instancetype switch --refresh vm/demo-fedora -n demo --plan
step kubectl instancetype usage vmcf/u1.large --check-delete -A || true
# A VM sized by hand (no instance type): adopt picks the smallest fitting type and a preference, and proves
# the expanded spec is unchanged field by field before --apply writes it.
kubectl delete virtualmachine demo-flat -n demo --ignore-not-found >/dev/null
kubectl apply -n demo -f - >/dev/null <<'VM'
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: demo-flat}
spec:
  runStrategy: Halted
  template:
    metadata:
      annotations: {vm.kubevirt.io/os: linux}
    spec:
      domain:
        cpu: {sockets: 2}
        memory: {guest: 8Gi}
        devices:
          disks: [{name: root, disk: {bus: virtio}}]
          interfaces: [{name: default, masquerade: {}, model: virtio}]
          rng: {}
      networks: [{name: default, pod: {}}]
      volumes: [{name: root, containerDisk: {image: quay.io/containerdisks/fedora:41}}]
VM
step kubectl instancetype adopt vm/demo-flat -n demo
step kubectl instancetype adopt vm/demo-flat -n demo --apply --allow-changes
step kubectl instancetype expand vm/demo-flat -n demo --explain
step kubectl instancetype create vm --instancetype u1.mediun --preference fedora -n demo --dry-run=server || true
step kubectl instancetype create vm --instancetype u1.nano --preference windows.11 -n demo || true
step kubectl instancetype recommend --preference fedora --max 5
step kubectl instancetype recommend --preference windows.11 --class general.purpose --max 2 --show-rejected
kubectl delete virtualmachineinstancetype u1.medium.6g -n demo --ignore-not-found >/dev/null
step kubectl instancetype derive u1.medium --name u1.medium.6g --memory 6Gi -n demo
step kubectl instancetype list --namespaced -n demo --memory 6Gi
step kubectl instancetype matrix -n demo
step kubectl instancetype catalog list --compatible-with rhel.9.dpdk --class general.purpose
step kubectl instancetype catalog diff --exit-code

kubectl apply -n demo -f - >/dev/null <<'PVC'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: fedora-disk}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
PVC
step kubectl instancetype label pvc/fedora-disk -n demo --default-instancetype u1.medium --default-preference fedora --overwrite
step kubectl instancetype infer pvc/fedora-disk -n demo -o wide
kubectl delete virtualmachine demo-inferred -n demo --ignore-not-found >/dev/null
step kubectl instancetype create vm --name demo-inferred --volume-pvc src:fedora-disk -n demo
step kubectl instancetype infer vm/demo-inferred -n demo --explain
step kubectl instancetype infer pvc/no-such-disk -n demo || true
# Will it run? (docs/scheduling.md) Where a VM fits on the simulated nodes, a hugepages type that fits nowhere (exit 1),
# and how many more VMs of some types the nodes take now.
step kubectl instancetype fits vm/demo-fedora -n demo
step kubectl instancetype fits --instancetype m1.4xlarge1gi -n demo || true
step kubectl instancetype capacity --instancetype u1.medium --instancetype u1.2xlarge --instancetype m1.xlarge1gi -n demo
# Measured use (docs/rightsize.md): VMs with three days of history (written by the virt-handler metrics double,
# backfilled by promtool) in the real Prometheus with KubeVirt's recording rules; one finding per profile.
.venv/bin/python -m hack.localcluster.prometheus demo demo || true
# Many clusters (docs/fleet.md): the plane (local) and two more kube-apiservers on its etcd, each under its own
# --etcd-prefix (hack/localcluster/fleet.py): edge-1 holds an older catalog (common-instancetypes v1.6.0 labels,
# u1.2xlarge and windows.11 missing, u1.medium with 6Gi), edge-2 the plane's. One kubeconfig names the three.
(
  export KUBECONFIG="$PWD/.cluster/fleet-kubeconfig"
  step kubectl config get-contexts
  step kubectl instancetype list vmcf --all-contexts --cpu 4 --class general.purpose
  # a name one context lacks: that context's warning, the others' rows, exit status 1
  step kubectl instancetype list vmcf u1.medium u1.2xlarge --all-contexts || true
  step kubectl instancetype get vmcf/u1.medium --all-contexts -o jsonpath='{range .items[*]}{.metadata.annotations.kubectl-instancetype/context}{"\t"}{.spec.memory.guest}{"\n"}{end}'
  step kubectl instancetype fleet diff --kind vmcf,vmcp --contexts 'local|edge-2'
  # every object of edge-1 carries another release's label: the lines that say more than that, then their count
  step_sh "kubectl instancetype fleet diff --kind vmcf,vmcp | grep -v 'common-instancetypes v1.6.0'"
  step_sh "kubectl instancetype fleet diff --kind vmcf,vmcp | grep -c 'common-instancetypes v1.6.0'"
  step kubectl instancetype fleet diff vm/demo-fedora -n demo --context local --to edge-1 || true
)

cat <<MSG

The control plane keeps running. To use it from this shell:
  export KUBECONFIG=$KUBECONFIG PATH=$PWD/.venv/bin:$BIN_DIR:\$PATH
Stop it with: make cluster-down
MSG
