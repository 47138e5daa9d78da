"""The errors ``serde_llm`` raises: ``DecodeError`` (a ``ValueError``, as
``json.JSONDecodeError`` is) with attributes, and two subclasses for the
common cases."""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = ["DecodeError", "NoJsonError", "TruncatedError", "SchemaError"]


class DecodeError(ValueError):
    """A reply that could not be decoded.

    Attributes:
        kind: what went wrong, in snake_case: ``"no_json"``, ``"syntax"``,
            ``"truncated"``, ``"depth"``, ``"invalid_utf8"``, ``"number"``,
            ``"data"`` (the value does not fit the schema), ``"denied"`` (a
            repair that ``strict`` refuses), ``"rejected"``, ``"contract"``.
        line: 1-based line of the fault in the text passed in (0 when unknown).
        column: 1-based column, in characters (0 when unknown).
        offset: index of the fault in the text passed in, in characters
            (``None`` when unknown).
        path: the JSON path being decoded, such as ``$.items[3].name``.
        feedback: a short text naming the problem, meant to be sent back to
            the model in a retry turn.
        snippet: up to about 40 characters of the text around the fault.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "syntax",
        line: int = 0,
        column: int = 0,
        offset: Optional[int] = None,
        path: str = "$",
        feedback: str = "",
        snippet: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.line = line
        self.column = column
        self.offset = offset
        self.path = path
        self.feedback = feedback
        self.snippet = snippet

    def __reduce__(self) -> Tuple[Any, ...]:  # pickling keeps the attributes
        return (
            _rebuild,
            (
                type(self),
                self.message,
                {
                    "kind": self.kind,
                    "line": self.line,
                    "column": self.column,
                    "offset": self.offset,
                    "path": self.path,
                    "feedback": self.feedback,
                    "snippet": self.snippet,
                },
            ),
        )


def _rebuild(cls: Any, message: str, attrs: dict[str, Any]) -> Any:
    return cls(message, **attrs)


class NoJsonError(DecodeError):
    """The reply holds no JSON value: it is empty, prose (a refusal, an
    intro whose JSON has not arrived), or only reasoning. ``kind`` is
    ``"no_json"``."""


class TruncatedError(DecodeError):
    """The reply was cut off before a part the schema requires was written.
    ``kind`` is ``"truncated"``."""


class SchemaError(ValueError):
    """A JSON Schema the decoder cannot follow: a keyword it does not
    understand, a ``$ref`` that points nowhere. ``path`` is where in the
    schema (a JSON pointer, ``""`` for the root)."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (type(self), self.message, {"path": self.path}))
