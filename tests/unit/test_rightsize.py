"""The rightsize arithmetic (instancetype/rightsize.py), table-driven: verdicts in Compute Optimizer's words, the
minimum-history rule, memory pressure as KubeVirt's alerts define it, and which type is recommended."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_instancetype.instancetype import rightsize as rs

GI = 1 << 30
CLUSTER = "VirtualMachineClusterInstancetype"


def t(name, cpu, memory, **extra):
    spec = {"cpu": {"guest": cpu}, "memory": {"guest": memory}}
    for key, value in extra.items():
        section, _, field = key.partition("_")
        spec.setdefault(section, {})[field] = value
    return rs.Candidate(CLUSTER, name, spec)


TYPES = rs.ranked(
    [
        t("u1.medium", 1, "4Gi"),
        t("u1.large", 2, "8Gi"),
        t("u1.xlarge", 4, "16Gi"),
        t("u1.2xlarge", 8, "32Gi"),
        t("o1.medium", 1, "4Gi", memory_overcommitPercent=50),
        t("o1.large", 2, "8Gi", memory_overcommitPercent=50),
        t("m1.4xlarge", 16, "128Gi"),
        t("cx1.large", 2, "4Gi", cpu_dedicatedCPUPlacement=True),
        t("cx1.xlarge", 4, "8Gi", cpu_dedicatedCPUPlacement=True),
        t("cx1.2xlarge", 8, "16Gi", cpu_dedicatedCPUPlacement=True),
    ]
)
BY_NAME = {c.name: c for c in TYPES}
DAY = 24 * 3600


def m(cpu, memory_gi, *, hours=14 * 24, **extra):
    return rs.Measured(
        cpu=cpu,
        cpu_peak=cpu * 2,
        memory=memory_gi * GI,
        memory_peak=memory_gi * GI * 1.2,
        history_seconds=hours * 3600,
        **extra,
    )


# (case, current type, measured, expected verdict, expected type, vCPU change, memory change in Gi)
CASES = [
    ("idle u1.2xlarge shrinks in its series", "u1.2xlarge", m(0.1, 1), rs.OVER, "u1.medium", -7, -28),
    ("steady fits u1.large exactly", "u1.large", m(1.5, 6), rs.OPTIMIZED, "u1.large", 0, 0),
    ("headroom pushes 1.7 vCPU to 3 -> u1.xlarge", "u1.large", m(1.7, 2), rs.UNDER, "u1.xlarge", 2, 8),
    ("memory short only", "u1.large", m(0.5, 7.5), rs.UNDER, "u1.xlarge", 2, 8),
    ("memory drives size down", "u1.xlarge", m(0.4, 5), rs.OVER, "u1.large", -2, -8),
    ("smallest of series and idle", "u1.medium", m(0.01, 0.5), rs.OPTIMIZED, "u1.medium", 0, 0),
    ("outgrows its series: another series", "u1.2xlarge", m(9, 60), rs.UNDER, "m1.4xlarge", 8, 96),
    ("outgrows every type", "m1.4xlarge", m(20, 10), rs.UNDER, None, 0, 0),
    ("dedicated CPUs stay dedicated", "cx1.2xlarge", m(1.2, 3), rs.OVER, "cx1.large", -6, -12),
    ("overcommitted series stays", "o1.large", m(0.3, 1), rs.OVER, "o1.medium", -1, -4),
    ("29h of history is not enough", "u1.2xlarge", m(0.1, 1, hours=29), rs.INSUFFICIENT, None, 0, 0),
    ("30h of history is enough", "u1.2xlarge", m(0.1, 1, hours=30), rs.OVER, "u1.medium", -7, -28),
    (
        "memory pressure blocks shrinking memory",
        "u1.xlarge",
        m(0.4, 5, pressure_seconds=600),
        rs.UNDER,
        "u1.2xlarge",
        4,
        16,
    ),
    (
        "4 minutes of pressure is below the alert's for: 5m",
        "u1.xlarge",
        m(0.4, 5, pressure_seconds=240),
        rs.OVER,
        "u1.large",
        -2,
        -8,
    ),
    (
        "low available memory for 30m counts too",
        "u1.large",
        m(0.4, 2, low_available_seconds=1800),
        rs.UNDER,
        "u1.xlarge",
        2,
        8,
    ),
    (
        "low available memory for 29m does not",
        "u1.large",
        m(0.4, 2, low_available_seconds=1740),
        rs.OVER,
        "u1.medium",
        -1,
        -4,
    ),
]


@pytest.mark.parametrize(
    ("case", "current", "measured", "verdict", "chosen", "cpu", "memory"), CASES, ids=[c[0] for c in CASES]
)
def test_verdicts(case, current, measured, verdict, chosen, cpu, memory):
    sizing = rs.size(BY_NAME[current], measured, TYPES)
    assert (sizing.verdict, sizing.recommended.name if sizing.recommended else None) == (verdict, chosen), sizing.reason
    assert (sizing.cpu_change, sizing.memory_change) == (cpu, memory * GI)


def test_no_samples_is_insufficient_data_and_says_the_rule():
    sizing = rs.size(BY_NAME["u1.large"], None, TYPES)
    assert sizing.verdict == rs.INSUFFICIENT
    assert sizing.reason == "0m of history at the current size; at least 30h within the window are needed"
    short = rs.size(BY_NAME["u1.large"], m(1, 1, hours=2.5), TYPES)
    assert short.reason.startswith("2h30m of history")


def test_pressure_reason_names_kubevirts_alert():
    sizing = rs.size(BY_NAME["u1.xlarge"], m(0.4, 5, pressure_seconds=3900), TYPES)
    assert "KubeVirtVMGuestMemoryPressure" in sizing.reason and "1h5m" in sizing.reason
    assert sizing.need is not None and sizing.need.memory_must_grow


def test_a_denied_type_is_skipped_with_kubevirts_words():
    preference = {"requirements": {"memory": {"guest": "6Gi"}}}
    sizing = rs.size(BY_NAME["u1.2xlarge"], m(0.1, 1), TYPES, admit=rs.default_admit(preference))
    assert sizing.recommended is not None and sizing.recommended.name == "u1.large"
    assert sizing.rejected == (
        ("u1.medium", "insufficient Memory resources of 4Gi provided by instance type, preference requires 6Gi"),
    )


def test_a_type_that_fits_no_node_is_skipped_and_unknown_is_kept():
    sizing = rs.size(BY_NAME["u1.2xlarge"], m(0.1, 1), TYPES, fits=lambda c: c.name != "u1.medium")
    assert sizing.recommended is not None and sizing.recommended.name == "u1.large"
    assert sizing.rejected == (("u1.medium", "fits no node now"),)
    unknown = rs.size(BY_NAME["u1.2xlarge"], m(0.1, 1), TYPES, fits=lambda c: None)
    assert unknown.recommended is not None and unknown.recommended.name == "u1.medium"


def test_a_type_without_series_looks_at_every_series_for_a_smaller_one():
    custom = t("db-big", 8, "32Gi")
    sizing = rs.size(custom, m(0.5, 2), rs.ranked([*TYPES, custom]))
    assert (sizing.verdict, sizing.recommended.name if sizing.recommended else None) == (rs.OVER, "u1.medium")


def test_headroom_and_percentile_policy():
    policy = rs.Policy(headroom=Fraction(0))
    sizing = rs.size(BY_NAME["u1.large"], m(1.7, 2), TYPES, policy)
    assert sizing.verdict == rs.OPTIMIZED  # 1.7 vCPU without headroom needs 2: u1.large itself
    need = rs.need(m(2.0, 1), rs.Policy(), BY_NAME["u1.large"].spec)
    assert (need.cpu, need.memory) == (3, int(1.2 * GI) + 1)
    exact = rs.need(m(2.5, 1), rs.Policy(), BY_NAME["u1.large"].spec)
    assert exact.cpu == 3  # 2.5 * 1.2 = 3.0 exactly: three vCPUs, not four


@pytest.mark.parametrize("headroom", [Fraction(0), Fraction(20, 100), Fraction(1, 3), Fraction(7, 10)])
def test_need_is_the_exact_rational_ceiling(headroom):
    """need()'s integer arithmetic on the floats' ratios gives what Fraction gives: ceil(cpu x (1 + headroom) -
    1e-9) vCPUs (at least one) and ceil(memory x (1 + headroom)) bytes, on the edges too (products that are whole
    numbers, values just above and below them, zero, tiny and huge)."""
    import math
    import random

    rng = random.Random(31)
    values = [0.0, 5e-324, 1e-9, 0.1, 0.5, 1.0, 2.5, 2.0 / 3, 3.0, 1e300, 429496729.5999999, 8 * GI]
    values += [math.nextafter(v, math.inf) for v in values] + [math.nextafter(v, 0.0) for v in values if v]
    values += [rng.uniform(0, 64) for _ in range(300)] + [rng.uniform(0, 1 << 40) for _ in range(300)]
    factor = 1 + headroom
    for value in values:
        measured = rs.Measured(cpu=value, cpu_peak=value, memory=value, memory_peak=value, history_seconds=86400.0)
        got = rs.need(measured, rs.Policy(headroom=headroom), BY_NAME["u1.large"].spec)
        want_cpu = max(1, math.ceil(Fraction(value) * factor - Fraction(1, 10**9)))
        assert (got.cpu, got.memory) == (want_cpu, math.ceil(Fraction(value) * factor)), value
