"""protocol.exactjson: exact integers of any size, orjson's bytes, and a
document that breaks a limit told apart from one that is not JSON."""

from __future__ import annotations

import json
import math
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.exactjson import (
    DEFAULT_MAX_DIGITS,
    MAX_DEPTH,
    NotJSON,
    NumberOutOfRange,
    NumberTooLong,
    TooDeep,
    describe_int,
    digits_of,
    digits_to_int,
    dumps,
    int_to_digits,
    loads,
)


def stdlib(value: object) -> bytes:
    """The original's compact sorted form, by the stdlib (exact for ints)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


ints = st.one_of(
    st.integers(),
    st.integers(min_value=2**62, max_value=2**90),
    st.integers(min_value=-(2**90), max_value=-(2**62)),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**18, 10**19]),
)
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
leaves = st.one_of(st.none(), st.booleans(), ints, text, st.floats(allow_nan=False, allow_infinity=False))
documents = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_round_trip_is_exact(value: object) -> None:
    data = dumps(value)
    assert loads(data, max_digits=None) == value
    assert dumps(loads(data, max_digits=None)) == data


@settings(max_examples=300, deadline=None)
@given(documents)
def test_bytes_are_orjsons_when_orjson_can_and_the_stdlibs_for_big_ints(value: object) -> None:
    try:
        expected = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an int beyond 64 bits: no float inside may differ in form, so compare floats apart
        expected = None
    if expected is not None:
        assert dumps(value) == expected
    if not _has_float(value):
        assert dumps(value) == stdlib(value)


def _has_float(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


def test_the_issues_answer_is_kept_exactly() -> None:
    assert orjson.loads(b"[99999999999999999999]") == [1e20]  # the fast path alone loses it
    value = loads(b"[99999999999999999999]")
    assert value == [99999999999999999999] and type(value[0]) is int
    assert dumps(value) == b"[99999999999999999999]"


@pytest.mark.parametrize("n", [2**63 - 1, 2**63, 2**64 - 1, 2**64, 6218256728297497601, 16 * 10**24, -(2**63) - 1])
def test_integers_at_and_past_64_bits(n: int) -> None:
    data = b'{"coins":%d}' % n
    assert loads(data) == {"coins": n} and dumps({"coins": n}) == data


def test_integers_past_a_double_and_past_pythons_digit_limit() -> None:
    numbers = {digits: int(("31415926535897932384" * 1001)[:digits]) if digits <= 4000 else
               digits_to_int(("31415926535897932384" * 1001)[:digits]) for digits in (400, 4300, 4301, 20000)}
    written = {}
    for digits, n in numbers.items():
        data = int_to_digits(n).encode()
        assert len(data) == digits
        assert loads(b"[" + data + b"]", max_digits=None) == [n]
        assert dumps([n]) == b"[" + data + b"]" and dumps([-n]) == b"[-" + data + b"]"
        written[digits] = data
    assert sys.get_int_max_str_digits() == 4300  # never lifted process-wide
    sys.set_int_max_str_digits(0)  # the reference conversions, for this test only
    try:
        for digits, n in numbers.items():
            assert written[digits] == str(n).encode() == ("31415926535897932384" * 1001)[:digits].encode()
    finally:
        sys.set_int_max_str_digits(4300)


def test_digits_of_is_an_upper_bound_within_one() -> None:
    for n in [0, 1, 9, 10, 99, 100, 2**63, 10**50 - 1, 10**50, 3**1000]:
        assert len(str(n)) <= digits_of(n) <= len(str(n)) + 1
    assert describe_int(-(10**50)) == "a negative integer of about 51 digits"
    assert describe_int(12345) == "12345"


def test_a_number_too_long_is_a_limit_not_bad_json() -> None:
    data = b"[" + b"9" * (DEFAULT_MAX_DIGITS + 1) + b"]"
    with pytest.raises(NumberTooLong) as caught:
        loads(data)
    assert caught.value.problem == f"has a number longer than {DEFAULT_MAX_DIGITS} digits"
    assert loads(b"[" + b"9" * DEFAULT_MAX_DIGITS + b"]") == [10**DEFAULT_MAX_DIGITS - 1]
    with pytest.raises(NumberTooLong):
        loads(b"[-" + b"1" * 30 + b"]", max_digits=29)
    assert loads(b"[" + b"1" * 30 + b"]", max_digits=30) == [int("1" * 30)]


def test_nesting_beyond_the_limit_is_a_limit_not_bad_json() -> None:
    deep = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert dumps(loads(deep)) == deep  # orjson writes at most 254 levels: the exact encoder writes them
    with pytest.raises(TooDeep) as caught:
        loads(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert caught.value.problem == f"nests deeper than {MAX_DEPTH} levels"
    # Deep and with a long integer: the stdlib's recursion is not enough; ours is not recursive.
    deep_big = b"[" * MAX_DEPTH + b"99999999999999999999" + b"]" * MAX_DEPTH
    assert dumps(loads(deep_big)) == deep_big
    with pytest.raises(TooDeep):
        loads(b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1))
    assert loads(b'{"a":' * MAX_DEPTH + b"12345678901234567890123" + b"}" * MAX_DEPTH) is not None


def test_a_float_beyond_a_double_is_a_limit() -> None:
    for data in (b"[1e400]", b"[-1.5e309]"):
        with pytest.raises(NumberOutOfRange):
            loads(data)
    assert loads(b"[1e-400]") == [0.0]


@pytest.mark.parametrize(
    "data",
    [b"", b"[1,", b"[1,]", b'{"a":1,}', b"[01]", b"[1.]", b"[.5]", b"[+1]", b"[NaN]", b"[Infinity]", b"[1] 2",
     b'["\\ud800"]', b'["a\x01"]', b"\xef\xbb\xbf[1]", b"\xff", b"[tru]", b'{"a" 1}', b"{1:2}", b"[" + b"9" * 400 + b",",
     b"[" + b"9" * 30 + b" x]"],
)
def test_what_orjson_refuses_is_not_json_on_both_paths(data: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(data)
    with pytest.raises(NotJSON):
        loads(data)


def test_str_input_and_whitespace() -> None:
    assert loads(' \t[ 1 , {"b" : [ ] } ]\r\n') == [1, {"b": []}]
    assert loads(" [ 12345678901234567890123 ] \n") == [12345678901234567890123]
    with pytest.raises(NotJSON):
        loads('["\ud800"]')


def test_floats_keep_orjsons_form_next_to_big_ints() -> None:
    value = [1e20, 0.1, -0.0, 2**70]
    assert dumps(value) == orjson.dumps([1e20, 0.1, -0.0]).rstrip(b"]") + b",%d]" % 2**70
    assert loads(dumps(value)) == value and math.copysign(1, loads(dumps(value))[2]) == -1


def test_what_orjson_cannot_encode_stays_a_type_error() -> None:
    with pytest.raises(TypeError):
        dumps({"a": [2**70, {1, 2}]})
    with pytest.raises(TypeError):
        dumps({1: 2**70})
