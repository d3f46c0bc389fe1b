# kubectl-instancetype: developer entry points. `make demo` and `make test` are all a fresh clone needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: help venv test lint completion-table fastpath-table docs generate gotypes schemas unit cluster cluster-down demo bench controlplane kubevirt tools krew clean \
	release-version release-archive smoke release-manifest dist dist-check actionlint

## help: these descriptions (the ## lines of this Makefile)
help:
	@sed -n 's/^## \{0,1\}//p' Makefile

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test,bench]'
	touch $@

# the editable install copies the wheel's scripts (the generated sh completion helper) once: keep its copy current
$(VENV)/bin/kubectl_complete-instancetype: kubectl_instancetype/cli/completion_helper.sh $(VENV)/.installed
	cp kubectl_instancetype/cli/completion_helper.sh $@

venv: $(VENV)/.installed $(VENV)/bin/kubectl_complete-instancetype

## controlplane: build etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl v1.36.3 from Go
##               modules (cached per version)
controlplane:
	bash hack/controlplane/build.sh

## kubevirt: build KubeVirt's virt-api and virt-controller (every version in hack/kubevirt/) and CDI's cdi-apiserver
kubevirt:
	@for version in $$(cd hack/kubevirt && ls -d v*/ | tr -d /); do \
		KUBEVIRT_VERSION=$$version bash hack/kubevirt/build.sh >/dev/null || exit 1; \
	done
	bash hack/cdi/build.sh >/dev/null

## tools: every Go binary the tests use, built once per machine and cached by version: the control plane,
##        KubeVirt (v1.9.0 and v1.8.0) and CDI, virtctl + goref, krew, KubeVirt's infer and expand references, the
##        distribution registry, actionlint, KWOK (simulated nodes), Prometheus + promtool, tsdbwrite (rightsize's
##        bench history as TSDB blocks) and KubeVirt's rule file
tools:
	@if command -v go >/dev/null 2>&1; then \
		for script in hack/controlplane/build.sh hack/virtctl/build.sh hack/krew/build.sh hack/inferref/build.sh \
			hack/kubevirtref/build.sh hack/kubevirtref/build-gotypes.sh hack/registry/build.sh hack/actionlint/build.sh \
			hack/kwok/build.sh hack/prometheus/build.sh hack/prometheus/build-tsdbwrite.sh hack/kubevirtrules/build.sh; do \
			bash $$script >/dev/null || exit 1; \
		done; \
		$(MAKE) --no-print-directory kubevirt || exit 1; \
	else echo "Go is not installed: the tests that need the control plane or a Go reference will be skipped" >&2; fi

## test: lint and type checks, the Go tools, then the whole suite (unit, integration on the local control plane,
##       e2e through kubectl, the krew package through the real krew, pip/pipx/uv installs)
test: venv lint tools
	KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1 $(PY) -m pytest $(PYTEST_ARGS)

## krew: the frozen one-folder build for this machine, packed as dist/krew/kubectl-instancetype_<os>_<arch>.tar.gz,
##       and dist/krew/instancetype.yaml generated from plugin.yaml with the archives' sha256
krew: venv
	$(PY) -m hack.krew

## The release's steps (.github/workflows/release.yml runs the same commands on each platform; docs/krew.md).
## release-version: the tag (TAG=vX.Y.Z, optional), kubectl_instancetype/__init__.py, plugin.yaml and .krew.yaml agree
release-version: venv
	$(PY) -m hack.release version $(if $(TAG),--tag $(TAG))

## release-archive: this machine's frozen build packed as dist/release/kubectl-instancetype_<os>_<arch>.tar.gz + .sha256
release-archive: venv
	$(PY) -m hack.release archive

## smoke: unpack that archive as krew does and run the frozen executable (version, catalog list, create vm
##        --dry-run=client, completion, error paths)
smoke: release-archive
	$(PY) -m hack.release smoke

## release-manifest: dist/release/instancetype.yaml from every platform's archive (all five required), validated by
##                   validate-krew-manifest and installed per platform by the real krew
release-manifest: venv
	$(PY) -m hack.release manifest

## dist: the sdist and the wheel in dist/python; dist-check: twine check, the wheel installed into a clean venv and run
dist: venv
	$(PY) -m hack.release dist

dist-check: dist
	$(PY) -m hack.release dist-check

## actionlint: check .github/workflows with rhysd/actionlint (hack/actionlint, built once per version)
actionlint:
	"$$(bash hack/actionlint/build.sh)" -shellcheck= -pyflakes= .github/workflows/*.yml

## lint: ruff (lint + format check) and mypy (strict on the domain and the use cases)
lint: venv
	$(VENV)/bin/ruff check kubectl_instancetype tests hack bench
	$(VENV)/bin/ruff format --check kubectl_instancetype tests hack bench
	$(VENV)/bin/mypy kubectl_instancetype

## completion-table: regenerate what shell completion knows (commands, flags, values), the sh completion helper
##                   generated from it (cli/completion_helper.sh) and completions/
completion-table: venv
	$(PY) -m kubectl_instancetype.cli.completion_spec
	$(PY) -m kubectl_instancetype.cli.completion_shell
	$(PY) -c 'from pathlib import Path; from kubectl_instancetype.cli.completion_scripts import SCRIPTS, FILE_NAMES; [Path("completions", FILE_NAMES[s]).write_text(t) for s, t in SCRIPTS.items()]'

## fastpath-table: regenerate how the hot commands parse without Typer (cli/fastpath_data.py, from the app)
fastpath-table: venv
	$(PY) -m kubectl_instancetype.cli.fastpath_spec

## docs: regenerate the command reference docs/commands/ from the app (a test fails when it is not current)
docs: venv
	$(PY) -m kubectl_instancetype.cli.docgen

## generate: everything generated from the app (completion table and scripts, the fast path table,
##           docs/commands/); run it after adding or changing a command, a flag or a help text
generate: completion-table fastpath-table docs

## gotypes: the Go field table of kubevirt.io/api's VirtualMachine (golang/data/), from the Go types (needs Go);
##          tests/unit/test_gojson.py regenerates and compares it
gotypes: venv
	$(PY) hack/gen_gotypes.py

## schemas: KubeVirt's CRD schemas for strict fields (golang/data/), from the CRDs kubevirt-manifests prints
##          (needs Go); tests/unit/test_strict_fields.py regenerates and compares them
schemas: venv
	$(PY) hack/gen_schemas.py

## unit: the fast tests only
unit: venv
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

## cluster: start the local plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KubeVirt's virt-api
##          and virt-controller, CDI's cdi-apiserver) with the catalog loaded; prints the kubeconfig path. Logs in
##          .cluster/run/. BARE=1: the API server with KubeVirt's CRDs only. KUBEVIRT_VERSION=v1.8.0: that KubeVirt.
##          NODES=N: N simulated nodes (KWOK; shapes from hack/localcluster/nodes.yaml), else none: pods stay Pending.
CLUSTER_ARGS = --catalog --namespace demo $(if $(BARE),--bare) $(if $(KUBEVIRT_VERSION),--kubevirt-version $(KUBEVIRT_VERSION))
DEMO_NODES ?= 8
cluster: venv
	@$(PY) -m hack.localcluster up $(CLUSTER_ARGS) $(if $(NODES),--nodes $(NODES))

cluster-down: venv
	@$(PY) -m hack.localcluster down

## demo: install, start the control plane with the catalog and a few simulated nodes (NODES, default 8: one of each
##       shape) and two more API servers on its etcd (a fleet of three), and tour the plugin through the real kubectl:
##       rightsize against the real Prometheus over three days of backfilled history, list --all-contexts and fleet
##       diff across the three; the plane keeps running until make cluster-down (which stops the fleet too)
demo: venv
	@$(PY) -m hack.localcluster up $(CLUSTER_ARGS) --nodes $(or $(NODES),$(DEMO_NODES)) --fleet 2 >/dev/null
	@bash hack/demo.sh

## bench: list (vs kubectl), create vm (vs virtctl when built), completion, big-kubeconfig and start-up benchmarks;
##        prints the tables and writes them into bench/README.md
bench: venv
	$(PY) bench/list.py --write
	$(PY) bench/create.py --write
	$(PY) bench/completion.py --write
	$(PY) bench/startup.py --write
	$(PY) bench/kubeconfig.py --write

clean: cluster-down
	rm -rf $(VENV) build dist *.egg-info
