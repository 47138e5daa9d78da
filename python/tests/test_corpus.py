"""json_repair's own test suite (tests/corpus/json_repair.jsonl, extracted
from mangiucugna/json_repair, MIT; see tests/corpus/README.md for the
notice) through the drop-in API: ``repair_json`` (its text read back with
``json.loads``) or, where the case asked for objects, ``loads``, with the
case's keyword arguments.

The Rust test (tests/corpus.rs) runs the same cases through ``repair()``
and lists the ones it answers differently on purpose in
tests/corpus/differences.txt. Here every case it agrees on must agree too,
so at least as many cases agree."""

from __future__ import annotations

import json

import pytest

import serde_llm
from conftest import corpus, differences

CASES = [
    c
    for c in corpus("json_repair.jsonl")
    if c["kind"] in ("repair", "throws")
    and "schema" not in c["options"]
    and "schema_repair_mode" not in c["options"]
]
LISTED = {k: v for k, v in differences("differences.txt").items() if k.startswith("json_repair-")}

NOTHING = object()


def ours(case: dict):
    """Our value for the case (``NOTHING`` when we give none: ``""`` or an
    error), as json_repair's caller would read it."""
    opts = case["options"]
    kwargs = {
        k: opts[k]
        for k in ("skip_json_loads", "logging", "strict", "stream_stable", "ensure_ascii")
        if k in opts
    }
    try:
        if opts.get("return_objects") or opts.get("logging"):
            got = serde_llm.repair_json(case["input"], return_objects=True, **kwargs)
            if opts.get("logging"):
                got, log = got
                assert isinstance(log, list)
                assert all(set(e) == {"text", "context"} for e in log)
            return NOTHING if got == "" else got
        text = serde_llm.repair_json(case["input"], **kwargs)
    except serde_llm.DecodeError:
        return NOTHING
    if text == "":
        return NOTHING
    return json.loads(text)


def agrees(case: dict) -> bool:
    value = ours(case)
    if case["kind"] == "throws":
        return value is NOTHING
    assertion = case.get("assertion")
    if assertion == "truthy":
        return value is not NOTHING and bool(value)
    if assertion == "falsy":
        return value is NOTHING or not value
    if assertion == "is_none":
        return value is None
    if "expected_value" in case:
        return value is not NOTHING and same(value, case["expected_value"])
    return value is NOTHING


def same(a, b) -> bool:
    """Value equality as json_repair's tests see it (``1 == 1.0``), with
    booleans apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_every_case_the_rust_test_agrees_on_agrees():
    disagree = [c["id"] for c in CASES if not agrees(c)]
    unlisted = [i for i in disagree if i not in LISTED]
    agreed = len(CASES) - len(disagree)
    rust = len(CASES) - len([c for c in CASES if c["id"] in LISTED])
    print(f"json_repair corpus: {agreed}/{len(CASES)} cases agree (the Rust repair() test: {rust})")
    assert not unlisted, "disagree here but not in tests/corpus/differences.txt: " + ", ".join(unlisted)
    assert agreed >= rust


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    if case["id"] in LISTED:
        pytest.skip("answered differently on purpose: " + LISTED[case["id"]])
    assert agrees(case), (case["input"], case.get("expected"))
