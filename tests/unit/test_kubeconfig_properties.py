"""Property tests: whatever a kubeconfig holds, reading it parses or fails with one ConfigurationError.

Random text, random bytes and random YAML-ish structures (kubeconfig keys with values of every shape) go
through :func:`read_kubeconfig` and :func:`resolve_static`, and random text through the block-style reader;
nothing else may escape (no ``'int' object has no attribute 'get'``, no codec errors), each call must end
quickly (hypothesis' deadline), and where the block reader accepts a text its result equals
``yaml.safe_load``'s.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import ConfigurationError, TransportError
from kubectl_instancetype.kube import kubeconfig
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, NeedsOfficialLoader
from kubectl_instancetype.kube.kubeconfig.block_yaml import UNSUPPORTED, load

SETTINGS = settings(max_examples=300, deadline=1000, suppress_health_check=[HealthCheck.too_slow])

KEYS = [
    "apiVersion", "kind", "current-context", "clusters", "users", "contexts", "name", "cluster", "user", "context",
    "server", "namespace", "token", "tokenFile", "certificate-authority", "certificate-authority-data",
    "insecure-skip-tls-verify", "tls-server-name", "proxy-url", "client-certificate", "client-key",
    "client-certificate-data", "client-key-data", "username", "password", "as-groups", "auth-provider", "config",
    "extensions", "preferences", "env", "args",
]  # fmt: skip
# "exec" is left out on purpose: resolving it would run whatever command the example names.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["c", "u", "cl", "https://127.0.0.1:1", "Zm9v", "yes", "/nonexistent/f", "", "a\r\nb"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(KEYS) | st.text(max_size=5).filter(lambda key: key != "exec"), children, max_size=5
        ),
    ),
    max_leaves=30,
)
DOCUMENTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8)


def _load_and_resolve(path: Path, context: str | None = None) -> None:
    """Reading and resolving ends in a config, the hand-over to the official loader, or one error whose rendering
    is one ``error: ...`` line (a list of clientcmd's problems is the one exception: ``*`` lines under it)."""
    try:
        files = kubeconfig.read_kubeconfig([str(path)])
        config = kubeconfig.resolve_static(files, ConnectionOptions(context=context))
    except (ConfigurationError, TransportError) as exc:
        first, *rest = exc.render().split("\n")
        assert first.startswith("error: ") and all(line.startswith("* ") for line in rest), exc.render()
    except NeedsOfficialLoader as exc:
        assert exc.why.startswith("user "), exc.why
    else:
        assert config.server and config.namespace


def _kubeconfig_file(data: bytes) -> Path:
    handle = tempfile.NamedTemporaryFile(prefix="kubeconfig-property-", delete=False)
    with handle:
        handle.write(data)
    return Path(handle.name)


@SETTINGS
@given(DOCUMENTS, st.sampled_from([None, "c", "u"]))
# found by hypothesis: a name with a newline made the error two lines (clientcmd prints the context name with %v)
@example({"current-context": "\n"}, None)
@example({"current-context": "c", "contexts": [{"name": "c", "context": {"cluster": "a\nb"}}]}, None)
def test_random_structures_parse_or_fail_with_one_configuration_error(document: dict, context: str | None) -> None:
    for text in (json.dumps(document), yaml.safe_dump(document)):
        path = _kubeconfig_file(text.encode())
        try:
            _load_and_resolve(path, context)
        finally:
            path.unlink()


@SETTINGS
@given(
    st.lists(st.sampled_from(KEYS), min_size=1, max_size=3),
    st.lists(
        st.sampled_from(["- ", "  ", ": ", "{", "[", "'", '"', "\n", "#", "&a ", "*a", "!!str ", "x"]), max_size=30
    ),
)
def test_random_yaml_ish_text_parses_or_fails_with_one_configuration_error(keys: list[str], pieces: list[str]) -> None:
    text = "\n".join(f"{key}: " for key in keys) + "".join(pieces)
    path = _kubeconfig_file(text.encode())
    try:
        _load_and_resolve(path)
    finally:
        path.unlink()


@SETTINGS
@given(st.binary(max_size=300))
def test_random_bytes_parse_or_fail_with_one_configuration_error(data: bytes) -> None:
    path = _kubeconfig_file(data)
    try:
        _load_and_resolve(path)
    finally:
        path.unlink()


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_parses_or_fails_with_one_configuration_error(text: str) -> None:
    path = _kubeconfig_file(text.encode("utf-8", "surrogatepass"))
    try:
        _load_and_resolve(path)
    finally:
        path.unlink()


def _agrees_with_pyyaml(text: str) -> None:
    ours = load(text)
    if ours is UNSUPPORTED:
        return
    assert ours == yaml.safe_load(text)


@SETTINGS
@given(st.text(max_size=200))
def test_block_reader_equals_pyyaml_on_random_text(text: str) -> None:
    _agrees_with_pyyaml(text)


@SETTINGS
@given(DOCUMENTS, st.booleans())
def test_block_reader_equals_pyyaml_on_dumped_structures(document: dict, flow: bool) -> None:
    _agrees_with_pyyaml(yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True))


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from(["- ", "", "key: ", "name: ", "- name: "]),
            st.sampled_from(
                ["x", "1", "yes", "'q'", '"d"', "a: b", "{}", "[]", "~", "-1.5", "2001-01-01", "a # c", ""]
            ),
        ),
        max_size=12,
    )
)
def test_block_reader_equals_pyyaml_on_block_style_lines(lines: list[tuple[int, str, str]]) -> None:
    _agrees_with_pyyaml("\n".join(" " * (2 * depth) + head + tail for depth, head, tail in lines) + "\n")
