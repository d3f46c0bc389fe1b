"""kubectl's plugin completion protocol, served from a generated table without building the Typer app.

kubectl runs ``kubectl_complete-instancetype <args...> <word being completed>``; we answer one candidate per
line (``value<TAB>description``) and a last ``:<directive>`` line (cobra's ShellCompDirective: 4 means no
file completion, 0 lets the shell complete file names). Nothing is ever written to stderr and the exit
status is always 0, because kubectl would otherwise drop the answer or show noise to the user.

Commands, flags and fixed values come from :mod:`.completion_data` (generated from the app, see
:mod:`.completion_spec`); live names (instance types, preferences, namespaces, PVCs, ...) from one
metadata-only list request per scope, under a short overall deadline, honouring ``--kubeconfig``,
``--context`` and ``-n`` already on the line.
"""

from __future__ import annotations

from ..env import Environment
from ..instancetype import kinds as type_kinds

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (shell completion imports this module)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

NO_FILE_COMPLETION = 4
NO_SPACE = 2
DEFAULT = 0
LIVE_DEADLINE = 1.0  # seconds for every live look-up of one completion together
COMPLETION_TIMEOUT_VARIABLE = "KUBECTL_INSTANCETYPE_COMPLETION_TIMEOUT"


# kind prefixes --instancetype and --preference accept (virtctl's spellings, canonical form first, then
# kubectl's short names: the CRDs' shortNames), from the kinds table
def _matcher_prefixes(what: str) -> tuple[str, ...]:
    cluster, namespaced = type_kinds.of(what, False), type_kinds.of(what, True)
    return (f"{cluster.singular}/", f"{namespaced.singular}/", f"{cluster.short}/", f"{namespaced.short}/")


INSTANCETYPE_PREFIXES = _matcher_prefixes(type_kinds.INSTANCETYPES)
PREFERENCE_PREFIXES = _matcher_prefixes(type_kinds.PREFERENCES)


def kind_word(word: str) -> str:
    """A kind as typed (any case, plural or short name) -> the lowercase singular kind."""
    kind = type_kinds.spelled(word)
    if kind is not None:
        return kind.singular
    return word.lower().removesuffix("." + type_kinds.GROUP).removesuffix("s")


# positional "kind/NAME" arguments (infer, expand, label, ...), with kubectl's short names
OBJECT_PREFIXES = {
    "vm/": "virtualmachines",
    "pvc/": "persistentvolumeclaims",
    "dv/": "datavolumes",
    "datasource/": "datasources",
    "das/": "datasources",
    "volumesnapshot/": "volumesnapshots",
}
# what each kind of object argument takes (completion_spec.ARGUMENTS): only the kinds the command accepts
ARGUMENT_PREFIXES = {
    "objects": tuple(OBJECT_PREFIXES),  # infer: a VM or a volume
    "vms": ("vm/",),  # expand, revisions, switch, adopt: options.vm_target
    "volumes": ("pvc/", "dv/", "datasource/", "das/"),  # label: the volumes that carry inference labels
}


# positional instance type / preference arguments (usage, lint): kind/NAME -> the live source of names
def _type_source(kind: type_kinds.TypeKind) -> str:
    return f"{kind.what}:{'namespaced' if kind.namespaced else 'cluster'}"


TYPE_PREFIXES = {
    **{f"{kind.singular}/": _type_source(kind) for kind in type_kinds.ALL},
    **{f"{kind.short}/": _type_source(kind) for kind in type_kinds.ALL},
}

Candidate = tuple[str, str]


class Line:
    """The command line being completed: the command path, flags already given, and what is being typed."""

    def __init__(self, table: dict[str, Any], args: Sequence[str]):
        self.table = table
        self.path = ""
        self.values: dict[str, str] = {}
        self.repeated: dict[str, list[str]] = {}  # every value of each flag, in order
        self.positionals: list[str] = []
        self.pending_flag: str | None = None  # the flag whose value is being typed as the next word
        aliases = table[""].get("aliases", {})
        words = list(args)
        index = 0
        while index < len(words):
            word = words[index]
            entry = table[self.path]
            if word.startswith("-") and word != "-":
                name, eq, value = word.partition("=")
                flag = entry["flags"].get(name)
                short = entry["flags"].get(word[:2]) if not word.startswith("--") and len(word) > 2 else None
                if flag is None and short is not None and short["value"]:
                    # pflag's attached shorthand value: -ndemo
                    self.values[word[:2]] = word[2:]
                    self.repeated.setdefault(word[:2], []).append(word[2:])
                    index += 1
                    continue
                if flag is not None and flag["value"] and not eq:
                    if index + 1 < len(words):
                        self.values[name] = words[index + 1]
                        self.repeated.setdefault(name, []).append(words[index + 1])
                        index += 2
                        continue
                    self.pending_flag = name
                elif flag is not None and eq:
                    self.values[name] = value
                    self.repeated.setdefault(name, []).append(value)
                index += 1
                continue
            name = aliases.get(word, word) if not self.path else word
            child = f"{self.path} {name}".strip()
            if not self.positionals and child in table:
                self.path = child
            else:
                self.positionals.append(word)
            index += 1

    @property
    def entry(self) -> dict[str, Any]:
        """The table entry of the command being completed."""
        return self.table[self.path]

    def all_values(self, name: str) -> list[str]:
        """Every value given for ``name`` on the line (a repeatable flag: ``--as-group``)."""
        return list(self.repeated.get(name, []))

    def value(self, *names: str) -> str | None:
        """The value given for the first of ``names`` on the line, if any."""
        for name in names:
            if name in self.values:
                return self.values[name]
        return None


def _filtered(candidates: Sequence[Candidate], prefix: str) -> list[Candidate]:
    return [(value, help_text) for value, help_text in candidates if value.startswith(prefix)]


def candidates(
    args: Sequence[str], incomplete: str, live: Callable[[str, Line, str], list[Candidate]] | None = None
) -> tuple[list[Candidate], int]:
    """The (value, help) candidates for completing ``incomplete`` after ``args``, and the directive.

    ``live(source, line, prefix)`` returns names from the cluster (or kubeconfig); without it, only static
    candidates are offered.
    """
    from .completion_data import TABLE

    live = live or (lambda source, line, prefix: [])
    line = Line(TABLE, args)
    entry = line.entry
    flag, prefix = line.pending_flag, incomplete
    if flag is None and incomplete.startswith("-") and "=" in incomplete:
        flag, _, prefix = incomplete.partition("=")
        if flag in entry["flags"] and entry["flags"][flag]["value"]:
            values, directive = _values(entry["flags"][flag], flag, line, prefix, live)
            return [(f"{flag}={value}", help_text) for value, help_text in values], directive
        return [], NO_FILE_COMPLETION
    if flag is not None:
        return _values(entry["flags"].get(flag, {}), flag, line, prefix, live)
    if incomplete.startswith("-"):
        flags = [(name, spec["help"]) for name, spec in entry["flags"].items()]
        long_first = sorted(flags, key=lambda item: (not item[0].startswith("--"), item[0]))
        return _filtered(long_first, incomplete), NO_FILE_COMPLETION
    found: list[Candidate] = []
    if not line.positionals:
        found += _filtered(sorted(entry["commands"].items()), incomplete)
    argument = entry.get("argument")
    if argument == "kinds" and not line.positionals:
        found += _filtered([("instancetypes", "list instance types"), ("preferences", "list preferences")], prefix)
    elif argument in ARGUMENT_PREFIXES and not line.positionals:
        return _objects(line, prefix, live, ARGUMENT_PREFIXES[argument])
    elif argument == "types" and not line.positionals:
        return _types(line, prefix, live)
    elif argument == "type-names":
        # get/describe: TYPE/NAME..., or a kind and then names (kubectl get vmcf u1.small u1.large)
        kind = line.positionals[0] if line.positionals else ""
        source = TYPE_PREFIXES.get(f"{kind_word(kind)}/") if "/" not in kind else None
        if source is not None and live is not None:
            return live(source, line, prefix), NO_FILE_COMPLETION
        return _types(line, prefix, live)
    return found, NO_FILE_COMPLETION


def _values(
    spec: dict[str, Any],
    flag: str,
    line: Line,
    prefix: str,
    live: Callable[[str, Line, str], list[Candidate]] | None,
) -> tuple[list[Candidate], int]:
    if spec.get("file"):
        return [], DEFAULT
    fixed = [(value, "") for value in spec.get("values", [])]
    source = spec.get("live")
    if fixed and not source:
        return _filtered(fixed, prefix), NO_FILE_COMPLETION
    if source is None or live is None:
        return _filtered(fixed, prefix), NO_FILE_COMPLETION
    if source in ("instancetypes", "preferences"):
        prefixes = INSTANCETYPE_PREFIXES if source == "instancetypes" else PREFERENCE_PREFIXES
        kind, slash, name = prefix.rpartition("/")
        if slash:
            spelled = kind_word(kind)
            if spelled not in (prefixes[0][:-1], prefixes[1][:-1]):
                return [], NO_FILE_COMPLETION
            namespaced = spelled == prefixes[1][:-1]
            names = live(f"{source}:{'namespaced' if namespaced else 'cluster'}", line, name)
            return [(f"{kind}/{value}", help_text) for value, help_text in names], NO_FILE_COMPLETION
        found = live(f"{source}:cluster", line, prefix)
        found += _filtered([(p, "kind prefix") for p in prefixes], prefix)
        # Only kind prefixes left: no space after them, so the name can follow at once.
        only_prefixes = bool(found) and all(value.endswith("/") for value, _ in found)
        return found, NO_FILE_COMPLETION | (NO_SPACE if only_prefixes else 0)
    if source == "pvc-src":
        # --volume-pvc src:NAME[,name:...]: complete PVC names after "src:".
        head, marker, name = prefix.rpartition("src:")
        if not marker:
            return _filtered([("src:", "the PVC to use")], prefix), NO_SPACE | NO_FILE_COMPLETION
        names = live("persistentvolumeclaims", line, name)
        return [(f"{head}src:{value}", help_text) for value, help_text in names], NO_FILE_COMPLETION
    return live(source, line, prefix), NO_FILE_COMPLETION


def _objects(
    line: Line,
    prefix: str,
    live: Callable[[str, Line, str], list[Candidate]] | None,
    taken: tuple[str, ...],
) -> tuple[list[Candidate], int]:
    kind, slash, name = prefix.partition("/")
    if not slash:
        return _filtered([(p, "") for p in taken], prefix), NO_SPACE | NO_FILE_COMPLETION
    resource = OBJECT_PREFIXES.get(f"{kind}/") if f"{kind}/" in taken else None
    if resource is None or live is None:
        return [], NO_FILE_COMPLETION
    return [(f"{kind}/{value}", help_text) for value, help_text in live(resource, line, name)], NO_FILE_COMPLETION


def _types(
    line: Line, prefix: str, live: Callable[[str, Line, str], list[Candidate]] | None
) -> tuple[list[Candidate], int]:
    kind, slash, name = prefix.partition("/")
    if not slash:
        return _filtered([(p, "") for p in TYPE_PREFIXES], prefix), NO_SPACE | NO_FILE_COMPLETION
    source = TYPE_PREFIXES.get(f"{kind_word(kind)}/")
    if source is None or live is None:
        return [], NO_FILE_COMPLETION
    return [(f"{kind}/{value}", help_text) for value, help_text in live(source, line, name)], NO_FILE_COMPLETION


def live_names(env: Environment, deadline: float) -> Callable[[str, Line, str], list[Candidate]]:
    """The live look-up: names from the cluster (metadata only), or contexts from the kubeconfig."""
    import time

    def look_up(source: str, line: Line, prefix: str) -> list[Candidate]:
        # The whole look-up (reading the kubeconfig, an exec plugin, the requests) runs in a worker that is
        # waited for until the deadline, no longer: a kubeconfig of 150,000 contexts takes seconds to read, and
        # completion answers within its budget or with no live names, as it does for a server that hangs.
        import threading

        found: list[list[Candidate]] = []

        def work() -> None:
            try:
                found.append(_look_up(source, line, prefix))
            except Exception:  # noqa: BLE001 - no live names, but the static candidates still count
                found.append([])

        worker = threading.Thread(target=work, name="completion-look-up", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        return found[0] if found else []

    def _look_up(source: str, line: Line, prefix: str) -> list[Candidate]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return []
        if source in ("contexts", "clusters"):
            return _kubeconfig_names(env, line, prefix, source)
        from ..kube.kubeconfig import ConnectionOptions
        from ..kube.session import Session
        from ..usecases.names import list_names

        options = ConnectionOptions(
            kubeconfig=line.value("--kubeconfig"),
            context=line.value("--context"),
            cluster=line.value("--cluster"),
            namespace=line.value("-n", "--namespace"),
            request_timeout=remaining,
            # names are listed as the command would run: impersonating, when the line says so
            as_user=line.value("--as") or None,
            as_uid=line.value("--as-uid") or None,
            as_groups=tuple(line.all_values("--as-group")),
        )
        session = Session(options, env.environ, env.home())
        names = list_names(session, source, prefix, time.monotonic() + remaining)
        return [(entry.name, entry.description) for entry in names]

    return look_up


def _kubeconfig_names(env: Environment, line: Line, prefix: str, source: str) -> list[Candidate]:
    """The kubeconfig's context or cluster names (kubectl completes --context and --cluster from them)."""
    from ..kube.kubeconfig import kubeconfig_paths, read_kubeconfig

    files = read_kubeconfig(kubeconfig_paths(line.value("--kubeconfig"), env.environ, env.home(), env.goos))
    names = files.contexts if source == "contexts" else files.clusters
    return [(name, "") for name in sorted(names) if name.startswith(prefix)]


def live_deadline(env: Environment) -> float:
    """Seconds for the live look-ups of one completion: LIVE_DEADLINE, or ``$KUBECTL_INSTANCETYPE_COMPLETION_TIMEOUT``
    (a Go duration such as ``3s``) for a cluster that answers slower than a shell should wait by default."""
    text = env.environ.get(COMPLETION_TIMEOUT_VARIABLE, "")
    if text:
        from ..golang.duration import DurationError, parse_duration

        try:
            nanoseconds = parse_duration(text)
        except DurationError:
            return LIVE_DEADLINE  # completion stays silent; a bad value means the default
        if nanoseconds > 0:
            return nanoseconds / 1e9
    return LIVE_DEADLINE


def complete(argv: Sequence[str], env: Environment) -> int:
    """Answer one kubectl completion request; always exit 0, never write to stderr."""
    import time

    args, incomplete = list(argv[:-1]), (argv[-1] if argv else "")
    try:
        deadline = time.monotonic() + live_deadline(env)
        found, directive = candidates(args, incomplete, live_names(env, deadline))
    except Exception:  # noqa: BLE001 - completion must stay silent: nothing is better than noise
        found, directive = [], NO_FILE_COMPLETION
    try:
        for value, description in found:
            description = description.splitlines()[0] if description else ""
            env.stdout.write(f"{value}\t{description}\n" if description else f"{value}\n")
        env.stdout.write(f":{directive}\n")
    except (OSError, ValueError):
        pass
    return 0
