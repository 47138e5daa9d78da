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


def same(a, b, view=False, ordered=True) -> bool:
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
        keys = list(a) == list(b) if ordered else a.keys() == b.keys()
        return keys and all(same(a[k], b[k], view, ordered) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, view, ordered) for x, y in zip(a, b))
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


@pytest.mark.parametrize("text", REPLIES, ids=[f"reply{i}" for i in range(len(REPLIES))])
def test_the_value_read_now_and_then(text):
    # Appends to a string are gathered until another change comes or the
    # value is read (a Python string cannot grow in place): read after every
    # few feeds, or only at the end, the value is what a one-shot partial
    # parse of the text so far gives.
    for every in (3, 17, 10**9):
        p = serde_llm.StreamParser()
        fed = ""
        for i, ch in enumerate(text):
            try:
                p.feed(ch)
            except serde_llm.DecodeError:
                pass
            fed += ch
            want = one_shot(fed)
            if i % every == every - 1 and not isinstance(want, tuple):
                assert same(p.value, want, view=True), (fed, p.value)
        want = one_shot(text)
        if not isinstance(want, tuple):
            assert same(p.value, want, view=True), (text, p.value, want)


def test_a_long_string_fed_in_chunks():
    body = "".join(f"line {i} of the file, with a \\\"quote\\\" ✓\\n" for i in range(2000))
    text = '{"path": "notes.md", "content": "' + body + '", "done": true}'
    p = serde_llm.StreamParser()
    appended = []
    for i in range(0, len(text), 16):
        deltas = p.feed(text[i : i + 16])
        appended += [d.text for d in deltas if d.kind == "appended" and d.path == ("content",)]
    content = serde_llm.parse(text)["content"]
    assert "".join(appended) == content
    assert p.value == {"path": "notes.md", "content": content, "done": True}


def test_a_string_kept_from_an_earlier_value_does_not_change():
    # The stream grows a string in place when nothing else holds it; one the
    # caller kept is left as it was read, in a dict, in a list and at the root.
    for text, get in [
        ('{"path": "a.py", "content": "' + "x" * 300 + '"}', lambda v: v["content"]),
        ('["' + "é" * 150 + "✓" * 150 + '"]', lambda v: v[0]),
        ('"' + "y" * 300 + '"', lambda v: v),
    ]:
        p = serde_llm.StreamParser()
        kept = []
        for i in range(0, len(text), 7):
            p.feed(text[i : i + 7])
            v = p.value
            if v is not None:
                try:
                    got = get(v)
                except (IndexError, KeyError, TypeError):
                    continue
                if isinstance(got, str):
                    kept.append((got, str(got.encode("utf-8"), "utf-8")))
        assert kept and all(s == copy for s, copy in kept), text
        final = serde_llm.parse(text)
        assert p.finish() == final
        assert get(p.value) == get(final)


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
    deltas = list(p.feed('{"name": "Ad'))
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


def test_a_completed_container_delta_is_a_copy_of_the_value_built():
    p = serde_llm.StreamParser()
    p.feed('{"items": [{"id": 1, "tags": ["a"]}, {"id"')
    deltas = p.feed(': 2}]}')
    done = {d.path: d for d in deltas if d.kind == "completed"}
    assert list(done) == [("items", 1, "id"), ("items", 1), ("items",), ()]
    whole = done[()].value
    assert whole == {"items": [{"id": 1, "tags": ["a"]}, {"id": 2}]}
    # A new object each time it is read, apart from the parser's value.
    assert whole is not p.value and done[()].value is not whole
    whole["items"][0]["tags"].append("b")
    assert p.value == {"items": [{"id": 1, "tags": ["a"]}, {"id": 2}]}
    assert done[("items", 1)].value == {"id": 2}
    assert done[("items",)].value == [{"id": 1, "tags": ["a"]}, {"id": 2}]
    assert repr(deltas[-1]) == "Delta(kind='completed', path=(), value={'items': [{'id': 1, 'tags': ['a']}, {'id': 2}]})"


def test_deltas_are_a_sequence():
    p = serde_llm.StreamParser()
    deltas = p.feed('["a", "b')
    assert len(deltas) == 4 and bool(deltas)
    assert [(d.kind, d.path) for d in deltas] == [("started", ()), ("started", (0,)), ("completed", (0,)), ("started", (1,))]
    assert deltas[-1].value == "b" and deltas[-1].text is None
    assert [d.kind for d in p.feed("c")] == ["appended"]
    with pytest.raises(IndexError):
        deltas[4]
    assert not p.feed("")
    assert "completed" in repr(deltas)


def test_a_bad_chunk_type_is_a_type_error():
    with pytest.raises(TypeError):
        serde_llm.StreamParser().feed([1, 2])


# --- against a schema -------------------------------------------------------

pydantic = pytest.importorskip("pydantic")
from typing import Annotated, Literal, Optional, Union  # noqa: E402

from pydantic import BaseModel, Field  # noqa: E402


class Step(BaseModel):
    n: int
    text: str = serde_llm.partial_field()


class Recipe(BaseModel):
    id: int = Field(json_schema_extra={"x-required-for-view": True})
    title: str
    body: str = serde_llm.partial_field()
    steps: list[Step] = serde_llm.partial_field()
    confidence: Optional[float] = Field(None, alias="conf")
    tags: list[str] = []
    extraInfo: Optional[Step] = None


class Search(BaseModel):
    tool: Literal["search"]
    query: str = serde_llm.partial_field()
    limit: int = 5


class Finish(BaseModel):
    tool: Literal["finish"]
    answer: str = serde_llm.partial_field()


class Turn(BaseModel):
    calls: list[Annotated[Union[Search, Finish], Field(discriminator="tool")]] = serde_llm.partial_field()


TYPED = [
    (Recipe, RECIPE.replace('"confidence"', '"conf"')),
    (Recipe, f"Sure! Here is the recipe:\n```json\n{RECIPE}\n```\nEnjoy."),
    (Recipe, "{id: 3, title: 'Bread', body: 'Mix, then wait',, steps: [{n: '1', text: 'Mix'}], tags: 'slow',}"),
    (Turn, '{"calls": [{"tool": "search", "query": "rust serde", "limit": "3"}, {"tool": "finish", "answer": "It is a framework."}]}'),
]


def typed_one_shot(model, prefix):
    try:
        return serde_llm.parse(prefix, model, partial=True)
    except serde_llm.DecodeError as e:
        return ("error", e.kind)


def typed_replay(model, text, chunks):
    p = serde_llm.StreamParser(model)
    built = None
    fed = ""
    for chunk in chunks:
        fed += chunk
        want = typed_one_shot(model, fed)
        try:
            deltas = p.feed(chunk)
        except serde_llm.DecodeError as e:
            assert want == ("error", e.kind), fed
            continue
        # A schema's view is read again whole on each feed: its member order
        # can differ from the order the deltas built the value in (a member
        # completed later can come before one shown earlier), so members
        # are compared as a dict compares them.
        assert same(p.value, want, ordered=False), (fed, p.value, want)
        for d in deltas:
            built = apply(built, d)
        assert same(built, p.value, ordered=False), (fed, built, p.value)
    try:
        want = serde_llm.parse(text, model)
    except serde_llm.DecodeError as e:
        with pytest.raises(serde_llm.DecodeError) as got:
            p.finish()
        assert got.value.kind == e.kind
        return
    got = p.finish()
    assert type(got) is model and got == want


@pytest.mark.parametrize("model,text", TYPED, ids=[f"typed{i}" for i in range(len(TYPED))])
def test_typed_every_split_in_two(model, text):
    for i in range(len(text) + 1):
        typed_replay(model, text, [text[:i], text[i:]])


@pytest.mark.parametrize("model,text", TYPED, ids=[f"typed{i}" for i in range(len(TYPED))])
def test_typed_random_chunkings(model, text):
    rng = random.Random(len(text))
    for _ in range(10):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 30))))
        typed_replay(model, text, [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])])


def test_a_typed_stream_shows_what_may_grow():
    p = serde_llm.StreamParser(Recipe)
    p.feed('{"id": 7, "title": "Bread", "body": "Feed the sta')
    assert p.value == {"id": 7, "title": "Bread", "body": "Feed the sta"}
    assert p.is_complete("$.title") and not p.is_complete("$.body")
    p.feed('rter", "steps": [{"n": 1, "text": "Mi')
    assert p.value["steps"] == [{"n": 1, "text": "Mi"}]
    # A call (one of several shapes) is shown once it is complete.
    t = serde_llm.StreamParser(Turn)
    t.feed('{"calls": [{"tool": "search", "query": "rust serde", "limit": 3}, {"tool": "finish", "answer": "It is')
    assert t.value == {"calls": [{"tool": "search", "query": "rust serde", "limit": 3}]}
    assert t.is_complete("$.calls[0]") and not t.is_complete()
    t.feed(' a framework."}]}')
    assert t.is_complete()
    assert t.finish() == Turn(calls=[Search(tool="search", query="rust serde", limit=3),
                                     Finish(tool="finish", answer="It is a framework.")])
    s = serde_llm.Schema({"type": "object", "properties": {"a": {"type": "integer"}}})
    q = s.stream()
    q.feed('{"a": "4')
    assert q.value == {}
    q.feed('"}')
    assert q.value == {"a": 4} and q.finish() == {"a": 4}
