"""The layer contract: the arrows between cli/, usecases/ and kube/ point one way (DEVELOPERS.md, "Layout").

- cli/ parses flags into options, calls a use case with the Session and prints: it never reaches the API
  client, the transport or the HTTP connection itself (kube.client, kube.transport, kube.http);
- a command module of cli/ imports no other command module (what commands share lives in option modules);
- usecases/ never prints and opens no connection: no print(), no writes to stdout/stderr, no socket, ssl,
  http or urllib, no kube.transport/kube.http/the OCI client, and no client made there (the Session makes it);
- only kube/ opens connections: no module outside it imports the standard library's network modules (socket, ssl,
  http.client, urllib.request, ...) nor kube's wire (kube.http, kube.transport); the registry client and the
  upload proxy send through kube/httpclient.py, the one request layer;
- outside kube/, the API server is asked only through the client's named methods (known paths, no discovery):
  no ``.transport`` (``client.transport.request(...)``), no private attribute of another object, no private
  name imported from kube/.

Imports are read from the source (lazy and TYPE_CHECKING ones included), as tests/unit/test_import_graph.py
reads them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from kubectl_instancetype.cli.catalog import SUBCOMMANDS as CATALOG_SUBCOMMANDS
from kubectl_instancetype.cli.commands import COMMANDS
from kubectl_instancetype.cli.create import SUBCOMMANDS as CREATE_SUBCOMMANDS

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_instancetype"
ROOT = PACKAGE.name

# Modules only kube/ may import: what opens connections.
CONNECTING = {f"{ROOT}.kube.client", f"{ROOT}.kube.transport", f"{ROOT}.kube.http"}
NETWORK_STDLIB = {"socket", "ssl", "http", "urllib", "asyncio", "selectors"}
USECASE_FORBIDDEN = {
    f"{ROOT}.kube.transport",
    f"{ROOT}.kube.http",
    f"{ROOT}.kube.httpclient",
    f"{ROOT}.oci.client",
}
# names of kube.client a use case may use (types and constants, never `connect` or `Client(...)`)
CLIENT_NAMES_ALLOWED_IN_USECASES = {"Client", "PagingError", "MERGE_PATCH", "JSON_PATCH", "STRATEGIC_MERGE_PATCH"}

COMMAND_MODULES = set(COMMANDS.values()) | set(CREATE_SUBCOMMANDS.values()) | set(CATALOG_SUBCOMMANDS.values())


def _modules(folder: str) -> dict[str, Path]:
    found = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path) -> list[tuple[str, list[str], int]]:
    """``(module, names imported from it, line)`` for every import in the module's source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [alias.name for alias in node.names]
            found.append((base, names, node.lineno))
            # `from ..kube import client` imports the module kube.client
            found += [(f"{base}.{n}", [], node.lineno) for n in names]
    return found


def _violations(folder: str, check) -> list[str]:
    problems = []
    for name, path in _modules(folder).items():
        problems += [f"{name}: {problem}" for problem in check(name, path)]
    return problems


def _cli_check(name: str, path: Path) -> list[str]:
    problems = []
    for module, _, line in _imports(name, path):
        if module in CONNECTING:
            problems.append(f"imports {module} (line {line}): ask the Session")
        if name in COMMAND_MODULES and module in COMMAND_MODULES and module != name:
            problems.append(f"imports the command module {module} (line {line}): share through an option module")
    return problems


def _usecase_check(name: str, path: Path) -> list[str]:
    problems = []
    for module, names, line in _imports(name, path):
        top = module.split(".")[0]
        if top in NETWORK_STDLIB or module in USECASE_FORBIDDEN:
            problems.append(f"imports {module} (line {line}): connections are opened in kube/")
        if module == f"{ROOT}.kube.client":
            extra = sorted(set(names) - CLIENT_NAMES_ALLOWED_IN_USECASES)
            if extra:
                problems.append(f"imports {', '.join(extra)} from kube.client (line {line}): the Session makes clients")
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name) and node.id == "print":
            problems.append(f"uses print (line {node.lineno}): return a result, the command prints it")
        if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr"):
            problems.append(f"touches {node.attr} (line {node.lineno}): return a result, the command prints it")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Client":
            problems.append(f"makes a Client (line {node.lineno}): the Session makes clients")
    return problems


# What opens connections: the standard library's network modules and kube's wire. Only kube/ imports them.
CONNECTION_MODULES = {
    "socket",
    "ssl",
    "_socket",
    "_ssl",
    "select",
    "selectors",
    "asyncio",
    "http.client",
    "http.server",
    "socketserver",
    "urllib.request",
    "ftplib",
    "smtplib",
    "xmlrpc.client",
    f"{ROOT}.kube.http",
    f"{ROOT}.kube.transport",
    f"{ROOT}.kube.sockets",
}

# CPython's C modules under socket, ssl and json: each has one home, which says why it skips the wrapper
C_MODULE_HOMES = {
    "_socket": f"{ROOT}.kube.sockets",
    "_ssl": f"{ROOT}.kube.sockets",
    "_json": f"{ROOT}.kube.jsonscan",
}


def _c_module_check(name: str, path: Path) -> list[str]:
    return [
        f"imports {module} (line {line}): only {C_MODULE_HOMES[module]} uses it; import that module"
        for module, _, line in _imports(name, path)
        if module in C_MODULE_HOMES and C_MODULE_HOMES[module] != name
    ]


def test_the_c_modules_under_socket_ssl_and_json_have_one_home() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        problems += [f"{name}: {problem}" for problem in _c_module_check(name, path)]
    assert problems == [], "\n".join(problems)


def test_the_c_module_check_catches_violations(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("import _ssl\ndef f():\n    from _json import make_scanner\n")
    assert _c_module_check(f"{ROOT}.kube.planted", planted) == [
        f"imports _ssl (line 1): only {ROOT}.kube.sockets uses it; import that module",
        f"imports _json (line 3): only {ROOT}.kube.jsonscan uses it; import that module",
    ]
    assert _c_module_check(f"{ROOT}.kube.sockets", planted)[0].startswith("imports _json")


def _package_modules_outside_kube() -> dict[str, Path]:
    """Every module of the package but kube/'s (top-level modules such as errors.py included)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "kube":
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _connection_check(name: str, path: Path) -> list[str]:
    problems = []
    for module, _, line in _imports(name, path):
        if module in CONNECTION_MODULES:
            problems.append(
                f"imports {module} (line {line}): only kube/ opens connections. Send requests through "
                "kube/httpclient.py (HTTPClient, made by the Session) or, to the API server, the Session's client "
                "(DEVELOPERS.md, Layout)"
            )
    return problems


def test_only_kube_opens_connections() -> None:
    problems = []
    for name, path in _package_modules_outside_kube().items():
        problems += [f"{name}: {problem}" for problem in _connection_check(name, path)]
    assert problems == [], "\n".join(problems)


def test_the_connection_check_catches_violations(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import http.client\n"
        "from urllib import request\n"
        "from urllib.parse import quote\n"  # parsing opens nothing
        "def f():\n"
        "    import socket, ssl\n"
        "    from ..kube.http import Connection\n"
        "    from ..kube.httpclient import HTTPClient\n"  # the request layer is the way
    )
    problems = _connection_check(f"{ROOT}.oci.planted", planted)
    assert [p.split(" (line")[0] for p in problems] == [
        "imports http.client",
        "imports urllib.request",
        "imports socket",
        "imports ssl",
        f"imports {ROOT}.kube.http",
    ]
    assert "only kube/ opens connections" in problems[0]
    assert f"{ROOT}.oci.client" in _package_modules_outside_kube()
    assert not any(".kube." in name for name in _package_modules_outside_kube())


# NamedTuple's public API is spelled with an underscore, and so is os._exit (cli/main.py exit_now)
PUBLIC_UNDERSCORED = {"_replace", "_fields", "_asdict", "_make", "_exit"}
# the package's folders other than kube/
OUTSIDE_KUBE = ("cli", "usecases", "output", "instancetype", "golang", "catalog", "oci")


def _private_access_check(name: str, path: Path) -> list[str]:
    problems = []
    for module, _, line in _imports(name, path):
        # `from ..kube.client import _x` is read as the module kube.client._x too
        parts = module.split(".")
        if parts[:2] == [ROOT, "kube"] and any(p.startswith("_") and not p.startswith("__") for p in parts[2:]):
            problems.append(f"imports the private {module} (line {line}): add a public name to kube/")
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute):
            continue
        if node.attr == "transport":
            problems.append(f"reaches {ast.unparse(node)} (line {node.lineno}): add a named method to kube/client.py")
        elif (
            node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in PUBLIC_UNDERSCORED
            and ast.unparse(node.value) not in ("self", "cls")
        ):
            problems.append(f"reaches the private {ast.unparse(node)} (line {node.lineno})")
    return problems


def test_the_contract_reads_the_modules() -> None:
    # the checks see what they must: a command module that is known to import options, and use cases
    assert "kubectl_instancetype.cli.version" in COMMAND_MODULES
    imports = [module for module, _, _ in _imports("kubectl_instancetype.cli.version", PACKAGE / "cli" / "version.py")]
    assert "kubectl_instancetype.cli.options" in imports
    assert "kubectl_instancetype.usecases.listing" in _modules("usecases")


def test_the_checks_catch_violations(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import ssl\nfrom ..kube.client import connect\n\ndef f(env):\n    print('x')\n    env.stdout.write('y')\n"
    )
    problems = _usecase_check(f"{ROOT}.usecases.bad", bad)
    assert [p.split(" (")[0] for p in problems] == [
        "imports ssl",
        "imports connect from kube.client",
        "uses print",
        "touches stdout",
    ]
    command = tmp_path / "command.py"
    command.write_text("from ..kube.client import connect\nfrom .list import x\n")
    assert [p.split(" (")[0] for p in _cli_check(f"{ROOT}.cli.version", command)] == [
        f"imports {ROOT}.kube.client",
        f"imports the command module {ROOT}.cli.list",
    ]


def test_the_private_access_check_catches_violations(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from ..kube.client import _helper\n\n"
        "def f(client, query):\n"
        "    client.transport.request('GET', '/apis/x')\n"
        "    client._connection.close()\n"
        "    return query._replace(what='x'), self._own\n"
    )
    problems = _private_access_check(f"{ROOT}.usecases.bad", bad)
    assert [p.split(" (line")[0] for p in problems] == [
        f"imports the private {ROOT}.kube.client._helper",
        "reaches client.transport",
        "reaches the private client._connection",
    ]


def test_only_kube_reaches_the_transport_and_private_attributes() -> None:
    problems = []
    for folder in OUTSIDE_KUBE:
        problems += _violations(folder, _private_access_check)
    assert problems == []


# list's --watch is its own mode (kubectl get's too): a list, then events read lazily, with a result of its own;
# catalog_list.py holds two commands (catalog list, catalog show)
ONE_USE_CASE_EXCEPTIONS = {
    f"{ROOT}.cli.list": {"list_cluster", "watch_cluster"},
    f"{ROOT}.cli.catalog_list": {"list_catalog", "catalog_objects_named"},
    # rightsize --print-rules prints the recording rules instead of measuring (as list -w watches instead of listing)
    f"{ROOT}.cli.rightsize": {"rightsize", "recording_rules"},
}
# what runs before the command: flag checks may use the use cases' pure parsers and request types
NOT_RUNNING = ("register", "validate", "warnings")


def _use_cases_called(path: Path) -> set[str]:
    """The use-case functions a command module calls while it runs: lowercase names imported from usecases/
    (``infer.read_vm`` for a module imported whole), outside register/validate; request and result classes do
    not count."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in NOT_RUNNING
        for inner in ast.walk(node)
    }
    used: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if module == "usecases":  # `from ..usecases import infer`: a use-case module
            modules |= {alias.asname or alias.name for alias in node.names}
        elif module.startswith("usecases"):
            used |= {alias.asname or alias.name for alias in node.names if alias.name[:1].islower()}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr[:1].islower()
        ):
            used.add(f"{node.value.id}.{node.attr}")
    return used


def test_each_command_calls_one_use_case() -> None:
    problems = []
    for name, path in _modules("cli").items():
        used = _use_cases_called(path) if name in COMMAND_MODULES else set()
        if len(used) > 1 and used != ONE_USE_CASE_EXCEPTIONS.get(name):
            problems.append(f"{name} calls {', '.join(sorted(used))}: compose them in one use case")
    assert problems == []


def test_the_one_use_case_check_reads_imports(tmp_path: Path) -> None:
    command = tmp_path / "command.py"
    command.write_text(
        "class Options:\n"
        "    def validate(self):\n"
        "        from ..usecases.recommend import parse_preference_reference\n"
        "def run(env, opts, session):\n"
        "    from ..usecases.converting import ConvertRequest, convert_file\n"
        "    from ..usecases import infer\n"
        "    infer.read_vm(opts.filename)\n"
        "def _report(env):\n"
        "    from ..usecases.infer_resolve import dropped_warnings\n"
    )
    assert _use_cases_called(command) == {"convert_file", "infer.read_vm", "dropped_warnings"}


# What a use case returns is a dataclass with named fields. Left as tuples, with the reason:
TUPLES_ALLOWED = {
    # an input, not a result, read on list's start-up path: a dataclass costs about 1 ms per run there
    f"{ROOT}.usecases.listing.Query",
    # a release, compared in order with (1, 8, 2): a version tuple as sys.version_info is
    f"{ROOT}.usecases.cluster_facts.kubevirt_release",
}


def _tuple_results(name: str, path: Path) -> list[str]:
    problems = []
    for node in ast.parse(path.read_text(), str(path)).body:
        named_tuple = isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "NamedTuple" for b in node.bases)
        if named_tuple and f"{name}.{node.name}" not in TUPLES_ALLOWED:
            problems.append(f"{node.name} is a NamedTuple (line {node.lineno}): make it a dataclass")
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.returns is not None:
            returns = ast.unparse(node.returns)
            if "tuple[" in returns.replace("dict[tuple[", "") and f"{name}.{node.name}" not in TUPLES_ALLOWED:
                problems.append(f"{node.name} returns {returns} (line {node.lineno}): return a dataclass")
    return problems


def test_use_cases_return_dataclasses_not_tuples(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "class Found(NamedTuple):\n    a: int\n"
        "def fetch(client) -> tuple[Found, list[str]]: ...\n"
        "def index() -> dict[tuple[str, str], int]: ...\n"
        "def _helper() -> tuple[int, int]: ...\n"
    )
    assert [p.split(" (")[0] for p in _tuple_results(f"{ROOT}.usecases.bad", bad)] == [
        "Found is a NamedTuple",
        "fetch returns tuple[Found, list[str]]",
    ]
    assert _violations("usecases", _tuple_results) == []


def test_cli_reaches_the_cluster_only_through_the_session() -> None:
    assert _violations("cli", _cli_check) == []


def test_usecases_never_print_nor_connect() -> None:
    assert _violations("usecases", _usecase_check) == []


def test_cli_options_classes_are_made_by_options_dataclass() -> None:
    # dataclasses.dataclass generates and compiles code per class on every run; options.dataclass does not
    found = []
    for name, path in _modules("cli").items():
        tree = ast.parse(path.read_text(), str(path))
        spellings = {"dataclasses.dataclass"}
        if any(isinstance(n, ast.ImportFrom) and n.module == "dataclasses" for n in ast.walk(tree)):
            spellings.add("dataclass")  # `from dataclasses import dataclass`
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                marker in ast.unparse(item) for item in node.body for marker in ("typer.", "Option(", "Argument(")
            ):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if ast.unparse(target) in spellings:
                        found.append(f"{name}.{node.name}")
    assert found == []
