"""Decode what a language model replies into Python values.

Models wrap JSON in prose and markdown fences, make the usual syntax
mistakes, and get cut off mid-stream. ``serde_llm`` finds the value, repairs
and completes it, and builds it as Python objects, in Rust:

* ``repair_json``, ``loads``, ``load``, ``from_file``: json_repair's API, a
  drop-in replacement;
* ``parse(text, schema)``: decode into a pydantic model, any type pydantic's
  ``TypeAdapter`` accepts, or a JSON Schema;
* ``StreamParser``: the value of a reply as it streams, in linear time.
"""

from __future__ import annotations

from typing import Any

from . import _native, _schema
from ._native import (
    Coercion,
    Delta,
    Deltas,
    Repair,
    Report,
    Schema,
    StreamParser,
    from_file,
    load,
    loads,
    repair_json,
)
from .errors import DecodeError, NoJsonError, SchemaError, TruncatedError

__all__ = [
    "repair_json",
    "loads",
    "load",
    "from_file",
    "parse",
    "StreamParser",
    "Schema",
    "partial_field",
    "Delta",
    "Deltas",
    "Report",
    "Repair",
    "Coercion",
    "DecodeError",
    "NoJsonError",
    "TruncatedError",
    "SchemaError",
]

__version__ = "0.1.0"


def parse(text: Any, schema: Any = None, *, strict: bool = False, report: bool = False, partial: bool = False) -> Any:
    """Decode the value in a model's reply.

    Args:
        text: the reply (``str`` or UTF-8 ``bytes``).
        schema: ``None`` for any JSON value (dicts, lists, strings, numbers,
            booleans, ``None``); a pydantic model class or any type
            pydantic's ``TypeAdapter`` accepts (``list[Model]``, a
            ``Literal``, an ``Enum``) for a validated instance; a JSON
            Schema as a ``dict`` for a JSON value that fits it; or a
            ``Schema``. The reply is decoded against the JSON Schema
            (coerced toward it: ``"42"`` for an integer is 42, ``userName``
            fills ``user_name``, one object for a list is a list of one),
            then validated by pydantic.
        strict: no repair and no coercion: the reply must hold valid JSON
            (fences and prose around it are still fine).
        report: return ``(value, report)``, the ``Report`` telling how the
            value was found and what was repaired.
        partial: the reply may still be being written: give what is there
            so far (``None`` while nothing is). With a schema, the fields
            complete so far and those marked ``x-partial``
            (``partial_field``) as far as they go, as a dict: not validated.

    Raises:
        DecodeError: the reply holds no value of that schema (``NoJsonError``
            when it holds no JSON at all, ``TruncatedError`` when it was cut
            off before a required part); ``kind="contract"`` for a value
            outside the schema's bounds.
        pydantic.ValidationError: the decoded value failed pydantic's own
            validation (a custom validator).
        SchemaError: a JSON Schema dict with a keyword the decoder does not
            follow.
    """
    if schema is None:
        return _native.parse(text, strict, report, partial)
    return _schema.compile(schema, strict).parse(text, report=report, partial=partial)


def partial_field(default: Any = ..., **kwargs: Any) -> Any:
    """A pydantic ``Field`` whose value is shown as it grows while a reply
    streams (``"x-partial": true`` in its JSON Schema, as ``#[llm(partial)]``
    in Rust): a string's prefix, a list's elements so far. Other fields are
    shown once complete. Takes ``pydantic.Field``'s arguments."""
    import pydantic

    extra = dict(kwargs.pop("json_schema_extra", None) or {})
    extra["x-partial"] = True
    return pydantic.Field(default, json_schema_extra=extra, **kwargs)
