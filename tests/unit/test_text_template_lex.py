"""golang/text_template/lex.py against Go 1.26's text/template/parse/lex_test.go (lexTests), item for item.

The table is Go's, with its item names (``left delim``, ``charconst``, ``raw string`` ...) mapped to the lexer's
spelling of them. Go's test lexer emits comments (``emitComment``); text/template's parser, as kubectl runs it, does
not, so the comment items are left out of the expected lists.
"""

from __future__ import annotations

import pytest

from kubectl_instancetype.golang.text_template.lex import lex

# lex_test.go's itemName -> the lexer's item types
_OURS = {
    "left delim": "{{",
    "right delim": "}}",
    "pipe": "|",
    "raw string": "rawstring",
    "charconst": "char",
    "char": "char_item",
    ".": "dot",
}

L, R, EOF, SP, DOT = ("left delim", "{{"), ("right delim", "}}"), ("EOF", ""), ("space", " "), (".", ".")
LPAR, RPAR, PIPE = ("(", "("), (")", ")"), ("pipe", "|")
RAW = "`" + r"abc\n\t\" " + "`"
RAW_NL = "`now is{{\n}}the time`"

LEX_TESTS = [
    ("empty", "", [EOF]),
    ("spaces", " \t\n", [("text", " \t\n"), EOF]),
    ("text", "now is the time", [("text", "now is the time"), EOF]),
    ("text with comment", "hello-{{/* this is a comment */}}-world", [("text", "hello-"), ("text", "-world"), EOF]),
    ("punctuation", "{{,@% }}", [L, ("char", ","), ("char", "@"), ("char", "%"), SP, R, EOF]),
    ("parens", "{{((3))}}", [L, LPAR, LPAR, ("number", "3"), RPAR, RPAR, R, EOF]),
    ("empty action", "{{}}", [L, R, EOF]),
    ("for", "{{for}}", [L, ("identifier", "for"), R, EOF]),
    ("block", '{{block "foo" .}}', [L, ("block", "block"), SP, ("string", '"foo"'), SP, DOT, R, EOF]),
    ("quote", r'{{"abc \n\t\" "}}', [L, ("string", r'"abc \n\t\" "'), R, EOF]),
    ("raw quote", "{{" + RAW + "}}", [L, ("raw string", RAW), R, EOF]),
    ("raw quote with newline", "{{" + RAW_NL + "}}", [L, ("raw string", RAW_NL), R, EOF]),
    (
        "numbers",
        "{{1 02 0x14 0X14 -7.2i 1e3 1E3 +1.2e-4 4.2i 1+2i 1_2 0x1.e_fp4 0X1.E_FP4}}",
        [L]
        + [
            item
            for text in ("1", "02", "0x14", "0X14", "-7.2i", "1e3", "1E3", "+1.2e-4", "4.2i")
            for item in (("number", text), SP)
        ]
        + [("complex", "1+2i"), SP, ("number", "1_2"), SP, ("number", "0x1.e_fp4"), SP, ("number", "0X1.E_FP4")]
        + [R, EOF],
    ),
    (
        "characters",
        r"{{'a' '\n' '\'' '\\' '\u00FF' '\xFF' '本'}}",
        [L]
        + [("charconst", r"'a'"), SP, ("charconst", r"'\n'"), SP, ("charconst", r"'\''"), SP]
        + [("charconst", r"'\\'"), SP, ("charconst", r"'\u00FF'"), SP, ("charconst", r"'\xFF'"), SP]
        + [("charconst", "'本'"), R, EOF],
    ),
    ("bools", "{{true false}}", [L, ("bool", "true"), SP, ("bool", "false"), R, EOF]),
    ("dot", "{{.}}", [L, DOT, R, EOF]),
    ("nil", "{{nil}}", [L, ("nil", "nil"), R, EOF]),
    (
        "dots",
        "{{.x . .2 .x.y.z}}",
        [L, ("field", ".x"), SP, DOT, SP, ("number", ".2"), SP, ("field", ".x"), ("field", ".y"), ("field", ".z")]
        + [R, EOF],
    ),
    (
        "keywords",
        "{{range if else end with}}",
        [L, ("range", "range"), SP, ("if", "if"), SP, ("else", "else"), SP, ("end", "end"), SP, ("with", "with")]
        + [R, EOF],
    ),
    (
        "variables",
        "{{$c := printf $ $hello $23 $ $var.Field .Method}}",
        [L, ("variable", "$c"), SP, (":=", ":="), SP, ("identifier", "printf"), SP, ("variable", "$"), SP]
        + [("variable", "$hello"), SP, ("variable", "$23"), SP, ("variable", "$"), SP, ("variable", "$var")]
        + [("field", ".Field"), SP, ("field", ".Method"), R, EOF],
    ),
    ("variable invocation", "{{$x 23}}", [L, ("variable", "$x"), SP, ("number", "23"), R, EOF]),
    (
        "pipeline",
        'intro {{echo hi 1.2 |noargs|args 1 "hi"}} outro',
        [("text", "intro "), L, ("identifier", "echo"), SP, ("identifier", "hi"), SP, ("number", "1.2"), SP]
        + [PIPE, ("identifier", "noargs"), PIPE, ("identifier", "args"), SP, ("number", "1"), SP]
        + [("string", '"hi"'), R, ("text", " outro"), EOF],
    ),
    ("declaration", "{{$v := 3}}", [L, ("variable", "$v"), SP, (":=", ":="), SP, ("number", "3"), R, EOF]),
    (
        "2 declarations",
        "{{$v , $w := 3}}",
        [L, ("variable", "$v"), SP, ("char", ","), SP, ("variable", "$w"), SP, (":=", ":="), SP, ("number", "3")]
        + [R, EOF],
    ),
    ("field of parenthesized expression", "{{(.X).Y}}", [L, LPAR, ("field", ".X"), RPAR, ("field", ".Y"), R, EOF]),
    (
        "trimming spaces before and after",
        "hello- {{- 3 -}} -world",
        [("text", "hello-"), L, ("number", "3"), R, ("text", "-world"), EOF],
    ),
    (
        "trimming spaces before and after comment",
        "hello- {{- /* hello */ -}} -world",
        [("text", "hello-"), ("text", "-world"), EOF],
    ),
    # errors
    ("badchar", "#{{\x01}}", [("text", "#"), L, ("error", "unrecognized character in action: U+0001")]),
    ("unclosed action", "{{", [L, ("error", "unclosed action")]),
    ("EOF in action", "{{range", [L, ("range", "range"), ("error", "unclosed action")]),
    ("unclosed quote", '{{"\n"}}', [L, ("error", "unterminated quoted string")]),
    ("unclosed raw quote", "{{`xx}}", [L, ("error", "unterminated raw quoted string")]),
    ("unclosed char constant", "{{'\n}}", [L, ("error", "unterminated character constant")]),
    ("bad number", "{{3k}}", [L, ("error", 'bad number syntax: "3k"')]),
    ("unclosed paren", "{{(3}}", [L, LPAR, ("number", "3"), ("error", "unclosed left paren")]),
    ("extra right paren", "{{3)}}", [L, ("number", "3"), ("error", "unexpected right paren")]),
    # fixed bugs
    ("long pipeline deadlock", "{{|||||}}", [L, PIPE, PIPE, PIPE, PIPE, PIPE, R, EOF]),
    ("text with bad comment", "hello-{{/*/}}-world", [("text", "hello-"), ("error", "unclosed comment")]),
    (
        "text with comment close separated from delim",
        "hello-{{/* */ }}-world",
        [("text", "hello-"), ("error", "comment ends before closing delimiter")],
    ),
    ("unmatched right delimiter", "hello-{.}}-world", [("text", "hello-{.}}-world"), EOF]),
]


@pytest.mark.parametrize(("name", "text", "items"), LEX_TESTS, ids=[case[0] for case in LEX_TESTS])
def test_lex_matches_go(name: str, text: str, items: list[tuple[str, str]]) -> None:
    expected = [(_OURS.get(typ, typ), val) for typ, val in items]
    assert [(item.typ, item.val) for item in lex(text)] == expected
