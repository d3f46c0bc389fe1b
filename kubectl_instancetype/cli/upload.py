"""``kubectl instancetype upload dv|pvc NAME``: virtctl image-upload, labelling what it uploads.

No ``from __future__ import annotations`` in command modules (typer would eval every annotation per run).
"""

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any, Optional

import typer

from . import options

HELP = """Upload a VM image to a DataVolume/PersistentVolumeClaim (virtctl image-upload), with default types.

Creates the DataVolume (source.upload) or the PVC (CDI's upload annotations) carrying the labels
instancetype.kubevirt.io/default-instancetype[-kind] and default-preference[-kind], waits for CDI's upload
server, gets a token (UploadTokenRequest), streams the file to CDI's upload proxy (retried, the token renewed
when it expires), creates or updates the DataSource with --datasource, and waits for CDI's processing.
Unlike virtctl, the instance type and preference named by --default-* are looked up before anything is created
(a namespaced kind in the target namespace), and the instance type must meet the preference's requirements
(KubeVirt would deny every VM inferring both from the image); --skip-checks skips that. Progress goes to stderr: a bar on a
terminal, one line per 10% otherwise. Ctrl-C says what exists and how to resume (--no-create) or delete it.

\b
Examples:
  # Upload a local disk image to a newly created DataVolume:
  kubectl instancetype upload dv fedora-dv --size=10Gi --image-path=/images/fedora30.qcow2
  # Upload to a new PVC labelled with a default instance type and preference:
  kubectl instancetype upload pvc fedora-pvc --size=10Gi --image-path=/images/fedora30.qcow2 \\
      --default-instancetype=u1.medium --default-preference=fedora
  # Upload to an existing DataVolume (or resume an interrupted upload):
  kubectl instancetype upload dv fedora-dv --no-create --image-path=/images/fedora30.qcow2
  # Upload through an explicit CDI upload proxy URL, and publish a DataSource:
  kubectl instancetype upload dv fedora-dv --size=10Gi --image-path=/images/fedora30.qcow2 \\
      --uploadproxy-url=https://cdi-uploadproxy.mycluster.com --datasource
  # Upload a local disk archive to a newly created DataVolume:
  kubectl instancetype upload dv fedora-dv --size=10Gi --archive-path=/images/fedora30.tar"""

DEPRECATED = {
    "pvc_name": ("--pvc-name", "specify the name as the second argument instead."),
    "pvc_size": ("--pvc-size", "use --size instead."),
    "block_volume": ("--block-volume", "specify volume mode (filesystem/block) with --volume-mode instead."),
}


def register(app: typer.Typer, argv: Sequence[str] = ()) -> None:
    """Add the command to ``app``."""
    app.command("upload", help=HELP, short_help="Upload a VM image to a DataVolume or PVC, with default types.")(
        options.command(UploadOptions, run)
    )


def _uint(flag: str, value: int) -> int:
    """A uint flag's value as pflag reads it (strconv.ParseUint: a negative number is its syntax error)."""
    from ..golang.strconv import FlagValueError, pflag_int

    try:
        return pflag_int(flag.removeprefix("--"), str(value), unsigned=True)
    except FlagValueError as exc:
        raise options.UsageError(str(exc)) from None


@options.dataclass
class UploadOptions:
    """Run virtctl image-upload's checks and protocol."""

    args: Annotated[
        Optional[list[str]],
        typer.Argument(help="dv|pvc NAME: the kind of volume and its name.", metavar="dv|pvc NAME", show_default=False),
    ] = None
    image_path: Annotated[str, options.string_option("--image-path", help="Path to the local VM image.")] = ""
    archive_path: Annotated[str, options.string_option("--archive-path", help="Path to the local archive.")] = ""
    size: Annotated[
        str, options.string_option("--size", help="The size of the DataVolume to create (ex. 10Gi, 500Mi).")
    ] = ""
    storage_class: Annotated[str, options.string_option("--storage-class", help="The storage class for the PVC.")] = ""
    access_mode: Annotated[str, options.string_option("--access-mode", help="The access mode for the PVC.")] = ""
    volume_mode: Annotated[
        str,
        options.string_option(
            "--volume-mode",
            help="Specify the VolumeMode (block/filesystem) used to create the PVC. Default is the storageProfile "
            "default. For archive upload default is filesystem.",
        ),
    ] = ""
    no_create: Annotated[
        bool, options.bool_option("--no-create", help="Don't attempt to create a new DataVolume/PVC.")
    ] = False
    uploadproxy_url: Annotated[
        str, options.string_option("--uploadproxy-url", help="The URL of the cdi-upload proxy service.")
    ] = ""
    insecure: Annotated[
        bool, options.bool_option("--insecure", help="Allow insecure server connections when using HTTPS.")
    ] = False
    wait_secs: Annotated[
        int,
        typer.Option(
            "--wait-secs",
            click_type=options.GO_INT,
            help="Seconds to wait for upload pod to start (and, here, for the upload proxy to answer).",
        ),
    ] = 300
    retry: Annotated[
        int,
        typer.Option(
            "--retry",
            click_type=options.GO_INT,
            help="When upload server returns a transient error, we retry this number of times before giving up",
        ),
    ] = 5
    force_bind: Annotated[
        bool, options.bool_option("--force-bind", help="Force bind the PVC, ignoring the WaitForFirstConsumer logic.")
    ] = False
    datasource: Annotated[
        bool, options.bool_option("--datasource", help="Create a DataSource pointing to the created DataVolume/PVC.")
    ] = False
    default_instancetype: Annotated[
        str,
        options.string_option("--default-instancetype", help="The default instance type to associate with the image."),
    ] = ""
    default_instancetype_kind: Annotated[
        str,
        options.string_option(
            "--default-instancetype-kind", help="The default instance type kind to associate with the image."
        ),
    ] = ""
    default_preference: Annotated[
        str, options.string_option("--default-preference", help="The default preference to associate with the image.")
    ] = ""
    default_preference_kind: Annotated[
        str,
        options.string_option(
            "--default-preference-kind", help="The default preference kind to associate with the image."
        ),
    ] = ""
    skip_checks: Annotated[
        bool,
        options.bool_option(
            "--skip-checks", help="Do not look up (and check together) the default instance type and preference first."
        ),
    ] = False
    pvc_name: Annotated[str, typer.Option("--pvc-name", hidden=True, help="The destination DataVolume/PVC name.")] = ""
    pvc_size: Annotated[
        str, typer.Option("--pvc-size", hidden=True, help="The size of the PVC to create (ex. 10Gi, 500Mi).")
    ] = ""
    block_volume: Annotated[
        bool, typer.Option("--block-volume", hidden=True, help="Create a PVC with VolumeMode=Block.")
    ] = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    plan: Any = dataclasses.field(init=False, default=None)  # instancetype.upload.Plan

    def warnings(self) -> list[str]:
        """pflag's lines for the deprecated flags given (printed as they are parsed, before any check)."""
        given = {"pvc_name": self.pvc_name, "pvc_size": self.pvc_size, "block_volume": self.block_volume}
        return [
            f"Flag {flag} has been deprecated, {advice}" for key, (flag, advice) in DEPRECATED.items() if given[key]
        ]

    def validate(self) -> None:
        """virtctl's checks of the arguments and flags; the plan of the upload."""
        from ..instancetype.infer import default_reference
        from ..instancetype.upload import Flags, parse_flags

        default_instancetype, default_instancetype_kind = default_reference(
            self.default_instancetype, self.default_instancetype_kind or None, "instancetype", "--default-instancetype"
        )
        default_preference, default_preference_kind = default_reference(
            self.default_preference, self.default_preference_kind or None, "preference", "--default-preference"
        )
        words = list(self.args or [])
        if len(words) > 2:
            raise options.UsageError(f"accepts at most 2 arg(s), received {len(words)}")
        self.plan = parse_flags(
            Flags(
                args=tuple(words),
                pvc_name=self.pvc_name,
                pvc_size=self.pvc_size,
                size=self.size,
                storage_class=self.storage_class,
                access_mode=self.access_mode,
                block_volume=self.block_volume,
                volume_mode=self.volume_mode,
                image_path=self.image_path,
                archive_path=self.archive_path,
                no_create=self.no_create,
                wait_secs=_uint("--wait-secs", self.wait_secs),
                retry=_uint("--retry", self.retry),
                force_bind=self.force_bind,
                datasource=self.datasource,
                default_instancetype=default_instancetype or "",
                default_instancetype_kind=default_instancetype_kind,
                default_preference=default_preference or "",
                default_preference_kind=default_preference_kind,
            )
        )
        if (
            not self.plan.image_path
        ):  # the deprecated --pvc-name form skips virtctl's path checks; open("") fails as Go's
            import errno

            from ..golang.goos import path_error

            raise options.UsageError(path_error("open", "", errno.ENOENT))


def run(env, opts: UploadOptions, session) -> None:
    """Check the image, then upload it; virtctl's lines on stdout, the progress on stderr."""
    from ..output.progress import progress_for
    from ..usecases.upload import Settings, upload

    plan = opts.plan

    from ..output.terminal import escape

    def say(line: str) -> None:
        env.stdout.write(escape(line) + "\n")
        env.stdout.flush()

    settings = Settings(
        uploadproxy_url=opts.uploadproxy_url,
        insecure=opts.insecure,
        skip_checks=opts.skip_checks,
        say=say,
        progress=lambda total: progress_for(env.stderr, total, plan.name),
        jitter=_jitter,
    )
    upload(session, plan, settings)


def _jitter(bound: int) -> int:
    """rand.UintN(bound): virtctl's random back-off factor between retries."""
    import random

    return random.randrange(bound)
