"""Go 1.26's text/template/exec.go: the ``state`` that walks a parsed template over decoded JSON.

``walk``, ``walkIfOrWith``, ``walkRange`` (lists, maps in sorted key order, integers; ``break``/``continue``),
``walkTemplate`` (depth limit), ``evalPipeline``, ``evalCommand``, ``idealConstant``, ``evalChainNode``,
``evalVariableNode``, ``evalFieldChain``, ``evalField`` (map keys only: decoded JSON has no methods or struct
fields), ``evalFunction``/``evalCall`` (with ``call`` and the lazily evaluated ``and``/``or``), ``validateType``,
``evalArg``, ``printValue``. Messages are Go's: ``template: output:1:2: executing "output" at <.foo>: map has no
entry for key "foo"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..fmt import GoInt, sprint_value
from ..strconv import go_quote
from . import TemplateError
from .funcs import (
    FUNCS,
    GO_TYPES,
    INVALID,
    Box,
    CallError,
    as_param,
    indirect_interface,
    is_true,
    truth,
    type_name,
)
from .parse import (
    ActionNode,
    BoolNode,
    BranchNode,
    BreakNode,
    ChainNode,
    CommandNode,
    ContinueNode,
    DotNode,
    FieldNode,
    IdentifierNode,
    ListNode,
    NilNode,
    Node,
    NumberNode,
    PipeNode,
    StringNode,
    TemplateNode,
    TextNode,
    VariableNode,
)

__all__ = ["FLUSH_BYTES", "MAX_EXEC_DEPTH", "Output", "State"]

MAX_EXEC_DEPTH = 100000  # maxExecDepth
MISSING: Any = object()  # missingVal: no final value passed down a pipeline
FLUSH_BYTES = 1 << 16


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Output:
    """What a template writes: kept until :data:`FLUSH_BYTES` have gathered, then handed to ``write`` (Go's
    template writes to kubectl's stdout as it runs), so a template that prints without end streams."""

    __slots__ = ("parts", "size", "write")

    def __init__(self, write: Callable[[str], Any] | None) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.write = write

    def append(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.write is not None and self.size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.write is not None and self.parts:
            self.write("".join(self.parts))
            self.parts, self.size = [], 0

    def text(self) -> str:
        return "".join(self.parts)


class State:
    """exec.go's ``state``: the template ``name`` (its ``text`` for positions), its definitions, the output and
    the variable stack."""

    def __init__(
        self, name: str, text: str, templates: dict[str, ListNode], missing_key_error: bool, out: Output
    ) -> None:
        self.name = name
        self.text = text
        self.templates = templates
        self.missing_key_error = missing_key_error
        self.out = out
        self.node: Node | None = None
        self.vars: list[list[Any]] = []
        self.depth = 0

    def errorf(self, message: str) -> TemplateError:
        """state.errorf with ErrorContext's ``NAME:LINE:COL`` and the node being executed."""
        name = self.name
        if self.node is None:
            return TemplateError(f"template: {name}: {message}")
        text = self.text[: self.node.pos]
        newline = text.rfind("\n")
        column = self.node.pos if newline < 0 else self.node.pos - newline - 1
        line = 1 + text.count("\n")
        return TemplateError(f'template: {name}:{line}:{column}: executing "{name}" at <{self.node}>: {message}')

    def var_value(self, name: str) -> Any:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry[1]
        raise self.errorf(f"undefined variable: {name}")

    def set_var(self, name: str, value: Any) -> None:
        for entry in reversed(self.vars):
            if entry[0] == name:
                entry[1] = value
                return
        raise self.errorf(f"undefined variable: {name}")

    # walk
    def walk(self, dot: Any, node: Node) -> None:
        self.node = node
        if isinstance(node, ActionNode):
            value = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.print_value(node, value)
        elif isinstance(node, TextNode):
            self.out.append(node.text)
        elif isinstance(node, ListNode):
            for child in node.nodes:
                self.walk(dot, child)
        elif isinstance(node, BranchNode):
            if node.kind == "range":
                self.walk_range(dot, node)
            else:
                self.walk_if_or_with(dot, node)
        elif isinstance(node, BreakNode):
            raise _Break
        elif isinstance(node, ContinueNode):
            raise _Continue
        elif isinstance(node, TemplateNode):
            self.walk_template(dot, node)
        else:
            raise self.errorf(f"unknown node: {node}")

    def walk_if_or_with(self, dot: Any, node: BranchNode) -> None:
        mark = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            is_truth, ok = is_true(indirect_interface(value))
            if not ok:
                raise self.errorf(f"if/with can't use {sprint_value(value)}")
            if is_truth:
                self.walk(value if node.kind == "with" else dot, node.list)
            elif node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot: Any, node: BranchNode) -> None:
        self.node = node
        outer = len(self.vars)
        try:
            value = indirect_interface(self.eval_pipeline(dot, node.pipe))
            mark = len(self.vars)
            decl = node.pipe.decl

            def one(index: Any, elem: Any) -> None:
                if decl:
                    if node.pipe.is_assign:
                        self.set_var(decl[0].ident[0], index if len(decl) > 1 else elem)
                    else:
                        self.vars[-1][1] = elem
                if len(decl) > 1:
                    if node.pipe.is_assign:
                        self.set_var(decl[1].ident[0], elem)
                    else:
                        self.vars[-2][1] = index
                try:
                    self.walk(elem, node.list)
                except _Continue:
                    pass
                finally:
                    del self.vars[mark:]

            try:
                if isinstance(value, int) and not isinstance(value, bool):
                    if len(decl) > 1:
                        raise self.errorf(f"can't use {value} to iterate over more than one variable")
                    if value > 0:
                        for i in range(value):
                            one(INVALID, type(value)(i))
                        return
                elif isinstance(value, list):
                    if value:
                        for i, item in enumerate(value):
                            one(GoInt(i), Box(item))
                        return
                elif isinstance(value, dict):
                    if value:
                        for key in sorted(value):
                            one(key, Box(value[key]))
                        return
                elif value is not INVALID:
                    raise self.errorf(f"range can't iterate over {sprint_value(value)}")
            except _Break:
                return
            if node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            del self.vars[outer:]

    def walk_template(self, dot: Any, node: TemplateNode) -> None:
        self.node = node
        body = self.templates.get(node.name)
        if body is None:
            raise self.errorf(f"template {go_quote(node.name)} not defined")
        if self.depth >= MAX_EXEC_DEPTH:
            raise self.errorf(f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
        dot = self.eval_pipeline(dot, node.pipe) if node.pipe is not None else INVALID
        saved_vars, saved_depth = self.vars, self.depth
        self.vars, self.depth = [["$", dot]], self.depth + 1
        try:
            self.walk(dot, body)
        finally:
            self.vars, self.depth = saved_vars, saved_depth

    def print_value(self, node: Node, value: Any) -> None:
        self.node = node
        if value is INVALID:
            self.out.append("<no value>")
        elif isinstance(value, Box):
            self.out.append(sprint_value(value.value))
        else:
            self.out.append(sprint_value(value))

    # pipelines and commands
    def eval_pipeline(self, dot: Any, pipe: PipeNode | None) -> Any:
        if pipe is None:
            return INVALID
        self.node = pipe
        value = MISSING
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if isinstance(value, Box):
                value = indirect_interface(value)
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.ident[0], value)
            else:
                self.vars.append([variable.ident[0], value])
        return value

    def not_a_function(self, args: list[Node], final: Any) -> None:
        if len(args) > 1 or final is not MISSING:
            raise self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot: Any, cmd: CommandNode, final: Any) -> Any:
        first = cmd.args[0]
        if isinstance(first, FieldNode):
            self.node = first
            return self.eval_field_chain(dot, dot, first, first.ident, cmd.args, final)
        if isinstance(first, ChainNode):
            return self.eval_chain(dot, first, cmd.args, final)
        if isinstance(first, IdentifierNode):
            return self.eval_function(dot, first, cmd, cmd.args, final)
        if isinstance(first, PipeNode):
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, VariableNode):
            return self.eval_variable(dot, first, cmd.args, final)
        self.node = first
        self.not_a_function(cmd.args, final)
        if isinstance(first, BoolNode):
            return first.value
        if isinstance(first, DotNode):
            return dot
        if isinstance(first, NilNode):
            raise self.errorf("nil is not a command")
        if isinstance(first, NumberNode):
            return self.ideal_constant(first)
        if isinstance(first, StringNode):
            return first.text
        raise self.errorf(f"can't evaluate command {go_quote(str(first))}")

    def ideal_constant(self, node: NumberNode) -> Any:
        """exec.go's idealConstant: complex, then float (by its spelling), then int."""
        self.node = node
        text = node.text
        is_hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
        is_rune_int = text.startswith("'")
        if node.is_complex:
            return node.complex128
        if node.is_float and not is_hex_int and not is_rune_int and any(c in text for c in ".eEpP"):
            return node.float64
        if node.is_int:
            return GoInt(node.int64)
        if node.is_uint:
            raise self.errorf(f"{text} overflows int")
        return INVALID

    def eval_chain(self, dot: Any, chain: ChainNode, args: list[Node], final: Any) -> Any:
        self.node = chain
        if isinstance(chain.node, NilNode):
            raise self.errorf(f"indirection through explicit nil in {chain}")
        pipe = self.eval_arg(dot, None, chain.node)
        return self.eval_field_chain(dot, pipe, chain, chain.fields, args, final)

    def eval_variable(self, dot: Any, variable: VariableNode, args: list[Node], final: Any) -> Any:
        self.node = variable
        value = self.var_value(variable.ident[0])
        if len(variable.ident) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, variable, variable.ident[1:], args, final)

    def eval_field_chain(
        self, dot: Any, receiver: Any, node: Node, ident: list[str], args: list[Node], final: Any
    ) -> Any:
        for name in ident[:-1]:
            receiver = self.eval_field(name, [], MISSING, receiver)
        return self.eval_field(ident[-1], args, final, receiver)

    def eval_field(self, name: str, args: list[Node], final: Any, receiver: Any) -> Any:
        if receiver is INVALID:
            if self.missing_key_error:
                raise self.errorf(f"nil data; no entry for key {go_quote(name)}")
            return INVALID
        typ = type_name(receiver)
        value = receiver.value if isinstance(receiver, Box) else receiver
        if value is None:
            raise self.errorf(f"nil pointer evaluating {typ}.{name}")
        has_args = len(args) > 1 or final is not MISSING
        if isinstance(value, dict):
            if has_args:
                raise self.errorf(f"{name} is not a method but has arguments")
            if name in value:
                return Box(value[name])
            if self.missing_key_error:
                raise self.errorf(f"map has no entry for key {go_quote(name)}")
            return INVALID
        raise self.errorf(f"can't evaluate field {name} in type {typ}")

    def eval_function(self, dot: Any, node: IdentifierNode, cmd: Node, args: list[Node], final: Any) -> Any:
        self.node = node
        name = node.name
        params, variadic, function = FUNCS[name]
        call_args = args[1:]
        num_in = len(call_args) + (0 if final is MISSING else 1)
        if variadic is not None:
            if num_in < len(params):
                raise self.errorf(f"wrong number of args for {name}: want at least {len(params)} got {len(call_args)}")
        elif num_in != len(params):
            raise self.errorf(f"wrong number of args for {name}: want {len(params)} got {num_in}")
        if name in ("and", "or"):
            value: Any = INVALID
            for arg in call_args:
                value = self.eval_arg(dot, "value", arg)
                if truth(value) == (name == "or"):
                    return value
            if final is not MISSING:
                value = self.validate_type(final, "value")
            return value
        argv = []
        for i, arg in enumerate(call_args):
            kind = params[i] if i < len(params) else variadic
            argv.append(self.eval_arg(dot, kind, arg))
        if final is not MISSING:
            kind = params[len(call_args)] if len(call_args) < len(params) else variadic
            argv.append(self.validate_type(final, kind))
        if function is None:  # call: the callee named as the template spells it; templates on JSON hold no functions
            self.node = cmd
            if call_args:
                callee = str(call_args[0])
            else:
                callee = final if isinstance(final, str) else f"<{type_name(final)} Value>"
            target = indirect_interface(argv[0]) if argv else INVALID
            if target is INVALID or target is None:
                raise self.errorf("error calling call: call of nil")
            raise self.errorf(f"error calling call: non-function {callee} of type {type_name(target)}")
        plain = [as_param(arg, params[i] if i < len(params) else variadic) for i, arg in enumerate(argv)]
        try:
            return function(*plain)
        except CallError as exc:
            self.node = cmd
            raise self.errorf(f"error calling {name}: {exc}") from None

    def validate_type(self, value: Any, kind: str | None) -> Any:
        if value is INVALID:
            if kind is None or kind in ("value", "any"):
                return INVALID
            raise self.errorf(f"invalid value; expected {GO_TYPES[kind]}")
        if kind == "string":
            inner = value.value if isinstance(value, Box) else value
            if isinstance(inner, str):
                return inner
            raise self.errorf(f"wrong type for value; expected string; got {type_name(value)}")
        return value

    def eval_arg(self, dot: Any, kind: str | None, node: Node) -> Any:
        self.node = node
        if isinstance(node, DotNode):
            return self.validate_type(dot, kind)
        if isinstance(node, NilNode):
            if kind in ("value", "any"):
                return INVALID
            raise self.errorf(f"cannot assign nil to {GO_TYPES.get(kind or '', kind)}")
        if isinstance(node, FieldNode):
            return self.validate_type(self.eval_field_chain(dot, dot, node, node.ident, [node], MISSING), kind)
        if isinstance(node, VariableNode):
            return self.validate_type(self.eval_variable(dot, node, [], MISSING), kind)
        if isinstance(node, PipeNode):
            return self.validate_type(self.eval_pipeline(dot, node), kind)
        if isinstance(node, IdentifierNode):
            return self.validate_type(self.eval_function(dot, node, node, [node], MISSING), kind)
        if isinstance(node, ChainNode):
            return self.validate_type(self.eval_chain(dot, node, [], MISSING), kind)
        if kind == "string":
            if isinstance(node, StringNode):
                return node.text
            raise self.errorf(f"expected string; found {node}")
        if isinstance(node, BoolNode):
            return node.value
        if isinstance(node, NumberNode):
            return self.ideal_constant(node)
        if isinstance(node, StringNode):
            return node.text
        raise self.errorf(f"can't handle {node} for arg of type {GO_TYPES.get(kind or '', kind)}")
