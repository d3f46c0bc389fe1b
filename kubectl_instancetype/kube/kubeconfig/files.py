"""Reading kubeconfig files as kubectl reads them (client-go ``tools/clientcmd`` loading rules).

``--kubeconfig`` names one file; otherwise ``KUBECONFIG`` lists files separated by ``;`` on Windows and ``:``
elsewhere (missing ones skipped) that are merged so that the first file to set a key wins; otherwise
``~/.kube/config``. Each file is checked against clientcmd's schema (:mod:`.schema`) as Go's ``encoding/json``
would decode it.
"""

from __future__ import annotations

import errno
import os

from ...errors import ConfigurationError
from ...golang.goos import GOOS, path_error, path_module, read_file_error, split_list
from .model import KubeconfigFiles
from .schema import CONFIG, ShapeError, check_shape, json_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Larger kubeconfigs are refused rather than parsed: real ones are a few kilobytes, a runaway file would
# only cost memory and time before failing anyway.
MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024


def kubeconfig_paths(explicit: str | None, environ: Mapping[str, str], home: str, goos: str = GOOS) -> list[str]:
    """The files to read, in precedence order, following clientcmd's loading rules (``KUBECONFIG`` split as
    ``filepath.SplitList`` splits it on ``goos``: ``;`` on Windows)."""
    if explicit:
        if not os.path.exists(explicit):
            raise ConfigurationError(path_error("stat", explicit, errno.ENOENT))
        return [explicit]
    listed = environ.get("KUBECONFIG", "")
    if listed:
        seen: list[str] = []
        for path in split_list(listed, goos):
            if path and path not in seen and os.path.exists(path):
                seen.append(path)
        return seen
    default = path_module(goos).join(home, ".kube", "config")
    return [default] if os.path.exists(default) else []


def _yaml_load(text: str) -> Any:
    if text.lstrip().startswith("{"):
        # JSON is YAML too; json is imported anyway, PyYAML costs ~14 ms of start-up.
        import json

        try:
            return json.loads(text)
        except ValueError:
            pass
    from .block_yaml import UNSUPPORTED, load

    document = load(text)
    if document is not UNSUPPORTED:
        return document
    # Outside the common block-style subset: sigs.k8s.io/yaml's YAMLToJSON over go-yaml v2, as clientcmd's
    # codec reads a kubeconfig (golang/yamltojson: go-yaml's resolve rules, so that a 5,000-digit token is the
    # string kubectl reads, go-yaml's alias budget, and "anchor 'a' value contains itself" for x: &a [*a]).
    from ...golang.yamltojson import load_document

    return load_document(text)  # go-yaml's Unmarshal: the first document of the stream


def _yaml_problem(exc: Exception) -> str:
    """One line for a YAML error, in the shape Go's yaml package reports (``yaml: line N: problem``)."""
    if isinstance(exc, RecursionError):
        return "yaml: exceeded max depth of 10000"
    if exc.__class__.__name__ == "ReaderError":  # a control character: go-yaml's words for it
        return "yaml: control characters are not allowed"
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is not None and problem:
        return f"yaml: line {mark.line + 1}: {problem}"
    first = str(exc).splitlines()[0] if str(exc) else ""
    if first.startswith("yaml: "):  # already Go's words (golang.yamltojson)
        return first
    return f"yaml: {first}" if first else "yaml: invalid document"


def decode_file(path: str) -> dict[str, Any]:
    """One kubeconfig file as a mapping that fits clientcmd's schema, or kubectl's sentence about it."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_KUBECONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(f'error loading config file "{path}": {read_file_error(path, exc)}') from None
    if len(raw) > MAX_KUBECONFIG_BYTES:
        raise ConfigurationError(
            f'error loading config file "{path}": the file is larger than {MAX_KUBECONFIG_BYTES // 1048576} MiB'
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigurationError(f'error loading config file "{path}": yaml: invalid leading UTF-8 octet') from None
    # Python's cyclic garbage collector would pass over every object made so far again and again while a
    # kubeconfig of 150,000 contexts is built (a fifth of the time); nothing built here forms a cycle.
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        document = _yaml_load(text)
    except Exception as exc:  # noqa: BLE001 - yaml.YAMLError (caught without importing yaml), RecursionError
        raise ConfigurationError(f'error loading config file "{path}": {_yaml_problem(exc)}') from None
    finally:
        if collecting:
            gc.enable()
    if document is None or isinstance(document, list):
        return {}  # kubectl reads an empty file, or a YAML list, as an empty kubeconfig
    try:
        if not isinstance(document, dict):
            raise ShapeError(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f'{json_kind(document)} into Go value of type struct {{ APIVersion string "json:\\"apiVersion,'
                'omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
            )
        check_shape(document, CONFIG, "Config", "", set() if "*" in text else None)
    except ShapeError as exc:
        raise ConfigurationError(f'error loading config file "{path}": {exc}') from None
    except RecursionError:
        raise ConfigurationError(f'error loading config file "{path}": yaml: exceeded max depth of 10000') from None
    return document


def _named(entries: Any, key: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") is not None:
            out.append((str(entry["name"]), entry.get(key) or {}))
    return out


def read_kubeconfig(paths: list[str]) -> KubeconfigFiles:
    """Read and merge ``paths``: for every name and for current-context, the first file to set it wins."""
    merged = KubeconfigFiles(paths=list(paths))
    for path in paths:
        document = decode_file(path)
        directory = os.path.dirname(os.path.abspath(path))
        if not merged.current_context and document.get("current-context"):
            merged.current_context = str(document["current-context"])
        for name, body in _named(document.get("contexts"), "context"):
            merged.contexts.setdefault(name, body)
        for name, body in _named(document.get("clusters"), "cluster"):
            if name not in merged.clusters:
                merged.clusters[name] = body
                merged.cluster_dirs[name] = directory
        for name, body in _named(document.get("users"), "user"):
            if name not in merged.users:
                merged.users[name] = body
                merged.user_dirs[name] = directory
                merged.user_files[name] = path
    return merged
