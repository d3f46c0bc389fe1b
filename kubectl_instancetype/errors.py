"""One exception hierarchy for the plugin and the one map from exceptions to messages and exit codes.

Every failure the user can see is raised as a :class:`PluginError` subclass; the CLI's entry point
catches it, prints :func:`render` of it to stderr and exits with :func:`exit_code` of it. Message shapes
follow kubectl (``cmdutil.CheckErr`` / ``StandardErrorMessage``) so that users meet the same words: server
answers read ``Error from server (Reason): ...`` as kubectl prints them; every client-side failure is one
``error: ...`` line, with kubectl's own sentence after the prefix where kubectl has one.
"""

from __future__ import annotations


class ExitStatus:
    """Process exit codes (ints). kubectl uses 1 for every failure, usage errors included; so do we. Constants,
    not an ``enum.IntEnum``: making an enum class costs every command's start-up 0.5M instructions (callgrind)."""

    SUCCESS = 0
    ERROR = 1


class PluginError(Exception):
    """Base class of every error that ends a command with a message and a non-zero exit."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def render(self) -> str:
        """The single line (or block) printed on stderr; kubectl's lowercase ``error:`` prefix."""
        if self.message.startswith("error:"):
            return self.message
        return f"error: {self.message}"


class UsageError(PluginError):
    """A bad flag, argument or flag combination: nothing was sent to the server."""


class InputError(PluginError):
    """A file or value given by the user could not be read or parsed."""


class TemplateExecutionError(InputError):
    """A template failed on the objects (a missing key with --allow-missing-template-keys=false, a type
    error); ``partial`` is what kubectl has written to stdout by then (the template's output so far, its
    debugging block). ``keep_tabs``: the message is kubectl's tab-indented block, printed as it is."""

    def __init__(self, message: str, partial: str = "", *, keep_tabs: bool = False) -> None:
        super().__init__(message)
        self.partial = partial
        self.keep_tabs = keep_tabs


class PreflightError(PluginError):
    """A check against the cluster before a write failed (missing reference, unmet requirement); nothing was written."""


class UploadError(PluginError):
    """An upload failed or was interrupted; the message says what exists and how to go on."""

    def render(self) -> str:
        # a server's answer keeps kubectl's "Error from server (Reason): ..." shape, without "error: " before it
        if self.message.startswith("Error from server"):
            return self.message
        return super().render()


class ConfigurationError(PluginError):
    """The kubeconfig is missing, unreadable or inconsistent (the text after kubectl's ``Error in configuration:``)."""


class TransportError(PluginError):
    """The server could not be reached or spoke no HTTP (kubectl: ``Unable to connect to the server: ...``)."""

    def render(self) -> str:
        return f"error: Unable to connect to the server: {self.message}"


class ConnectionRefused(TransportError):
    """The TCP connection was refused; kubectl has a dedicated sentence for it."""

    def __init__(self, host_port: str):
        super().__init__(f"connection refused: {host_port}")
        self.host_port = host_port

    def render(self) -> str:
        return (
            f"error: The connection to the server {self.host_port} was refused - "
            "did you specify the right host or port?"
        )


class APIError(PluginError):
    """The API server answered with an error status (a Kubernetes ``Status`` object when it sent one)."""

    def __init__(
        self,
        code: int,
        message: str,
        reason: str = "",
        kind: str = "",
        name: str = "",
        causes: list[dict] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.kind = kind
        self.name = name
        self.causes = causes or []

    def render(self) -> str:
        if self.code == 401:
            return f"error: You must be logged in to the server ({self.message or 'Unauthorized'})"
        if self.reason == "Invalid" and self.kind and self.causes:
            # kubectl prints "The <Kind> "<name>" is invalid: " then one cause per line, or inline for one.
            details = [f"{c.get('field', '')}: {c.get('message', '')}".lstrip(": ") for c in self.causes]
            from .golang.strconv import go_quote  # apimachinery NewInvalid: "%s %q is invalid: %v"

            head = f"The {self.kind} {go_quote(self.name)} is invalid: "
            if len(details) == 1:
                return head + details[0]
            return head + "\n" + "\n".join(f"* {d}" for d in details)
        if self.reason:
            return f"Error from server ({self.reason}): {self.message}"
        return f"Error from server: {self.message}"


class NotFoundError(APIError):
    """HTTP 404 with reason NotFound."""


class ForbiddenError(APIError):
    """HTTP 403: RBAC refused the request."""


class UnauthorizedError(APIError):
    """HTTP 401: the credentials were rejected."""


def render(exc: BaseException) -> str:
    """The text printed on stderr for ``exc``; unexpected exceptions get a generic ``error:`` line."""
    if isinstance(exc, PluginError):
        return exc.render()
    internal = _python_internal(exc)
    if internal is not None:
        return f"error: {internal}"
    if isinstance(exc, OSError) and exc.strerror:
        # Go's wording: "open /path: no such file or directory"; our closed-stream writes carry their own text.
        from .golang.goos import read_file_error

        return f"error: {read_file_error(exc.filename, exc) if exc.filename else exc.strerror}"
    text = str(exc) or exc.__class__.__name__
    return text if text.startswith("error:") else f"error: {text}"


def sentence(exc: BaseException) -> str:
    """:func:`render` without its ``error: `` prefix, for a message that quotes a failure inside a longer line."""
    return render(exc).removeprefix("error: ")


def _python_internal(exc: BaseException) -> str | None:
    """One sentence for the failures whose Python text would mean nothing to a user (``MemoryError``, recursion
    depth, codec errors, the int-digits limit, ``_ssl.c`` lines, ``[Errno N]``), or None."""
    if isinstance(exc, MemoryError):
        return "out of memory: the input is larger than this machine can hold; give a smaller input"
    if isinstance(exc, RecursionError):
        return "the input nests too deeply to process (more than about 1,000 levels)"
    if isinstance(exc, UnicodeError):
        return "the input is not valid UTF-8 text"
    text = str(exc)
    if isinstance(exc, ValueError) and ("integer string conversion" in text or "Exceeds the limit" in text):
        return "a number has more than 4300 digits, more than is read"
    if exc.__class__.__module__ == "ssl" or "_ssl.c" in text:
        import re

        reason = getattr(exc, "reason", None)
        words = str(reason).lower().replace("_", " ") if reason else re.sub(r"^\[SSL: [A-Z_]+\]\s*", "", text)
        return "tls: " + re.sub(r"\s*\(_ssl\.c:\d+\)", "", words)
    if isinstance(exc, OverflowError):
        return "a number is too large to compute with (more than a 64-bit float holds)"
    document = getattr(exc, "doc", None)
    if exc.__class__.__name__ == "JSONDecodeError" and isinstance(document, str):
        from .golang.encoding_json import UNEXPECTED_END, syntax_error  # Go's words, not Python's "Expecting value"

        return f"invalid JSON: {syntax_error(document.encode('utf-8', 'surrogateescape')) or UNEXPECTED_END}"
    if exc.__class__.__module__.split(".")[0] == "yaml":
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
        return f"yaml: line {mark.line + 1}: {problem}" if mark is not None and problem else "yaml: invalid document"
    if isinstance(exc, (AttributeError, TypeError)):
        # a value of another shape than the code expected (a string where an object belongs): never Python's text
        return (
            "the input holds a value of an unexpected type where an object, list or number belongs (-v 1 shows where)"
        )
    if isinstance(exc, KeyError):
        return f"unexpected value {text}"
    if isinstance(exc, OSError) and exc.errno is not None and not exc.filename and exc.strerror:
        from .golang.goos import errno_text

        return errno_text(exc.strerror)  # Go's words have no "[Errno N]"
    return None


def exit_code(exc: BaseException) -> int:
    """The process exit status for ``exc``: always 1, as kubectl does, for every kind of failure."""
    return ExitStatus.ERROR
