"""The kubeconfig YAML reader agrees with PyYAML, or says the text is outside its subset."""

from __future__ import annotations

import random
import string
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.golang import goyaml
from kubectl_instancetype.kube.kubeconfig.block_yaml import UNSUPPORTED, load

CORPUS = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs"


def agrees(text: str) -> bool:
    """True when the reader returns PyYAML's document; False when it declines. Fails on a disagreement."""
    ours = load(text)
    try:
        expected = yaml.safe_load(text)
    except yaml.YAMLError:
        assert ours is UNSUPPORTED, text
        return False
    if ours is UNSUPPORTED:
        return False
    assert ours == expected, text
    return True


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.yaml")), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus(path: Path) -> None:
    supported = agrees(path.read_text())
    # every kubeconfig of the corpus is in the subset, except the exec one (a "-c" argument)
    assert supported or path.name == "exec.yaml" or path.name == "cases.yaml"


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: true\nc: false\nd: null\ne: ~\nf:\ng: {}\nh: []\n",
        "# comment\n---\nkind: Config\nclusters:\n- name: x  # trailing\n  cluster:\n    server: https://h:6443\n",
        "list:\n  - a\n  - 'it''s'\n  - \"q\\\"uote\"\n  -\n    k: v\n",
        "a: yes\n",
        "a: on\n",
        "a: 0x10\n",
        "a: 012\n",
        "a: 1.5\n",
        "a: .inf\n",
        "a: 2001-12-14\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: |\n  text\n",
        "a: [1, 2]\n",
        "a: {b: c}\n",
        "a: b: c\n",
        "a: 1\na: 2\n",
        "a: 'unterminated\n",
        "a:\n\tb: 1\n",
        "- - a\n",
        "a: -c\n",
        'a: "\\u00e9"\n',
        "a: x # c\nb: 'y' # c\nc: \"z\" # c\n",
        "key with spaces: v\n",
        "a: C:\\dir\n",
        "a: /abs/path\n",
        "a: b #c\n",
        "a: b#c\n",
        "a: -1\n",
        "a: +1\n",
        "a: 1_000\n",
        "a: 1:20\n",
        "a: 0b101\n",
        "a: 6.8e+3\n",
        "a: 0123abc\n",
        "a: 3d5f0e1a\n",
        "a: 1e3\n",
        "a: 2001-12-14t21:59:43.10-05:00\n",
        "a: ../x\n",
        "a: ./x\n",
        "a: -\n",
        "a: .\n",
        "a: -x\n",
        "a: .5\n",
        "a: +.inf\n",
        "a: -.inf\n",
        "a: 1.\n",
        "a: '#not a comment'\n",
        "---\n---\n",
        "...\n",
        "a: 1\n...\n",
        "",
        "x:\n  - a: 1\n    b:\n    - c\n    - d: e\n  - f\n",
    ],
)
def test_handwritten(text: str) -> None:
    agrees(text)


def _random_scalar(rng: random.Random):
    kind = rng.randrange(9)
    if kind == 0:
        return rng.randrange(-5, 10**6)
    if kind == 1:
        return rng.choice([True, False, None])
    if kind == 2:
        return rng.choice(
            [
                "yes",
                "No",
                "on",
                "0x1f",
                "012",
                "1.5",
                "1e3",
                ".inf",
                "2001-12-14",
                "~",
                "null",
                "",
                "-c",
                "a: b",
                "a #b",
                "'q'",
                '"q"',
                "{x}",
                "[x]",
                "*a",
                "&a",
                "!t",
                "%p",
                "@x",
                "`x`",
                "=",
                "<<",
                "https://10.0.0.1:6443",
                "C:\\x",
                "é",
                "tab\there",
                "line\nbreak",
            ]
        )
    alphabet = string.ascii_letters + string.digits + " -_.:/#'\"\\=+@$%"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20)))


def _random_node(rng: random.Random, depth: int):
    if depth > 3 or rng.random() < 0.3:
        return _random_scalar(rng)
    if rng.random() < 0.5:
        return [_random_node(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    keys = ["name", "cluster", "user", "server", "token", "namespace", "args", "env", "a.b/c", "x-y", "yes", "1"]
    return {rng.choice(keys): _random_node(rng, depth + 1) for _ in range(rng.randrange(0, 5))}


@pytest.mark.parametrize("seed", range(300))
def test_random_documents_in_pyyaml_and_go_styles(seed: int) -> None:
    rng = random.Random(seed)
    document = {"apiVersion": "v1", "kind": "Config", "data": _random_node(rng, 0)}
    agrees(yaml.safe_dump(document, default_flow_style=False, sort_keys=False))
    agrees(yaml.safe_dump(document, default_flow_style=False, indent=4))
    agrees(goyaml.dump(document))


def test_kubeconfigs_written_by_kubectl(tmp_path: Path) -> None:
    from hack.localcluster.crds import cache_root

    kubectl = sorted((cache_root() / "controlplane").glob("*/kubectl"))
    if not kubectl:
        pytest.skip("kubectl not built yet (hack/controlplane/build.sh)")
    path = tmp_path / "config"
    environ = {"KUBECONFIG": str(path), "HOME": str(tmp_path)}
    for args in (
        ["set-cluster", "prod", "--server=https://10.1.2.3:6443", "--insecure-skip-tls-verify=true"],
        ["set-cluster", "dev", "--server=https://dev.example:443", "--tls-server-name=api.dev"],
        ["set-credentials", "alice", "--token=0123abc"],
        [
            "set-credentials",
            "bob",
            f"--client-certificate={CORPUS / 'pki/client.crt'}",
            f"--client-key={CORPUS / 'pki/client.key'}",
            "--embed-certs=true",
        ],
        ["set-context", "prod", "--cluster=prod", "--user=alice", "--namespace=team-a"],
        ["set-context", "dev", "--cluster=dev", "--user=bob"],
        ["use-context", "prod"],
    ):
        subprocess.run([str(kubectl[-1]), "config", *args], env=environ, check=True, capture_output=True)
    assert agrees(path.read_text())


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789abcdefxABCDEFXeEinfaINFAtTZ_:.+-", min_size=1, max_size=24),
        st.sampled_from(["5a76b71f7e731d1440a86a97278ec5a5", "0x1F", "-0b101", "+.inf", ".NaN", "2026-11-27", "1e5"]),
    )
)
def test_tokens_and_numbers_read_as_pyyaml_reads_them(text: str) -> None:
    # a plain scalar that starts like a number: the reader skips YAML 1.1's number pattern for one whose letters
    # no number or timestamp form allows (a hex token, 5a76b...), and must still agree with PyYAML or decline
    agrees(f"token: {text}\n")
