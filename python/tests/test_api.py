"""The json_repair-compatible functions' conventions, the untyped ``parse``
and ``DecodeError``'s attributes."""

from __future__ import annotations

import io
import json
import math
import pickle

import pytest

import serde_llm
from serde_llm import DecodeError, NoJsonError, TruncatedError


MESSY = "Sure! Here it is:\n```json\n{name: 'Zoë', \"tags\": ['a', 'b',], \"n\": 1e16, // note\n \"ok\": True}\n```\nBye."
VALUE = {"name": "Zoë", "tags": ["a", "b"], "n": 1e16, "ok": True}


def test_repair_json_writes_what_json_dumps_writes():
    assert serde_llm.repair_json(MESSY) == json.dumps(VALUE)
    assert serde_llm.repair_json(MESSY, ensure_ascii=False) == json.dumps(VALUE, ensure_ascii=False)
    for indent in (0, 2, 4, "\t", None):
        assert serde_llm.repair_json(MESSY, indent=indent) == json.dumps(VALUE, indent=indent)
    nested = '{"a": [1, {"b": [], "c": {}}, [[]]], "d": "x\\u0001\\n\\"\\\\/\\ud83d\\ude00"}'
    for indent in (None, 2):
        for ascii_ in (True, False):
            assert serde_llm.repair_json(nested, ensure_ascii=ascii_, indent=indent) == json.dumps(
                json.loads(nested), ensure_ascii=ascii_, indent=indent
            )


@pytest.mark.parametrize(
    "number",
    ["0", "-0", "1", "-17", "12345678901234567890123", "0.0", "-0.0", "1.5", "1e16", "1e15",
     "123456789012345678.0", "0.0001", "0.00001", "1e-7", "2.5e-300", "1.7976931348623157e308",
     "5e-324", "0.1", "100.0", "3.141592653589793", "1e22", "-1.25e-5", "NaN", "Infinity", "-Infinity"],
)
def test_numbers_read_and_write_as_python_does(number):
    text = f"[{number}]"
    want = json.loads(text)
    got = serde_llm.loads(text)
    assert repr(got) == repr(want)
    assert serde_llm.repair_json(text) == json.dumps(want)
    # The same number on the tolerant path (a trailing comma to repair),
    # but where the library reads a number as serde_json does: `-0` is
    # -0.0, an integer beyond 64 bits a float (see the README's limits).
    if number not in ("-0", "12345678901234567890123"):
        assert repr(serde_llm.loads(f"[{number},]")) == repr(want)


def test_big_integers_stay_exact():
    assert serde_llm.loads('{"id": 123456789012345678901234567890}') == {"id": 123456789012345678901234567890}
    assert serde_llm.loads("[18446744073709551615,]") == [18446744073709551615]
    assert serde_llm.loads("[-9223372036854775808,]") == [-9223372036854775808]


def test_no_json_is_the_empty_string():
    for text in ["", "   ", "no json here, sorry", "<think>hmm</think>"]:
        assert serde_llm.repair_json(text) == ""
        assert serde_llm.loads(text) == ""
        assert serde_llm.repair_json(text, return_objects=True) == ""
        assert serde_llm.loads(text, logging=True) == ("", [])
    # json_repair returns "" for a value that is the empty string, too.
    assert serde_llm.repair_json('""') == ""


def test_return_objects_and_loads():
    assert serde_llm.repair_json(MESSY, return_objects=True) == VALUE
    assert serde_llm.loads(MESSY) == VALUE
    assert serde_llm.loads(MESSY, skip_json_loads=True) == VALUE
    assert list(serde_llm.loads('{"z": 1, "a": 2, "m": 3}')) == ["z", "a", "m"]
    assert list(serde_llm.loads("{z: 1, a: 2, m: 3,}")) == ["z", "a", "m"]
    # A key written twice: the last value, in the first one's place, as a dict does.
    assert serde_llm.loads('{"a": 1, "b": 2, "a": 3}') == {"a": 3, "b": 2}
    assert serde_llm.loads("{a: 1, b: 2, a: 3,}") == {"a": 3, "b": 2}


def test_logging_lists_the_repairs():
    value, log = serde_llm.loads("{a: 1,}", logging=True)
    assert value == {"a": 1}
    assert [e["text"] for e in log] == ["a key without quotes", "a trailing comma"]
    assert all(set(e) == {"text", "context"} for e in log)
    assert serde_llm.loads('{"a": 1}', logging=True) == ({"a": 1}, [])
    value, log = serde_llm.repair_json("[1, 2", logging=True)
    assert value == [1, 2] and log


def test_load_and_from_file(tmp_path):
    assert serde_llm.load(io.StringIO(MESSY)) == VALUE
    assert serde_llm.load(io.BytesIO(MESSY.encode())) == VALUE
    path = tmp_path / "reply.txt"
    path.write_text(MESSY, encoding="utf-8")
    assert serde_llm.from_file(str(path)) == VALUE
    assert serde_llm.from_file(path, logging=True)[0] == VALUE
    with pytest.raises(FileNotFoundError):
        serde_llm.from_file(tmp_path / "missing.json")
    assert serde_llm.repair_json(json_fd=io.StringIO("[1,2,]")) == "[1, 2]"


def test_strict_raises_on_a_repair():
    assert serde_llm.loads('{"a": 1}', strict=True) == {"a": 1}
    with pytest.raises(DecodeError) as e:
        serde_llm.repair_json("{a: 1}", strict=True)
    assert e.value.kind == "denied"
    assert isinstance(e.value, ValueError)


def test_an_elision_between_elements():
    # json_repair's functions remove it, as json_repair does; parse refuses
    # it: the list the reply means is not written out.
    reply = "[2, 3, 5, ..., 29]"
    assert serde_llm.loads(reply) == [2, 3, 5, 29]
    assert serde_llm.repair_json(reply) == "[2, 3, 5, 29]"
    with pytest.raises(DecodeError) as e:
        serde_llm.parse(reply)
    assert e.value.kind == "data"
    assert e.value.column == 11
    # At the end, the elements so far, as a list cut off gives.
    assert serde_llm.parse("[2, 3, 5, ...]") == [2, 3, 5]


def test_bytes_are_read_as_utf8():
    assert serde_llm.loads('{"a": "é",}'.encode()) == {"a": "é"}
    assert serde_llm.parse(b'[1, 2') == [1, 2]
    with pytest.raises(DecodeError) as e:
        serde_llm.parse(b'["\xff"]')
    assert e.value.kind == "invalid_utf8"
    # A reply cut off inside a character: the character is dropped, as the
    # bytes were cut there.
    assert serde_llm.parse('[1, "caf\u00e9'.encode()[:-1]) == [1, "caf"]


def test_parse_untyped():
    assert serde_llm.parse(MESSY) == VALUE
    assert serde_llm.parse('{"a": 1}') == {"a": 1}
    assert math.isnan(serde_llm.parse("[NaN]")[0])
    value, report = serde_llm.parse("Result: ```json\n{\"n\": 1,}\n```", report=True)
    assert value == {"n": 1}
    assert report.strategy == "fence"
    assert [(r.kind, r.offset) for r in report.repairs] == [("trailing_comma", 23)]
    assert report.truncated is False and report.is_clean is False
    _, clean = serde_llm.parse('{"n": 1}', report=True)
    assert clean.is_clean and clean.strategy == "whole" and clean.span == (0, 8)


def test_report_offsets_count_characters():
    text = 'Voilà ✓ : {"é": 1,}'
    _, report = serde_llm.parse(text, report=True)
    (r,) = report.repairs
    assert text[r.offset] == ","
    assert text[report.span[0] : report.span[1]] == '{"é": 1,}'


def test_partial_parse():
    assert serde_llm.parse('{"a": "hel', partial=True) == {"a": "hel"}
    assert serde_llm.parse('{"a": 12', partial=True) == {}
    assert serde_llm.parse('[1, 2, tr', partial=True) == [1, 2]
    assert serde_llm.parse("Here is", partial=True) is None
    assert serde_llm.parse("", partial=True) is None


def test_decode_error_attributes():
    with pytest.raises(NoJsonError) as e:
        serde_llm.parse("I cannot help with that.")
    err = e.value
    assert isinstance(err, DecodeError) and isinstance(err, ValueError)
    assert err.kind == "no_json"
    assert err.path == "$"
    assert err.feedback.startswith("$: no JSON value found")
    assert str(err) == err.message

    with pytest.raises(DecodeError) as e:
        serde_llm.parse("[" * 200)
    err = e.value
    assert err.kind == "depth"
    assert (err.line, err.column, err.offset) == (1, 129, 128)
    assert "deeper than 128" in err.feedback

    with pytest.raises(DecodeError) as e:
        serde_llm.parse("ok:\n{\"a\": 1,}", strict=True)
    err = e.value
    assert err.kind == "denied"
    assert (err.line, err.column, err.offset) == (2, 8, 11)
    assert "trailing comma" in err.feedback

    assert TruncatedError.__mro__[1] is DecodeError
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is DecodeError and copy.kind == "denied" and copy.offset == 11


def test_the_stubs_name_everything_exported():
    import pathlib

    stub = (pathlib.Path(serde_llm.__file__).parent / "_native.pyi").read_text()
    for name in ["repair_json", "loads", "load", "from_file", "parse", "StreamParser", "Delta", "Report",
                 "Repair", "Coercion", "Schema"]:
        assert name in stub
        assert hasattr(serde_llm._native, name)


def test_repair_json_text_is_json_dumps_of_loads_on_every_corpus_input():
    """``repair_json`` writes its text straight from the decoder; it must be
    what ``json.dumps`` writes for ``loads``'s value, in every style."""
    from conftest import corpus

    inputs = [c["input"] for name in ("json_repair.jsonl", "jsonrepair_js.jsonl") for c in corpus(name)]
    inputs += ['{"a": 1, "b": 2, "a": 3}', "{a: 1, b: [1, {c: 2, c: 3}], a: 4,}", "[-0, 0.5, -0.0, 1e400]",
               '{"n": 123456789012345678901234567890}', '[1, "x"] trailing', "{" + ", ".join(f"k{i}: {i}" for i in range(40)) + ", k3: 0}"]
    for text in inputs:
        value = serde_llm.loads(text)
        for kwargs in ({}, {"indent": 2}, {"ensure_ascii": False}, {"indent": "\t", "ensure_ascii": False}):
            want = "" if value == "" else json.dumps(value, **kwargs)
            assert serde_llm.repair_json(text, **kwargs) == want, (text, kwargs)
            assert serde_llm.repair_json(text, skip_json_loads=True, **kwargs) == (
                "" if serde_llm.loads(text, skip_json_loads=True) == ""
                else json.dumps(serde_llm.loads(text, skip_json_loads=True), **kwargs)
            ), (text, kwargs)
