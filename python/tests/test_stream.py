"""``StreamParser`` (untyped): for recorded replies split into chunks every
way we can think of, after every feed the value is the one-shot partial
parse of the text so far, the deltas so far build it, and ``finish`` is
``parse`` of the whole text."""

from __future__ import annotations

import math
import random

import pytest

import serde_llm
from conftest import replies

RECIPE = (
    '{"id": 7, "title": "Sourdough \\"basic\\"", "body": "Feed the starter.\\nWait — about 8 h. ✓",\n'
    ' "steps": [{"n": 1, "text": "Mix flour & water"}, {"n": 2, "text": "Fold \\u00e9 \\ud83d\\ude00 twice"},\n'
    '  {"n": 3, "text": ""}], "confidence": 0.92, "tags": ["bread", "slow"],\n'
    ' "extraInfo": {"n": 4, "text": "nothing"}}'
)

REPLIES = replies() + [
    RECIPE,
    f"Sure! Here is the recipe:\n```json\n{RECIPE}\n```\nEnjoy.",
    f"<think>The user wants JSON {{like this}}.</think>\n{RECIPE}",
    f"Here {{name}} is the value: {RECIPE} Hope it helps",
    f"```json\n{RECIPE}\n```\nOr, shorter: ```json\n{{\"id\": 8}}\n``` and [1].",
    "{name: 'Ada', langs: ['en', 'fr',], // done\n score: .5, ok: True, none: None, n: NaN}",
    '[{"tool": "search", "args": {"query": "rust serde", "limit": 5}}, {"tool": "finish", "args": {"answer": "It is a fram',
]


def same(a, b, view=False) -> bool:
    """Equal, member order included (NaN equal to itself). ``view``: ``a``
    is a stream's value, whose untyped view (the library's
    ``serde_json::Value``) holds NaN and the infinities as ``None`` until
    ``finish``."""
    if view and a is None and isinstance(b, float) and not math.isfinite(b):
        return True
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k], view) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, view) for x, y in zip(a, b))
    return a == b


def apply(view, d):
    """A delta applied to a view, as the Rust ``Delta::apply`` does."""
    if d.kind == "reset":
        return None
    *outer, last = d.path if d.path else (None,)
    if not d.path:
        if d.kind == "appended":
            return view + d.text if isinstance(view, str) else view
        return d.value
    at = view
    for seg in outer:
        try:
            at = at[seg]
        except (KeyError, IndexError, TypeError):
            return view
    if d.kind == "appended":
        if isinstance(at, dict) and isinstance(at.get(last), str):
            at[last] += d.text
        elif isinstance(at, list) and isinstance(last, int) and last < len(at) and isinstance(at[last], str):
            at[last] += d.text
        return view
    if isinstance(at, dict) and isinstance(last, str):
        at[last] = d.value
    elif isinstance(at, list) and isinstance(last, int):
        if last == len(at):
            at.append(d.value)
        elif last < len(at):
            at[last] = d.value
    return view


def one_shot(prefix: str):
    """The partial parse of the text so far, or the error's kind."""
    try:
        return serde_llm.parse(prefix, partial=True)
    except serde_llm.DecodeError as e:
        return ("error", e.kind)


def replay(text: str, chunks: list):
    """Feeds ``chunks`` (str or bytes) and checks the invariants after each."""
    p = serde_llm.StreamParser()
    built = None
    fed = b""
    for chunk in chunks:
        fed += chunk.encode() if isinstance(chunk, str) else chunk
        prefix = fed.decode("utf-8", errors="ignore")
        want = one_shot(prefix)
        try:
            deltas = p.feed(chunk)
        except serde_llm.DecodeError as e:
            assert want == ("error", e.kind), prefix
            continue
        assert same(p.value, want, view=True), (prefix, p.value, want)
        for d in deltas:
            built = apply(built, d)
        assert same(built, p.value), (prefix, built, p.value)
        assert p.text == prefix
    try:
        want = serde_llm.parse(text)
    except serde_llm.DecodeError as e:
        with pytest.raises(serde_llm.DecodeError) as got:
            p.finish()
        assert got.value.kind == e.kind
        return
    assert same(p.finish(), want)


@pytest.mark.parametrize("text", REPLIES, ids=[f"reply{i}" for i in range(len(REPLIES))])
def test_every_split_in_two(text):
    for i in range(len(text) + 1):
        replay(text, [text[:i], text[i:]])


@pytest.mark.parametrize("text", REPLIES, ids=[f"reply{i}" for i in range(len(REPLIES))])
def test_one_character_at_a_time(text):
    replay(text, list(text))


@pytest.mark.parametrize("text", REPLIES, ids=[f"reply{i}" for i in range(len(REPLIES))])
def test_random_chunkings_of_the_bytes(text):
    rng = random.Random(hash(text) & 0xFFFF)
    data = text.encode()
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 12))))
        chunks = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
        replay(text, chunks)


def test_an_iterable_of_chunks_is_one_feed():
    chunks = [RECIPE[i : i + 7] for i in range(0, len(RECIPE), 7)]
    one = serde_llm.StreamParser()
    deltas = one.feed(chunks[:10])
    many = serde_llm.StreamParser()
    each = [d for c in chunks[:10] for d in many.feed(c)]
    assert same(one.value, many.value)
    assert [(d.kind, d.path) for d in deltas] == [(d.kind, d.path) for d in each]
    one.feed(iter(chunks[10:]))
    assert same(one.finish(), serde_llm.parse(RECIPE))


def test_is_complete():
    p = serde_llm.StreamParser()
    p.feed('{"a": "x", "b": [1, 2')
    assert p.is_complete(("a",)) and p.is_complete("$.a")
    assert p.is_complete("$.b[0]") and p.is_complete(["b", 0])
    assert not p.is_complete(("b",)) and not p.is_complete("$.b")
    assert not p.is_complete() and not p.is_complete("$.c")
    p.feed("]}")
    assert p.is_complete() and p.is_complete("$") and p.is_complete(())
    assert p.value == {"a": "x", "b": [1, 2]}


def test_deltas_describe_the_changes():
    p = serde_llm.StreamParser()
    deltas = p.feed('{"name": "Ad')
    deltas += p.feed('a", "n": 2}')
    assert [(d.kind, d.path, d.value, d.text) for d in deltas] == [
        ("started", (), {}, None),
        ("started", ("name",), "", None),
        ("appended", ("name",), None, "Ad"),
        ("appended", ("name",), None, "a"),
        ("completed", ("name",), "Ada", None),
        ("completed", ("n",), 2, None),
        ("completed", (), {"name": "Ada", "n": 2}, None),
    ]


def test_a_bad_chunk_type_is_a_type_error():
    with pytest.raises(TypeError):
        serde_llm.StreamParser().feed([1, 2])
