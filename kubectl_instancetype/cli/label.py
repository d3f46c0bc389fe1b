"""``kubectl instancetype label``: put (or remove) the default instance type and preference labels on a volume.

No ``from __future__ import annotations`` in command modules (typer would eval every annotation per run).
"""

import dataclasses
from typing import Annotated, Any, Optional

import typer

from . import options

HELP = """Label a PVC, DataVolume or DataSource with the instance type and preference VMs should infer from it.

Sets instancetype.kubevirt.io/default-instancetype[-kind] and instancetype.kubevirt.io/default-preference[-kind],
the labels KubeVirt reads for inferFromVolume (and virtctl image-upload writes). Kinds accept create vm's
spellings (virtualmachineinstancetype, VirtualMachineClusterPreferences, ...) and are written in KubeVirt's
lowercase singular form; without a kind the cluster-scoped kind applies and no kind label is written (one left
from before is removed). As with kubectl label, changing an existing value needs --overwrite. The referenced
types are looked up first (a namespaced kind in the volume's namespace), and the instance type the volume will
name must meet the requirements of the preference it will name (KubeVirt would deny every VM inferring both);
--skip-checks skips that. Only the labels are sent, as a JSON merge patch.

\b
Examples:
  kubectl instancetype label pvc/fedora --default-instancetype u1.medium --default-preference fedora
  kubectl instancetype label dv/rhel9 --default-preference rhel.9 --default-preference-kind virtualmachinepreference
  kubectl instancetype label datasource/fedora -n os-images --default-instancetype u1.large --overwrite
  kubectl instancetype label pvc/fedora --remove"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("label", help=HELP, short_help="Label a PVC, DataVolume or DataSource with default types.")(
        options.command(LabelOptions, run)
    )


@options.dataclass
class LabelOptions:
    """Merge-patch the default-type labels of one volume and print kubectl label's line."""

    target: Annotated[
        list[str],
        typer.Argument(
            help="TYPE/NAME or TYPE NAME: pvc, dv or datasource (das).", metavar="TYPE/NAME", show_default=False
        ),
    ]
    default_instancetype: Annotated[
        Optional[str],
        options.path_option(
            "--default-instancetype",
            metavar="[KIND/]NAME",
            help="The instance type to infer (vmf/NAME: the namespaced kind, as --default-instancetype-kind).",
        ),
    ] = None
    default_instancetype_kind: Annotated[
        Optional[str],
        options.path_option(
            "--default-instancetype-kind",
            metavar="KIND",
            help="virtualmachineinstancetype or virtualmachineclusterinstancetype (the default).",
        ),
    ] = None
    default_preference: Annotated[
        Optional[str],
        options.path_option(
            "--default-preference",
            metavar="[KIND/]NAME",
            help="The preference to infer (vmp/NAME: the namespaced kind, as --default-preference-kind).",
        ),
    ] = None
    default_preference_kind: Annotated[
        Optional[str],
        options.path_option(
            "--default-preference-kind",
            metavar="KIND",
            help="virtualmachinepreference or virtualmachineclusterpreference (the default).",
        ),
    ] = None
    remove: Annotated[bool, options.bool_option("--remove", help="Remove the four default-type labels.")] = False
    overwrite: Annotated[
        bool, options.bool_option("--overwrite", help="Allow changing a label that already has a value.")
    ] = False
    skip_checks: Annotated[
        bool,
        options.bool_option(
            "--skip-checks", help="Do not look up (and check together) the instance type and preference first."
        ),
    ] = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    kind: str = dataclasses.field(init=False, default="")
    name: str = dataclasses.field(init=False, default="")
    request: Any = dataclasses.field(init=False, default=None)  # usecases.labeling.LabelRequest

    def validate(self) -> None:
        """The target is a volume kind; the flags combine as virtctl image-upload's do."""
        self.kind, self.name = options.object_target(
            self.target,
            ("PersistentVolumeClaim", "DataVolume", "DataSource"),
            'cannot label a "{word}": pvc, dv and datasource carry inference labels',
        )
        # virtctl image-upload's checks for the same flags
        if self.default_instancetype_kind is not None and self.default_instancetype is None:
            raise options.UsageError("--default-instancetype must be provided with --default-instancetype-kind")
        if self.default_preference_kind is not None and self.default_preference is None:
            raise options.UsageError("--default-preference must be provided with --default-preference-kind")
        if self.remove and (self.default_instancetype is not None or self.default_preference is not None):
            raise options.UsageError("--remove cannot be used with --default-instancetype or --default-preference")
        if not self.remove and self.default_instancetype is None and self.default_preference is None:
            raise options.UsageError(
                "at least one of --default-instancetype, --default-preference or --remove is required"
            )
        from ..instancetype.infer import default_reference
        from ..usecases.labeling import LabelRequest

        instancetype, instancetype_kind = default_reference(
            self.default_instancetype, self.default_instancetype_kind, "instancetype", "--default-instancetype"
        )
        preference, preference_kind = default_reference(
            self.default_preference, self.default_preference_kind, "preference", "--default-preference"
        )
        self.request = LabelRequest(
            instancetype=instancetype,
            instancetype_kind=instancetype_kind,
            preference=preference,
            preference_kind=preference_kind,
            remove=self.remove,
            overwrite=self.overwrite,
        )


def run(env, opts: LabelOptions, session) -> None:
    """Label the volume and print kubectl label's line."""
    from ..usecases.labeling import label_volume

    outcome = label_volume(session, opts.kind, opts.name, opts.request, skip_checks=opts.skip_checks)
    from ..output.terminal import escape

    env.stdout.write(escape(f"{outcome.name} {outcome.verb}") + "\n")
