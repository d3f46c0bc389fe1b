"""kubectl's answer to a create: the object (``-o yaml|json``), its name (``-o name``), or ``NAME created``."""

from __future__ import annotations

from typing import Any

from ..env import Environment

SUFFIXES = {"client": " (dry run)", "server": " (server dry run)"}


def print_result(env: Environment, obj: dict[str, Any], resource: Any, output: str, dry_run: str) -> None:
    """Print ``obj`` (of ``resource``) as ``-o output`` asks, or kubectl's ``<resource>/<name> created`` line."""
    from .printers import print_objects

    name = obj.get("metadata", {}).get("name", "")
    if output:
        print_objects(env, output, [obj], [resource.name_of(name)], single=True)
        return
    env.stdout.write(f"{resource.name_of(name)} created{SUFFIXES.get(dry_run, '')}\n")


def print_created(env: Environment, created: Any, output: str) -> None:
    """:func:`print_result` for a :class:`~..usecases.creating.Created`: when the server accepted the object
    but printing fails (stdout closed), say that it exists instead of failing as if nothing had happened."""
    from .printers import TemplateExecutionError

    if created.dry_run == "client":
        print_result(env, created.obj, created.resource, output, created.dry_run)
        return
    try:
        print_result(env, created.obj, created.resource, output, created.dry_run)
        env.stdout.flush()
    except (OSError, TemplateExecutionError) as exc:
        from ..errors import PluginError

        name = created.resource.name_of(created.obj.get("metadata", {}).get("name", ""))
        done = {"server": "passed the server dry run"}.get(created.dry_run, "was created")
        reason = exc.message if isinstance(exc, TemplateExecutionError) else exc.strerror or exc
        raise PluginError(f"{name} {done}, but printing the result failed: {reason}") from exc
