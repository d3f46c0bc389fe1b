"""``kubectl instancetype rightsize [vm/NAME ...] [-n NS | -A] [--window 14d] [--percentile 95] [--headroom 20%]``:
which VMs are over- or under-provisioned, measured in Prometheus, and the instance type each should move to.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
import re
from typing import Annotated, Optional

import typer

from . import options

HELP = """Show which VirtualMachines are over- or under-provisioned, measured from KubeVirt's own metrics in
Prometheus, and the instance type each should move to.

For every VM that uses an instance type (or the VMs named), CPU and memory use at the percentile and at the peak
over the window are read from virt-handler's kubevirt_vmi_* series (one query per measure for all VMs, KubeVirt's
recording rules when the server has them): CPU from vCPU time (kubevirt_vmi_vcpu_seconds_total), else total CPU
time; memory from the balloon statistics (available - usable), else the resident size. The SOURCE column says
which. Only samples at the VM's current size count. FINDING uses AWS Compute Optimizer's words: Over-provisioned,
Under-provisioned, Optimized, or Insufficient data with less than 30 hours of history in the window. Memory
pressure as KubeVirt's alerts define it (KubeVirtVMGuestMemoryPressure, KubeVirtVMGuestMemoryAvailableLow) counts
against shrinking. The recommended type meets the percentile plus --headroom, comes from the VM's series first,
keeps its special features (dedicated CPUs, hugepages, GPUs, NUMA), meets its preference's requirements as KubeVirt
admission checks them, and fits some node now (unknown without nodes: a warning). CHANGE is what it saves or adds.

Prometheus: --prometheus-url (Prometheus, Thanos Querier, Mimir; --prometheus-ca-file and --prometheus-token-file
for its TLS and token), or --prometheus-service NAMESPACE/NAME:PORT through the API server's service proxy with
your own credentials (RBAC: get services/proxy), e.g. openshift-monitoring/https:thanos-querier:9091 or
monitoring/prometheus-k8s:9090.

Recording rules: --print-rules prometheusrule (a monitoring.coreos.com/v1 PrometheusRule in -n, for
prometheus-operator and OpenShift's user-workload monitoring) or --print-rules rulefile (a plain Prometheus rule
file) prints rightsize's own rules: per VM CPU, memory, size, headroom and KubeVirt's memory-pressure conditions
every 5 minutes, and hourly roll-ups of them. Once the server has them over the whole window, rightsize reads those
series with plain range functions instead of the raw ones (far fewer samples: 14 days for 10,000 VMs in seconds).

--apply plans each recommendation as switch --plan does and writes the plans that need no restart
(--allow-restart: all of them); every plan is made before anything is written.

\b
Examples:
  kubectl instancetype rightsize -A --prometheus-url http://prometheus.example:9090
  kubectl instancetype rightsize vm/db-1 --prometheus-service monitoring/prometheus-k8s:9090
  kubectl instancetype rightsize --window 7d --percentile 99 --headroom 30% --prometheus-url URL -o json
  kubectl instancetype rightsize -n prod --apply --prometheus-url URL
  kubectl instancetype rightsize --print-rules prometheusrule -n monitoring | kubectl apply -f -"""

_DURATION = re.compile(r"^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_UNITS = (7 * 86400, 86400, 3600, 60, 1)


def parse_window(text: str, flag: str) -> int:
    """A Prometheus duration (``14d``, ``36h``, ``1w2d``, ``90m``) in seconds."""
    match = _DURATION.match(text)
    if not text or not match or not any(match.groups()):
        raise options.UsageError(f'invalid argument "{text}" for "{flag}" flag: expected a duration such as 14d or 36h')
    return sum(int(value or 0) * unit for value, unit in zip(match.groups(), _UNITS, strict=True))


def parse_headroom(text: str):
    """``20%`` (or ``20``) as a Fraction of one."""
    from fractions import Fraction

    try:
        value = Fraction(text.removesuffix("%"))
    except (ValueError, ZeroDivisionError):
        value = Fraction(-1)
    if value < 0 or value > 1000:
        raise options.UsageError(f'invalid argument "{text}" for "--headroom" flag: expected a percentage such as 20%')
    return value / 100


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "rightsize", help=HELP, short_help="Show over- and under-provisioned VMs and the instance type to move to."
    )(options.command(RightsizeOptions, run))


@options.dataclass
class RightsizeOptions:
    """Measure in Prometheus, size each VM, print (and with --apply, switch)."""

    targets: Annotated[Optional[list[str]], options.vm_arguments("VirtualMachines (default: all in scope).")] = None
    all_namespaces: Annotated[
        bool, options.all_namespaces_option("Look at every namespace, not only the current one.")
    ] = False
    window: Annotated[
        str, options.value_option("--window", metavar="DURATION", help="How far back to measure (Prometheus duration).")
    ] = "14d"
    step: Annotated[
        str,
        options.value_option(
            "--step", metavar="DURATION", help="The resolution of the measures (at least the scrape interval)."
        ),
    ] = "1m"
    percentile: Annotated[
        str, options.value_option("--percentile", metavar="P", help="The percentile of use that must fit (0-100].")
    ] = "95"
    headroom: Annotated[
        str, options.value_option("--headroom", metavar="PERCENT", help="Room to leave above the percentile.")
    ] = "20%"
    prometheus_url: Annotated[
        str,
        options.value_option(
            "--prometheus-url", metavar="URL", help="A Prometheus-compatible query API (Prometheus, Thanos, Mimir)."
        ),
    ] = ""
    prometheus_service: Annotated[
        str,
        options.value_option(
            "--prometheus-service",
            metavar="NAMESPACE/NAME:PORT",
            help="A Prometheus service, reached through the API server's service proxy with your credentials.",
        ),
    ] = ""
    prometheus_ca_file: Annotated[
        str, options.value_option("--prometheus-ca-file", metavar="FILE", help="CA certificates for --prometheus-url.")
    ] = ""
    prometheus_token_file: Annotated[
        str,
        options.value_option(
            "--prometheus-token-file", metavar="FILE", help="A bearer token file for --prometheus-url."
        ),
    ] = ""
    apply: Annotated[
        bool, options.bool_option("--apply", help="Switch each VM to its recommended type where no restart is needed.")
    ] = False
    allow_restart: Annotated[
        bool, options.bool_option("--allow-restart", help="With --apply: also switch VMs whose change needs a restart.")
    ] = False
    print_rules: Annotated[
        str,
        options.value_option(
            "--print-rules",
            metavar="FORMAT",
            help="Print rightsize's recording rules and exit: prometheusrule (in -n) or rulefile.",
        ),
    ] = ""
    output: Annotated[
        str, options.output_option(help="yaml, json or a kubectl template (jsonpath=..., custom-columns=...).")
    ] = ""
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    names: tuple = dataclasses.field(init=False, default=())
    window_seconds: int = dataclasses.field(init=False, default=0)
    step_seconds: int = dataclasses.field(init=False, default=0)
    headroom_fraction: Optional[object] = dataclasses.field(init=False, default=None)
    percentile_value: float = dataclasses.field(init=False, default=95.0)

    def validate(self) -> None:
        """Durations, the percentile, the headroom, the Prometheus flags and -o."""
        from ..kube.prometheus import parse_service
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        if self.print_rules:
            self._validate_print_rules()
            return
        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        self.names = tuple(options.vm_target(target, "rightsize") for target in self.targets or ())
        if self.names and self.all_namespaces:
            raise options.UsageError("a VM is named in one namespace: vm/NAME goes with -n, not -A")
        self.window_seconds = parse_window(self.window, "--window")
        self.step_seconds = parse_window(self.step, "--step")
        if self.step_seconds > self.window_seconds:
            raise options.UsageError("--step is longer than --window")
        try:
            self.percentile_value = float(self.percentile)
        except ValueError:
            self.percentile_value = -1.0
        if not 0 < self.percentile_value <= 100:
            raise options.UsageError(f'invalid argument "{self.percentile}" for "--percentile" flag: expected 0-100')
        self.headroom_fraction = parse_headroom(self.headroom)
        if bool(self.prometheus_url) == bool(self.prometheus_service):
            raise options.UsageError(
                "name the metrics server: --prometheus-url URL or --prometheus-service NAMESPACE/NAME:PORT"
            )
        if self.prometheus_service:
            if self.prometheus_ca_file or self.prometheus_token_file:
                raise options.UsageError(
                    "--prometheus-ca-file and --prometheus-token-file go with --prometheus-url; the service proxy "
                    "uses your kubeconfig's credentials"
                )
            try:
                parse_service(self.prometheus_service)
            except ValueError as exc:
                raise options.UsageError(str(exc)) from None
        if self.allow_restart and not self.apply:
            raise options.UsageError("--allow-restart goes with --apply")

    def _validate_print_rules(self) -> None:
        """--print-rules FORMAT prints and exits: it measures nothing, so no VM, scope or Prometheus flag goes with
        it; -o yaml (the default) or json."""
        from ..instancetype.rightsize_rules import FORMATS
        from ..output.printers import check_output_format

        if self.print_rules not in FORMATS:
            raise options.UsageError(
                f'invalid argument "{self.print_rules}" for "--print-rules" flag: expected one of {", ".join(FORMATS)}'
            )
        check_output_format(self.output, ("", "yaml", "json"))
        given = [
            flag
            for flag, value in (
                ("vm/NAME", self.targets),
                ("-A", self.all_namespaces),
                ("--apply", self.apply),
                ("--allow-restart", self.allow_restart),
                ("--prometheus-url", self.prometheus_url),
                ("--prometheus-service", self.prometheus_service),
                ("--prometheus-ca-file", self.prometheus_ca_file),
                ("--prometheus-token-file", self.prometheus_token_file),
            )
            if value
        ]
        if given:
            raise options.UsageError(f"--print-rules prints the rules and measures nothing: drop {', '.join(given)}")


def run(env, opts: RightsizeOptions, session) -> None:
    """Measure, size, print; with --apply, print each plan and what was written. --print-rules: print the rules."""
    from ..output import messages
    from ..output import rightsize as printer
    from ..output.printers import print_document

    if opts.print_rules:
        from ..usecases.rightsize_rules import recording_rules

        print_document(env, opts.output or "yaml", recording_rules(session, opts.print_rules))
        return
    from ..usecases.rightsize import RightsizeRequest, rightsize

    report = rightsize(
        session,
        RightsizeRequest(
            names=opts.names,
            all_namespaces=opts.all_namespaces,
            window=opts.window_seconds,
            step=opts.step_seconds,
            percentile=opts.percentile_value,
            headroom=opts.headroom_fraction,
            prometheus_url=opts.prometheus_url,
            prometheus_service=opts.prometheus_service,
            ca_file=opts.prometheus_ca_file,
            token_file=opts.prometheus_token_file,
            apply=opts.apply,
            allow_restart=opts.allow_restart,
        ),
    )
    for warning in report.warnings:
        messages.warn(env, warning)
    if opts.output:
        print_document(env, opts.output, printer.document(report))
    elif not report.vms:
        messages.info(env, "No VirtualMachines with an instance type found")
    else:
        env.stdout.write(printer.render(report))
    if opts.apply and not opts.output:
        env.stdout.write(printer.render_applied(report))
