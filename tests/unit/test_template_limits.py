"""Go's fmt limits in go-templates (issue 34), under a memory limit: a width or precision above 1e6 is refused at once
with Go's ``%!(BADWIDTH)``/``%!(BADPREC)`` (or ``%!(NOVERB)`` when a literal one outgrows the limit), never by
allocating it; template output streams to stdout in pieces, so a template printing hundreds of megabytes runs in a
process that cannot hold them; no Python exception text reaches the user. The expected strings are Go's (Go's
fmt_test.go and text/template; tests/unit/test_printers_differential.py holds the same cases against kubectl's
printers)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

LIMIT_BYTES = 768 << 20  # RLIMIT_AS of the child: the interpreter and the package fit, a gigabyte does not

CASES = [
    ('{{printf "%999999999d" 1}}', "%!(NOVERB)%!(EXTRA int=1)"),
    ('{{printf "%*d" 999999999 1}}', "%!(BADWIDTH)1"),
    ('{{printf "%*d" -999999999 1}}', "%!(BADWIDTH)1"),
    ('{{printf "%0999999999d" 1}}', "%!(NOVERB)%!(EXTRA int=1)"),
    ('{{printf "%-999999999s" "a"}}', "%!(NOVERB)%!(EXTRA string=a)"),
    ('{{printf "%.*f" 999999999 1.5}}', "%!(BADPREC)1.500000"),
    ('{{printf "%.999999999f" 1.5}}', "%!(NOVERB)%!(EXTRA float64=1.5)"),
    ('{{printf "%c" 1114112}}', "\ufffd"),
    ('{{printf "%U" -1}}', "U+FFFFFFFFFFFFFFFF"),
    ('{{printf "%x" 1e308}}', "0x1.1ccf385ebc8ap+1023"),
    ('{{printf "%x %X" 1.5 -0.5}}', "0x1.8p+00 -0X1P-01"),
]
PARSE_ERRORS = [
    ("{{1e10000}}", 'template: output:1: illegal number syntax: "1e10000"'),
    ("{{0x1p99999}}", 'template: output:1: illegal number syntax: "0x1p99999"'),
    ("{{-1e10000}}", 'template: output:1: illegal number syntax: "-1e10000"'),
]

CHILD = textwrap.dedent(
    """
    import io, json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    from kubectl_instancetype.env import Environment
    from kubectl_instancetype.errors import PluginError
    from kubectl_instancetype.output.printers import print_objects

    class Counting(io.StringIO):
        written = 0
        def write(self, text):
            self.written += len(text)
            return len(text)

    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    answers = []
    for template in json.load(sys.stdin):
        out, err = (Counting() if template.startswith("{{range") else io.StringIO()), io.StringIO()
        env = Environment(stdout=out, stderr=err, environ={})
        try:
            print_objects(env, "go-template=" + template, [obj], ["configmap/c"], single=True)
            error = ""
        except PluginError as exc:
            error = exc.render()
        answers.append([out.written if isinstance(out, Counting) else out.getvalue(), error])
    json.dump(answers, sys.stdout)
    """
).replace("MEMORY_CAP", str(LIMIT_BYTES))


@pytest.fixture(scope="module")
def answers() -> dict[str, list]:
    templates = [template for template, _ in CASES + PARSE_ERRORS]
    # 400 widths of 1e6: 400 MB that only streaming lets a 768 MiB process print
    templates.append('{{range 400}}{{printf "%1000000d" 1}}{{end}}')
    result = subprocess.run(
        [sys.executable, "-c", CHILD], input=json.dumps(templates), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return dict(zip(templates, json.loads(result.stdout)))


@pytest.mark.parametrize(("template", "expected"), CASES)
def test_fmt_limits_and_oddities_print_as_go(answers, template: str, expected: str) -> None:
    assert answers[template] == [expected, ""]


@pytest.mark.parametrize(("template", "message"), PARSE_ERRORS)
def test_out_of_range_constants_fail_with_go_parse_errors(answers, template: str, message: str) -> None:
    assert answers[template] == ["", f"error: error parsing template {template}, {message}"]


def test_template_output_streams_within_the_memory_limit(answers) -> None:
    assert answers['{{range 400}}{{printf "%1000000d" 1}}{{end}}'] == [400 * 1_000_000, ""]
