"""Compound parameters and pflag-style flag values, with virtctl's / Go's exact messages.

Every parser is tested through two tables: what a call returns, and what a failing call raises (type and text).
"""

from __future__ import annotations

from functools import partial

import pytest

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.instancetype.params import (
    FLAG_BOOL,
    FLAG_INT64,
    FLAG_STRING,
    FLAG_STRING_ARRAY,
    FLAG_STRING_SLICE,
    FLAG_UINT32,
    PARAM_LIST,
    PARAM_QUANTITY,
    PARAM_UINT,
    RANDOM_ALPHABET,
    CSVError,
    FlagSpec,
    GoNumError,
    Param,
    ParamError,
    ParamNotFound,
    accumulate,
    flag_error,
    get_param,
    go_parse_bool,
    go_parse_int,
    go_parse_uint,
    go_quote,
    go_read_csv_record,
    parse_params,
    random_string,
    split_params,
    split_prefixed_name,
    supported,
)

VOLUME = (Param("name"), Param("src"), Param("bootorder", PARAM_UINT))
TYPED = (Param("size", PARAM_QUANTITY), Param("headers", PARAM_LIST), Param("bootorder", PARAM_UINT), Param("type"))
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
CPU = FlagSpec("cpu", FLAG_UINT32, 0, "")
GRACE = FlagSpec("termination-grace-period", FLAG_INT64, 180, "")
SSH_KEY = FlagSpec("ssh-key", FLAG_STRING_SLICE, (), "")
VOLUME_PVC = FlagSpec("volume-pvc", FLAG_STRING_ARRAY, (), "")


def container_disk(text):
    return parse_params("volume-containerdisk", text, VOLUME)


def volume_import(text):
    return parse_params("volume-import", text, TYPED)


RESULTS = [
    (partial(split_params, "src:a"), {"src": "a"}),
    (partial(split_params, "src:quay.io/x:tag,name:n"), {"src": "quay.io/x:tag", "name": "n"}),
    (partial(split_params, "url:http://h:8080/p"), {"url": "http://h:8080/p"}),
    (partial(split_params, "name:"), {"name": ""}),
    (partial(split_params, ":v"), {"": "v"}),
    (partial(split_params, "name:a,name:b"), {"name": "b"}),
    (partial(get_param, "type", "size:1Gi,type:blank"), "blank"),
    (partial(get_param, "type", "type:"), ""),
    (partial(container_disk, "src:a"), {"src": "a"}),
    (partial(container_disk, "name:n,src:s,bootorder:3"), {"name": "n", "src": "s", "bootorder": 3}),
    (partial(container_disk, "bootorder:0"), {"bootorder": 0}),
    (partial(container_disk, "bootorder:4294967295"), {"bootorder": 4294967295}),
    (
        partial(volume_import, "size:1024Mi,headers:A: 1;B: 2,bootorder:7,type:http"),
        {"size": "1Gi", "headers": ["A: 1", "B: 2"], "bootorder": 7, "type": "http"},
    ),
    (partial(volume_import, "headers:"), {"headers": [""]}),
    (partial(split_prefixed_name, "name"), ("", "name")),
    (partial(split_prefixed_name, "ns/name"), ("ns", "name")),
    (partial(split_prefixed_name, "/name"), ("", "name")),
    (partial(split_prefixed_name, "VirtualMachineInstancetype/u1.small"), ("VirtualMachineInstancetype", "u1.small")),
    (partial(supported, VOLUME), "name:string,src:string,bootorder:uint"),
    (partial(supported, TYPED), "size:resource.Quantity,headers:[]string,bootorder:uint,type:string"),
    *[
        (partial(go_quote, text), quoted)
        for text, quoted in [
            ("abc", '"abc"'),
            ('a"b', r'"a\"b"'),
            ("a\nb", r'"a\nb"'),
            ("tab\t", r'"tab\t"'),
            ("é", '"é"'),
            ("\x01", r'"\x01"'),
            ("\u00a0", r'"\u00a0"'),
            ("back\\slash", r'"back\\slash"'),
        ]
    ],
    *[
        (partial(go_parse_uint, text, base=base, bits=bits), value)
        for text, base, bits, value in [
            ("0", 0, 64, 0),
            ("10", 0, 64, 10),
            ("0x1F", 0, 64, 31),
            ("0o17", 0, 64, 15),
            ("017", 0, 64, 15),
            ("0b101", 0, 64, 5),
            ("1_000", 0, 64, 1000),
            ("0x_1f", 0, 64, 31),
            ("4294967295", 0, 32, 4294967295),
            ("18446744073709551615", 0, 64, 18446744073709551615),
            ("42", 10, 32, 42),
        ]
    ],
    *[
        (partial(go_parse_int, text), value)
        for text, value in [
            ("0", 0),
            ("-5", -5),
            ("+7", 7),
            ("0x10", 16),
            ("-0b11", -3),
            ("9223372036854775807", 2**63 - 1),
            ("-9223372036854775808", -(2**63)),
        ]
    ],
    *[
        (partial(go_parse_bool, text), value)
        for text, value in [("true", True), ("T", True), ("1", True), ("False", False), ("0", False), ("f", False)]
    ],
    *[
        (partial(go_read_csv_record, text), fields)
        for text, fields in [
            ("", []),
            ("a", ["a"]),
            ("a,b", ["a", "b"]),
            ("a,", ["a", ""]),
            ('"a,b",c', ["a,b", "c"]),
            ('"say ""hi"""', ['say "hi"']),
            ('"multi\nline",x', ["multi\nline", "x"]),
            ("first\nsecond", ["first"]),
            ("\n\nkey", ["key"]),
            ("ssh-ed25519 AAAA user@host", ["ssh-ed25519 AAAA user@host"]),
        ]
    ],
    (partial(FlagSpec("name", FLAG_STRING, "", "").parse, "x"), "x"),
    (partial(FlagSpec("infer", FLAG_BOOL, True, "").parse, "false"), False),
    (partial(GRACE.parse, "0x10"), 16),
    (partial(CPU.parse, "4"), 4),
    (partial(VOLUME_PVC.parse, "a,b"), ["a,b"]),
    (partial(SSH_KEY.parse, "a,b"), ["a", "b"]),
    (partial(accumulate, SSH_KEY, ["a,b", "c"]), ("a", "b", "c")),
    (partial(accumulate, VOLUME_PVC, ["a,b", "c"]), ("a,b", "c")),
    (partial(accumulate, FlagSpec("name", FLAG_STRING, "", ""), ["a", "b"]), "b"),
    (partial(accumulate, GRACE, []), 180),
    (partial(flag_error, "memory", "boom"), UsageError('failed to parse "--memory" flag: boom')),
]


def _describe(call: partial) -> str:
    return f"{call.func.__name__}{call.args!r}"[:80]


@pytest.mark.parametrize(("call", "expected"), RESULTS, ids=[_describe(call) for call, _ in RESULTS])
def test_results(call, expected):
    result = call()
    if isinstance(expected, UsageError):
        assert isinstance(result, UsageError) and result.message == expected.message
    else:
        assert result == expected


def _pflag(flag: str, raw: str, cause: str) -> str:
    return f'invalid argument {go_quote(raw)} for "--{flag}" flag: {cause}'


ERRORS = [
    (partial(split_params, ""), ParamError, "params may not be empty"),
    (partial(split_params, "test=test"), ParamError, "params need to have at least one colon: test=test"),
    (partial(split_params, "src:a,"), ParamError, "params need to have at least one colon: "),
    (partial(split_params, "src:a,name"), ParamError, "params need to have at least one colon: name"),
    (partial(get_param, "type", "size:1Gi"), ParamNotFound, "type must be specified"),
    (partial(split_prefixed_name, ""), ParamError, "name cannot be empty"),
    (partial(split_prefixed_name, "ns/"), ParamError, "name cannot be empty"),
    (partial(split_prefixed_name, "a/b/c"), ParamError, "invalid count 2 of slashes in prefix/name"),
    (partial(split_prefixed_name, "///"), ParamError, "invalid count 3 of slashes in prefix/name"),
    *[
        (partial(container_disk, text), UsageError, f'failed to parse "--volume-containerdisk" flag: {message}')
        for text, message in [
            ("", "params may not be empty"),
            ("test=test", "params need to have at least one colon: test=test"),
            ("test:test", "unknown param(s): test:test"),
            ("src:a,x:1,y:2", "unknown param(s): x:1,y:2"),
            ("bootorder:-1", 'failed to parse param "bootorder": strconv.ParseUint: parsing "-1": invalid syntax'),
            ("bootorder:10Gu", 'failed to parse param "bootorder": strconv.ParseUint: parsing "10Gu": invalid syntax'),
            ("bootorder:", 'failed to parse param "bootorder": strconv.ParseUint: parsing "": invalid syntax'),
            ("bootorder:0x1", 'failed to parse param "bootorder": strconv.ParseUint: parsing "0x1": invalid syntax'),
            ("bootorder:1_0", 'failed to parse param "bootorder": strconv.ParseUint: parsing "1_0": invalid syntax'),
            (
                "bootorder:4294967296",
                'failed to parse param "bootorder": strconv.ParseUint: parsing "4294967296": value out of range',
            ),
            # typed parameters fail before unknown ones are reported
            (
                "bootorder:-1,foo:bar",
                'failed to parse param "bootorder": strconv.ParseUint: parsing "-1": invalid syntax',
            ),
        ]
    ],
    *[
        (partial(volume_import, text), UsageError, f'failed to parse "--volume-import" flag: {message}')
        for text, message in [
            ("size:10Gu", 'failed to parse param "size": unable to parse quantity\'s suffix'),
            ("size:", f'failed to parse param "size": {QUANTITY_FORMAT}'),
            # typed parameters are checked in declaration order: size before bootorder
            ("bootorder:x,size:1x", f'failed to parse param "size": {QUANTITY_FORMAT}'),
        ]
    ],
    *[
        (partial(go_parse_uint, text, base=base, bits=bits), GoNumError, f"strconv.ParseUint: parsing {message}")
        for text, base, bits, message in [
            ("", 0, 64, '"": invalid syntax'),
            ("-1", 0, 32, '"-1": invalid syntax'),
            ("08", 0, 64, '"08": invalid syntax'),
            ("0x", 0, 64, '"0x": invalid syntax'),
            ("1__0", 0, 64, '"1__0": invalid syntax'),
            ("_1", 0, 64, '"_1": invalid syntax'),
            ("1_000", 10, 64, '"1_000": invalid syntax'),
            ("4294967296", 0, 32, '"4294967296": value out of range'),
            ("99999999999999999999x", 0, 64, '"99999999999999999999x": value out of range'),
        ]
    ],
    *[
        (partial(go_parse_int, text), GoNumError, f"strconv.ParseInt: parsing {message}")
        for text, message in [
            ("abc", '"abc": invalid syntax'),
            ("-", '"-": invalid syntax'),
            ("1.5", '"1.5": invalid syntax'),
            ("9223372036854775808", '"9223372036854775808": value out of range'),
            ("-99999999999999999999", '"-99999999999999999999": value out of range'),
        ]
    ],
    *[
        (partial(go_parse_bool, text), GoNumError, f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax")
        for text in ("yes", "", "TRUE ", "tRue")
    ],
    *[
        (partial(go_read_csv_record, text), CSVError, message)
        for text, message in [
            ('a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'),
            ('a,"b', 'parse error on line 1, column 5: extraneous or missing " in quoted-field'),
            ('"a"b', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'),
            ('x,"a"b', 'parse error on line 1, column 5: extraneous or missing " in quoted-field'),
            ('é"b', 'parse error on line 1, column 3: bare " in non-quoted-field'),
            ('"a\nb"c', 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field'),
            ("\n", "EOF"),
        ]
    ],
    (partial(CPU.parse, "-2"), UsageError, _pflag("cpu", "-2", 'strconv.ParseUint: parsing "-2": invalid syntax')),
    (
        partial(GRACE.parse, "1.5"),
        UsageError,
        _pflag("termination-grace-period", "1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
    ),
    (
        partial(FlagSpec("namespaced", FLAG_BOOL, False, "").parse, "yes"),
        UsageError,
        _pflag("namespaced", "yes", 'strconv.ParseBool: parsing "yes": invalid syntax'),
    ),
    (
        partial(SSH_KEY.parse, 'a"b'),
        UsageError,
        _pflag("ssh-key", 'a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'),
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), ERRORS, ids=[_describe(call) for call, _, _ in ERRORS])
def test_errors(call, error, message):
    with pytest.raises(error) as caught:
        call()
    text = caught.value.message if isinstance(caught.value, UsageError) else str(caught.value)
    assert text == message


def test_param_not_found_names_the_param():
    with pytest.raises(ParamNotFound) as caught:
        get_param("size", "type:blank")
    assert caught.value.name == "size"


def test_random_string():
    generated = random_string(5)
    assert len(generated) == 5 and set(generated) <= set(RANDOM_ALPHABET)
    assert RANDOM_ALPHABET == "bcdfghjklmnpqrstvwxz2456789"


def test_flag_spec_properties():
    boolean = FlagSpec("ga-manage-ssh", FLAG_BOOL, False, "help")
    assert (VOLUME_PVC.field, VOLUME_PVC.repeatable, VOLUME_PVC.takes_value, VOLUME_PVC.value_name) == (
        "volume_pvc",
        True,
        True,
        "stringArray",
    )
    assert (boolean.repeatable, boolean.takes_value, boolean.value_name) == (False, False, "")
    assert (SSH_KEY.value_name, GRACE.value_name, CPU.value_name) == ("strings", "int", "uint32")


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        (FlagSpec("run-strategy", FLAG_STRING, "Always", ""), '(default "Always")'),
        (FlagSpec("name", FLAG_STRING, "", ""), ""),
        (GRACE, "(default 180)"),
        (CPU, ""),
        (FlagSpec("infer", FLAG_BOOL, True, ""), "(default true)"),
        (FlagSpec("ga", FLAG_BOOL, False, ""), ""),
        (VOLUME_PVC, ""),
        (FlagSpec("keys", FLAG_STRING_SLICE, ("a", "b"), ""), "(default [a,b])"),
    ],
)
def test_default_text(spec, text):
    assert spec.default_text == text


def test_options_from_flags():
    from kubectl_instancetype.instancetype.createvm import VMOptions

    options = VMOptions.from_flags({"volume-pvc": ["src:a"], "name": "x"}, namespace="ns")
    assert (options.volume_pvc, options.name, options.namespace) == (("src:a",), "x", "ns")
    assert options.changed == frozenset({"volume-pvc", "name"})
    with pytest.raises(ValueError, match="unknown flag 'nope' for VMOptions"):
        VMOptions.from_flags({"nope": 1})
