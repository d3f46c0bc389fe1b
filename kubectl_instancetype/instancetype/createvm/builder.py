"""``create vm``'s builder: cobra's flag-group check, the base VM, then each step in virtctl's order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...errors import UsageError
from ...golang.quantity import QuantityError, canonical_quantity
from ...golang.quantity import parse_quantity as quantity_value
from ..params import flag_error
from .cloudinit import CloudInitSteps
from .flags import RUN_STRATEGIES, VM_MUTUALLY_EXCLUSIVE_GROUPS
from .matchers import MatcherSteps
from .state import Manifest
from .volumes import VolumeSteps


def mutually_exclusive_error(groups: Sequence[Sequence[str]], changed: Iterable[str]) -> UsageError | None:
    """cobra's check of ``MarkFlagsMutuallyExclusive`` groups (groups taken in sorted order, as cobra does)."""
    changed = set(changed)
    for group in sorted(groups, key=" ".join):
        set_flags = sorted(name for name in group if name in changed)
        if len(set_flags) > 1:
            return UsageError(
                f"if any flags in the group [{' '.join(group)}] are set none of the others can be; "
                f"[{' '.join(set_flags)}] were all set"
            )
    return None


class VMBuild(VolumeSteps, CloudInitSteps, MatcherSteps):
    """One :func:`kubectl_instancetype.instancetype.createvm.build_vm` run."""

    def run(self) -> Manifest:
        options = self.options
        error = mutually_exclusive_error(VM_MUTUALLY_EXCLUSIVE_GROUPS, options.changed)
        if error:
            raise error
        name = options.name or "vm-" + self.random_suffix(5)
        try:
            memory = canonical_quantity(options.memory)
        except QuantityError as exc:
            raise flag_error("memory", str(exc)) from None
        metadata = {"name": name}
        if options.namespace:
            metadata["namespace"] = options.namespace
        self.vm = {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": metadata,
            "spec": {
                "runStrategy": options.run_strategy,
                "template": {
                    "metadata": {},
                    "spec": {
                        "domain": {"devices": {}, "memory": {"guest": memory}, "resources": {}},
                        "terminationGracePeriodSeconds": options.termination_grace_period,
                    },
                },
            },
            "status": {},
        }
        steps = (
            ("run-strategy", self.run_strategy),
            ("instancetype", self.instancetype),
            ("preference", self.preference),
            ("volume-containerdisk", self.containerdisks),
            ("volume-pvc", self.pvcs),
        )
        for flag, step in steps:
            if flag in self.changed:
                step()
        self.imports()
        if "volume-sysprep" in self.changed:
            self.sysprep()
        if "access-cred" in self.changed:
            self.access_credentials()
        self.cloud_init_volume()
        self.infer()
        # Beyond virtctl (which writes these into the manifest): values that cannot be meant, refused
        # last so that every error virtctl reports comes first, with its text.
        if quantity_value(options.memory) < 0:
            raise flag_error("memory", f"memory must not be negative: {options.memory}")
        self.check_cloud_init_data()
        return self.vm

    def run_strategy(self) -> None:
        wanted = self.options.run_strategy
        for strategy in RUN_STRATEGIES:
            if strategy.lower() == wanted.lower():
                self.vm["spec"]["runStrategy"] = strategy
                return
        raise flag_error(
            "run-strategy", f'invalid run strategy "{wanted}", supported values are: {", ".join(RUN_STRATEGIES)}'
        )
