"""Type stubs for ``serde_llm._native``, the Rust half of the package."""

from __future__ import annotations

import os
from typing import IO, Any, Callable, Iterable, Iterator, Literal, Optional, Sequence, Tuple, Union, overload

JSONValue = Union[dict[str, Any], list[Any], str, int, float, bool, None]
"""A value as ``json.loads`` gives it."""

Text = Union[str, bytes, bytearray]
"""A reply: a ``str``, or bytes read as UTF-8."""

Log = list[dict[str, str]]
"""json_repair's repair log: one ``{"text": ..., "context": ...}`` per repair."""

PathLike = Union[str, Sequence[Union[str, int]]]
"""A JSON path: ``"$.items[0].name"``, or a sequence of keys and indexes."""

@overload
def repair_json(
    json_str: Optional[Text] = None,
    return_objects: Literal[False] = False,
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    ensure_ascii: bool = True,
    indent: Union[int, str, None] = None,
    *,
    strict: bool = False,
    stream_stable: bool = False,
    chunk_length: int = 0,
    json_fd: Optional[IO[Any]] = None,
) -> str: ...
@overload
def repair_json(
    json_str: Optional[Text] = None,
    return_objects: Literal[True] = ...,
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    ensure_ascii: bool = True,
    indent: Union[int, str, None] = None,
    *,
    strict: bool = False,
    stream_stable: bool = False,
    chunk_length: int = 0,
    json_fd: Optional[IO[Any]] = None,
) -> JSONValue: ...
@overload
def repair_json(
    json_str: Optional[Text] = None,
    return_objects: bool = False,
    skip_json_loads: bool = False,
    logging: Literal[True] = ...,
    ensure_ascii: bool = True,
    indent: Union[int, str, None] = None,
    *,
    strict: bool = False,
    stream_stable: bool = False,
    chunk_length: int = 0,
    json_fd: Optional[IO[Any]] = None,
) -> Tuple[JSONValue, Log]: ...
def repair_json(  # type: ignore[misc]
    json_str: Optional[Text] = None,
    return_objects: bool = False,
    skip_json_loads: bool = False,
    logging: bool = False,
    ensure_ascii: bool = True,
    indent: Union[int, str, None] = None,
    *,
    strict: bool = False,
    stream_stable: bool = False,
    chunk_length: int = 0,
    json_fd: Optional[IO[Any]] = None,
) -> Union[str, JSONValue, Tuple[JSONValue, Log]]:
    """json_repair's ``repair_json``: the value in the reply, repaired, as
    the text ``json.dumps(value, ensure_ascii=..., indent=...)`` writes;
    the value itself with ``return_objects``; ``(value, log)`` with
    ``logging``. ``""`` when the reply holds no JSON value (or its value is
    the empty string). ``strict`` raises ``DecodeError`` where a repair was
    needed. ``stream_stable`` and ``chunk_length`` are accepted for
    compatibility: a string cut off at the end is always kept as written,
    and files are read whole."""

@overload
def loads(
    json_str: Text,
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    stream_stable: bool = False,
    *,
    strict: bool = False,
) -> JSONValue: ...
@overload
def loads(
    json_str: Text,
    skip_json_loads: bool = False,
    logging: Literal[True] = ...,
    stream_stable: bool = False,
    *,
    strict: bool = False,
) -> Tuple[JSONValue, Log]: ...
def loads(  # type: ignore[misc]
    json_str: Text,
    skip_json_loads: bool = False,
    logging: bool = False,
    stream_stable: bool = False,
    *,
    strict: bool = False,
) -> Union[JSONValue, Tuple[JSONValue, Log]]:
    """json_repair's ``loads``: like ``json.loads``, repairing as needed;
    ``""`` when the reply holds no JSON value."""

@overload
def load(
    fd: IO[Any],
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> JSONValue: ...
@overload
def load(
    fd: IO[Any],
    skip_json_loads: bool = False,
    logging: Literal[True] = ...,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> Tuple[JSONValue, Log]: ...
def load(  # type: ignore[misc]
    fd: IO[Any],
    skip_json_loads: bool = False,
    logging: bool = False,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> Union[JSONValue, Tuple[JSONValue, Log]]:
    """json_repair's ``load``: ``loads`` of ``fd.read()`` (``str`` or
    ``bytes``)."""

@overload
def from_file(
    filename: Union[str, os.PathLike[str]],
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> JSONValue: ...
@overload
def from_file(
    filename: Union[str, os.PathLike[str]],
    skip_json_loads: bool = False,
    logging: Literal[True] = ...,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> Tuple[JSONValue, Log]: ...
def from_file(  # type: ignore[misc]
    filename: Union[str, os.PathLike[str]],
    skip_json_loads: bool = False,
    logging: bool = False,
    chunk_length: int = 0,
    *,
    strict: bool = False,
) -> Union[JSONValue, Tuple[JSONValue, Log]]:
    """json_repair's ``from_file``: ``load`` of the file, read as UTF-8."""

def parse(text: Text, strict: bool = False, report: bool = False, partial: bool = False) -> Any:
    """The untyped decode behind ``serde_llm.parse(text)``: the value, or
    ``(value, report)``; raises ``DecodeError``. With ``partial``, the view
    of a reply still being written (``None`` while there is nothing)."""

class Repair:
    """One repair the decoder made."""

    @property
    def kind(self) -> str:
        """The kind, in snake_case: ``"trailing_comma"``."""
    @property
    def offset(self) -> int:
        """Where, as an index into the text passed in (characters)."""
    @property
    def problem(self) -> str:
        """The problem in words: ``"a trailing comma"``."""

class Coercion:
    """One coercion toward the schema."""

    @property
    def kind(self) -> str:
        """The kind, in snake_case: ``"string_to_number"``."""
    @property
    def path(self) -> str:
        """The JSON path of the value: ``$.items[0].price``."""
    @property
    def offset(self) -> int:
        """Where, as an index into the text passed in (characters)."""
    @property
    def written(self) -> str:
        """What the reply wrote."""
    @property
    def used(self) -> str:
        """What was used."""

class Report:
    """What decoding a reply took."""

    @property
    def strategy(self) -> str:
        """How the value was found: ``"whole"``, ``"fence"``, ``"tag"``,
        ``"balanced"``, ``"trailing"``, ``"gathered"`` or ``"prose"``."""
    @property
    def span(self) -> Tuple[int, int]:
        """The part of the text that was decoded, ``(start, end)`` in characters."""
    @property
    def repairs(self) -> Tuple[Repair, ...]:
        """Every repair, in the order they were made."""
    @property
    def coercions(self) -> Tuple[Coercion, ...]:
        """Every coercion, in the order the values were decoded."""
    @property
    def truncated(self) -> bool:
        """Whether the value was cut off and completed."""
    @property
    def is_clean(self) -> bool:
        """No repair, no coercion, not cut off."""

class Delta:
    """One change to a ``StreamParser``'s value."""

    @property
    def kind(self) -> Literal["started", "appended", "completed", "reset"]:
        """``"started"``: a value appeared at ``path``, as far as it has
        arrived; ``"appended"``: the string at ``path`` grew by ``text``;
        ``"completed"``: the value at ``path`` is all there; ``"reset"``:
        forget what was shown, the deltas after it build the value again."""
    @property
    def path(self) -> Tuple[Union[str, int], ...]:
        """Where: keys and indexes, ``()`` for the whole value."""
    @property
    def value(self) -> Any:
        """The value started or completed; ``None`` for the other kinds."""
    @property
    def text(self) -> Optional[str]:
        """The characters appended; ``None`` for the other kinds."""

class Deltas:
    """What one feed changed: a sequence of ``Delta``s (each made when it
    is read), indexed and iterated as a list is."""

    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> Delta: ...
    def __iter__(self) -> Iterator[Delta]: ...
    def __bool__(self) -> bool: ...

class StreamParser:
    """Decodes a reply as it arrives, chunk by chunk, in time linear in the
    reply: ``value`` is kept up to date in place by each ``feed``."""

    def __init__(self, schema: Any = None, *, strict: bool = False) -> None: ...
    def feed(self, chunk: Union[Text, Iterable[Text]]) -> Deltas:
        """Adds the next chunk (split anywhere, even inside a character), or
        each chunk of an iterable in one call; returns what changed."""
    @property
    def value(self) -> Any:
        """The value so far (``None`` until one starts): objects, arrays and
        strings as far as they have arrived, numbers and literals once
        complete; for a schema, the fields complete so far and those marked
        ``x-partial`` as they grow. Updated in place by each feed."""
    @property
    def text(self) -> str:
        """The text received so far."""
    def is_complete(self, path: Optional[PathLike] = None) -> bool:
        """Whether the value at ``path`` (the whole value by default) will
        not change any more."""
    def finish(self) -> Any:
        """The whole reply's value: what ``serde_llm.parse`` gives for all
        the text fed (validated when there is a schema)."""

class Schema:
    """A JSON Schema compiled once for decoding, with the validator that
    turns decoded values into Python types (pydantic's, for a model)."""

    def __init__(
        self,
        schema: dict[str, Any],
        validate: Optional[Callable[[Any], Any]] = None,
        *,
        strict: bool = False,
        ignore_unknown_keywords: bool = False,
    ) -> None:
        """Compiles ``schema``; raises ``SchemaError`` for a keyword the
        decoder does not follow (unless ``ignore_unknown_keywords``)."""
    def parse(self, text: Text, *, report: bool = False, partial: bool = False) -> Any:
        """Decodes the value in ``text`` against the schema, then validates
        it; ``(value, report)`` with ``report``; with ``partial``, the
        unvalidated view of a reply still being written."""
    @property
    def strict(self) -> bool:
        """Whether it decodes with no repair and no coercion."""
    def stream(self) -> StreamParser:
        """A ``StreamParser`` decoding against this schema."""
