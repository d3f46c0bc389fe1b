"""``infer``'s reports: what each matcher of a VirtualMachine resolves to, a volume's defaults, an image's labels
(a table, ``-o wide`` with the chain of objects read, ``--explain``, or the objects as yaml/json/a template)."""

from __future__ import annotations

from typing import Any

from ..env import Environment

NONE = "<none>"


def print_vm(env: Environment, inference: Any, output: str, explain: bool) -> None:
    """A VirtualMachine's matchers (a ``usecases.infer.VMInference``), or the VM as admission leaves it."""
    from . import messages

    vm, result = inference.given, inference.result
    for line in inference.warnings:
        messages.warn(env, line)
    if output in ("yaml", "json") or "=" in output:  # yaml, json or a template (-o jsonpath=...)
        from .printers import print_objects

        admitted = result.vm
        if not (vm.get("metadata") or {}).get("namespace"):
            admitted["metadata"].pop("namespace", None)  # as given: the file can still be created anywhere
        print_objects(env, output, [admitted], [], single=True)
        return
    if not result.outcomes:
        messages.info(env, "The VirtualMachine has no instancetype or preference matcher.")
        return
    rows = []
    for outcome in result.outcomes:
        chain = outcome.resolution.chain_text() if outcome.resolution else "set in the VirtualMachine"
        row = [
            outcome.matcher,
            outcome.volume or NONE,
            outcome.name or NONE,
            outcome.kind or NONE,
            outcome.policy or NONE,
            {"given": "given"}.get(outcome.action, outcome.action),
        ]
        rows.append(row + [chain] if output == "wide" else row)
    headers = ["MATCHER", "VOLUME", "NAME", "KIND", "POLICY", "RESULT"] + (["CHAIN"] if output == "wide" else [])
    _print_table(env, headers, rows)
    if explain:
        for outcome in result.outcomes:
            if outcome.resolution is not None:
                env.stdout.write(escape(f"{outcome.matcher}: {outcome.resolution.chain_text()}") + "\n")


def print_volume(env: Environment, defaults: Any, output: str, explain: bool) -> None:
    """The defaults one volume yields (its instancetype and preference resolutions)."""
    resolutions = (("instancetype", defaults.instancetype), ("preference", defaults.preference))
    if output in ("yaml", "json") or "=" in output:  # yaml, json or a template (-o jsonpath=...)
        from . import messages
        from .printers import print_objects

        for matcher, resolution in resolutions:
            if not resolution.ok:
                messages.warn(env, f"{matcher}: {resolution.error}")
        print_objects(env, output, [defaults.as_dict()], [], single=True)
        return
    rows = []
    for matcher, resolution in resolutions:
        row = [
            matcher,
            resolution.name or NONE if resolution.ok else NONE,
            resolution.kind or NONE if resolution.ok else NONE,
            "inferred" if resolution.ok else resolution.error or "",
        ]
        rows.append(row + [resolution.chain_text()] if output == "wide" else row)
    _print_table(env, ["MATCHER", "NAME", "KIND", "RESULT"] + (["CHAIN"] if output == "wide" else []), rows)
    if explain:
        for matcher, resolution in resolutions:
            env.stdout.write(escape(f"{matcher}: {resolution.chain_text()}") + "\n")


def print_image(env: Environment, result: Any, output: str, explain: bool) -> None:
    """The defaults an image's config labels yield, and the chain of manifests read."""
    from ..instancetype import imagedefaults
    from . import messages

    image, defaults = result.image, result.defaults
    reference, platform = image.reference, image.platform
    chain = " -> ".join([f"image {reference}"] + [step.text() for step in image.steps] + ["env"])
    if output in ("yaml", "json") or "=" in output:  # yaml, json or a template (-o jsonpath=...)
        from .printers import print_objects

        for matcher, found in defaults.items():
            if not found.ok:
                messages.warn(env, f"{matcher}: {found.problem}")
        document = {
            "image": str(reference),
            "platform": str(platform),
            "digest": image.steps[-2].digest if len(image.steps) > 1 else "",
            **{
                matcher: {"name": default.name, "kind": default.kind} if default.ok else None
                for matcher, default in defaults.items()
            },
            "labels": imagedefaults.labels_from_config(image.config),
            "chain": [{"what": step.what, "digest": step.digest} for step in image.steps],
        }
        print_objects(env, output, [document], [], single=True)
        return
    rows = []
    for matcher, found in defaults.items():
        row = [matcher, found.name or NONE, found.kind or NONE, "inferred" if found.ok else found.problem]
        rows.append(row + [chain] if output == "wide" else row)
    _print_table(env, ["MATCHER", "NAME", "KIND", "RESULT"] + (["CHAIN"] if output == "wide" else []), rows)
    if explain:
        env.stdout.write(escape(f"chain: {chain}") + "\n")


def escape(text: str) -> str:
    """Cluster and registry data with its control characters shown (output/terminal.py)."""
    from .terminal import escape as escape_controls

    return escape_controls(text)


def _print_table(env: Environment, headers: list[str], rows: list[list[str]]) -> None:
    from .table import render_table

    env.stdout.write(render_table(headers, rows))
