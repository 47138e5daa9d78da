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

from . import _native
from ._native import Coercion, Delta, Repair, Report, from_file, load, loads, repair_json
from .errors import DecodeError, NoJsonError, TruncatedError

__all__ = [
    "repair_json",
    "loads",
    "load",
    "from_file",
    "parse",
    "StreamParser",
    "Delta",
    "Report",
    "Repair",
    "Coercion",
    "DecodeError",
    "NoJsonError",
    "TruncatedError",
]

__version__ = "0.1.0"

StreamParser = _native.StreamParser


def parse(text, schema=None, *, strict=False, report=False, partial=False):
    """Decode the value in a model's reply.

    Args:
        text: the reply (``str`` or UTF-8 ``bytes``).
        schema: ``None`` for any JSON value (dicts, lists, strings, numbers,
            booleans, ``None``); a pydantic model class or any type
            pydantic's ``TypeAdapter`` accepts (``list[Model]``, a
            ``Literal``, an ``Enum``) for a validated instance; or a JSON
            Schema as a ``dict`` for a JSON value that fits it.
        strict: no repair and no coercion: the reply must hold valid JSON
            (fences and prose around it are still fine).
        report: return ``(value, report)``, the ``Report`` telling how the
            value was found and what was repaired.
        partial: the reply may still be being written: give what is there
            so far (``None`` while nothing is).

    Raises:
        DecodeError: the reply holds no value of that schema (``NoJsonError``
            when it holds no JSON at all).
    """
    if schema is None:
        return _native.parse(text, strict, report, partial)
    raise NotImplementedError("schemas come with the schema decoder")
