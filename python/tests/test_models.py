"""``parse(text, schema)`` with pydantic models, types pydantic's
``TypeAdapter`` accepts, and JSON Schema dicts: fenced, repaired, coerced
and cut-off replies, with exact values and reports."""

from __future__ import annotations

import datetime
import enum
from typing import Annotated, Literal, Optional, Union

import pytest

pydantic = pytest.importorskip("pydantic")
from pydantic import BaseModel, Field  # noqa: E402

import serde_llm  # noqa: E402
from serde_llm import DecodeError, NoJsonError, TruncatedError  # noqa: E402


class Priority(enum.Enum):
    low = "low"
    in_progress = "in_progress"
    high = "high"


class Address(BaseModel):
    city: str
    zip_code: Optional[str] = None


class Ticket(BaseModel):
    user_name: str = Field(alias="userName")
    age: int
    priority: Priority
    tags: list[str] = []
    address: Address
    score: Optional[float] = None


class Search(BaseModel):
    tool: Literal["search"]
    query: str
    max_results: int = 10


class Fetch(BaseModel):
    tool: Literal["fetch"]
    url: str


class Finish(BaseModel):
    tool: Literal["finish"]
    answer: str


Call = Annotated[Union[Search, Fetch, Finish], Field(discriminator="tool")]


class Turn(BaseModel):
    thought: str
    calls: list[Call]


TICKET = Ticket(
    userName="ada", age=36, priority=Priority.high, tags=["vip"], address=Address(city="Paris", zip_code="75001"), score=0.5
)


@pytest.mark.parametrize(
    "reply",
    [
        '{"userName": "ada", "age": 36, "priority": "high", "tags": ["vip"], "address": {"city": "Paris", "zip_code": "75001"}, "score": 0.5}',
        # Fenced, with prose around.
        'Here is the ticket:\n```json\n{"userName": "ada", "age": 36, "priority": "high", "tags": ["vip"], '
        '"address": {"city": "Paris", "zip_code": "75001"}, "score": 0.5}\n```\nAnything else?',
        # Repaired: unquoted keys, single quotes, trailing commas, a comment, Python literals.
        "{userName: 'ada', age: 36, priority: 'high', tags: ['vip',], // the customer\n"
        " address: {city: 'Paris', zip_code: '75001',}, score: .5,}",
        # Coerced: numbers as strings, an enum value in another case, one tag
        # for a list, keys in other styles.
        '{"user_name": "ada", "Age": "36", "priority": "High", "tags": "vip", '
        '"address": {"City": "Paris", "zipCode": 75001}, "score": "0.5"}',
        # Thinking first, then the value in a tag.
        "<think>The user wants {a ticket}.</think>\n<json>{\"userName\": \"ada\", \"age\": 36.0, \"priority\": \"HIGH\", "
        '"tags": ["vip"], "address": {"city": "Paris", "zip_code": "75001"}, "score": 0.5}</json>',
    ],
)
def test_a_model_from_any_reply(reply):
    got = serde_llm.parse(reply, Ticket)
    assert type(got) is Ticket
    assert got == TICKET


def test_the_report_says_what_was_done():
    reply = "Sure:\n```json\n{userName: 'ada', age: '36', priority: 'In Progress', address: {city: 'Paris'},}\n```"
    got, report = serde_llm.parse(reply, Ticket, report=True)
    assert got == Ticket(userName="ada", age=36, priority=Priority.in_progress, address=Address(city="Paris"))
    assert report.strategy == "fence"
    assert reply[report.span[0] : report.span[1]].startswith("{userName")
    assert [r.kind for r in report.repairs].count("unquoted_key") == 5
    assert report.repairs[-1].kind == "trailing_comma" and reply[report.repairs[-1].offset] == ","
    coercions = [(c.kind, c.path, c.written, c.used) for c in report.coercions]
    assert ("string_to_number", "$.age", '"36"', "36") in coercions
    assert ("enum_variant", "$.priority", '"In Progress"', '"in_progress"') in coercions
    assert report.truncated is False


def test_a_cut_off_reply():
    # A field cut off that may be left out is (a list that is not marked
    # partial included: its default); a required one is an error.
    cut = '{"userName": "ada", "age": 36, "priority": "low", "address": {"city": "Paris"}, "tags": ["a", "b'
    assert serde_llm.parse(cut, Ticket) == Ticket(
        userName="ada", age=36, priority=Priority.low, tags=[], address=Address(city="Paris")
    )
    with pytest.raises(TruncatedError) as e:
        serde_llm.parse('{"userName": "ada", "age": 3', Ticket)
    assert e.value.kind == "truncated" and e.value.path == "$.age"
    assert e.value.feedback == "$.age: the reply is cut off here; send the complete JSON"
    # The partial view: what is complete so far, as a dict, not validated.
    assert serde_llm.parse('{"userName": "ada", "age": 3', Ticket, partial=True) == {"userName": "ada"}
    assert serde_llm.parse("Sure, here", Ticket, partial=True) is None


def test_tool_calls_as_a_discriminated_union():
    reply = (
        "I'll search first.\n```json\n"
        '{"thought": "look it up", "calls": [{"tool": "search", "query": "rust serde", "max_results": "4"}, '
        "{tool: 'Fetch', url: 'https://serde.rs'}, {\"tool\": \"finish\", \"answer\": \"done\"}]}\n```"
    )
    got = serde_llm.parse(reply, Turn)
    assert got == Turn(
        thought="look it up",
        calls=[
            Search(tool="search", query="rust serde", max_results=4),
            Fetch(tool="fetch", url="https://serde.rs"),
            Finish(tool="finish", answer="done"),
        ],
    )
    # A default filled in, and a single call for the list.
    assert serde_llm.parse('{"thought": "t", "calls": {"tool": "search", "query": "q"}}', Turn).calls == [
        Search(tool="search", query="q", max_results=10)
    ]


def test_types_a_type_adapter_takes():
    assert serde_llm.parse("[1, '2', 3.0,]", list[int]) == [1, 2, 3]
    assert serde_llm.parse("The priority is **High**.", Priority) is Priority.high
    assert serde_llm.parse('"b"', Literal["a", "b"]) == "b"
    assert serde_llm.parse("Answer: 42", int) == 42
    tickets = serde_llm.parse('[{"userName": "a", "age": 1, "priority": "low", "address": {"city": "X"}}]', list[Ticket])
    assert tickets == [Ticket(userName="a", age=1, priority=Priority.low, address=Address(city="X"))]
    assert serde_llm.parse('{"a": "1", "b": 2}', dict[str, int]) == {"a": 1, "b": 2}
    # A list wrapped in an object, its closing brace cut off: its list, not
    # an empty one; an object that can be no list is an error.
    assert serde_llm.parse('{"results": [1, 2, 3]', list[int]) == [1, 2, 3]
    with pytest.raises(DecodeError) as e:
        serde_llm.parse('{"a": 3', list[int])
    assert e.value.kind == "data"
    assert serde_llm.parse('"2024-05-01T10:00:00Z"', datetime.datetime) == datetime.datetime(
        2024, 5, 1, 10, 0, tzinfo=datetime.timezone.utc
    )


def test_a_json_schema_dict():
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            "order": {"enum": ["newest_first", "relevance"]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    reply = "Calling the tool:\n```json\n{query: 'rust serde', maxResults: '5', order: 'Relevance', extra: 1,}\n```"
    assert serde_llm.parse(reply, schema) == {"query": "rust serde", "max_results": 5, "order": "relevance"}
    # Members come in the order written, defaults after them.
    assert list(serde_llm.parse('{"order": "relevance", "query": "q"}', schema)) == ["order", "query", "max_results"]
    with pytest.raises(DecodeError) as e:
        serde_llm.parse('{"query": "rust", "max_results": 500}', schema)
    assert e.value.kind == "contract"
    assert e.value.feedback == "$.max_results: expected a number at most 50, got 500"
    compiled = serde_llm.Schema(schema)
    assert compiled.parse('{"query": "q"}') == {"query": "q", "max_results": 10}
    assert serde_llm.parse('{"query": "q"}', compiled) == {"query": "q", "max_results": 10}
    with pytest.raises(serde_llm.SchemaError) as s:
        serde_llm.Schema({"type": "object", "properties": {"a": {"type": "string", "contentMediaTyp": "x"}}})
    assert s.value.path == "/properties/a"
    assert isinstance(s.value, ValueError)


def test_strict_refuses_repairs_and_coercions():
    good = '{"userName": "ada", "age": 36, "priority": "high", "tags": ["vip"], "address": {"city": "Paris", "zip_code": "75001"}, "score": 0.5}'
    assert serde_llm.parse("```json\n" + good + "\n```", Ticket, strict=True) == TICKET
    with pytest.raises(DecodeError) as e:
        serde_llm.parse(good.replace('"age": 36', '"age": "36"'), Ticket, strict=True)
    assert e.value.path == "$.age"
    with pytest.raises(DecodeError) as e:
        serde_llm.parse(good[:-1] + ",}", Ticket, strict=True)
    assert e.value.kind == "denied"


def test_decode_errors_carry_where_and_what():
    with pytest.raises(NoJsonError) as e:
        serde_llm.parse("Sorry, I can't help with that.", Ticket)
    assert e.value.kind == "no_json" and e.value.path == "$"
    with pytest.raises(DecodeError) as e:
        serde_llm.parse('{"userName": "ada",\n "age": "old", "priority": "low", "address": {"city": "X"}}', Ticket)
    err = e.value
    assert (err.kind, err.path, err.line, err.column) == ("data", "$.age", 2, 9)
    assert err.offset == 28 and err.feedback == '$.age: expected an integer, got "old"'
    with pytest.raises(DecodeError) as e:
        serde_llm.parse('{"userName": "ada", "age": 1, "priority": "urgent", "address": {"city": "X"}}', Ticket)
    assert e.value.path == "$.priority" and "urgent" in e.value.feedback


def test_a_validator_of_the_model_still_runs():
    class Positive(BaseModel):
        n: int

        @pydantic.field_validator("n")
        @classmethod
        def positive(cls, v):
            if v <= 0:
                raise ValueError("must be positive")
            return v

    assert serde_llm.parse("{n: '3'}", Positive) == Positive(n=3)
    with pytest.raises(pydantic.ValidationError):
        serde_llm.parse("{n: -3}", Positive)
