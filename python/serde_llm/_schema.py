"""What ``parse(text, schema)`` and ``StreamParser(schema)`` decode
through: a ``Schema`` compiled from a pydantic model, any type pydantic's
``TypeAdapter`` accepts, or a JSON Schema dict, kept for the next call."""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Tuple

from . import _native

_cache: dict[Any, _native.Schema] = {}
_lock = threading.Lock()
_LIMIT = 512


def compile(schema: Any, strict: bool = False) -> _native.Schema:
    """``schema`` compiled: a ``Schema`` as it is, a ``dict`` as a JSON
    Schema (every keyword must be one the decoder follows), anything else
    through pydantic (its JSON Schema for decoding, its validator for the
    result). Types are compiled once."""
    if isinstance(schema, _native.Schema):
        return schema
    if isinstance(schema, dict):
        return _native.Schema(schema, strict=strict)
    key: Optional[Tuple[Any, bool]] = (schema, strict)
    try:
        hit = _cache.get(key)
    except TypeError:  # an unhashable type form: compiled each time
        key, hit = None, None
    if hit is not None:
        return hit
    json_schema, validate = from_pydantic(schema)
    # pydantic validates the result, so what the decoder does not follow
    # (an OpenAPI `discriminator`, a vendor keyword) is left to it.
    compiled = _native.Schema(json_schema, validate, strict=strict, ignore_unknown_keywords=True)
    if key is not None:
        with _lock:
            if len(_cache) >= _LIMIT:
                _cache.clear()
            _cache[key] = compiled
    return compiled


def from_pydantic(schema: Any) -> Tuple[dict[str, Any], Optional[Callable[[Any], Any]]]:
    """The JSON Schema pydantic gives for ``schema`` (by alias, for
    validation) and the function that validates a decoded value into it."""
    try:
        import pydantic
    except ImportError as e:  # pragma: no cover - pydantic is optional
        raise TypeError(
            "a schema that is not a dict needs pydantic (pip install pydantic)"
        ) from e
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return _decodable(schema.model_json_schema()), schema.model_validate
    adapter = pydantic.TypeAdapter(schema)
    return _decodable(adapter.json_schema()), adapter.validate_python


def _decodable(node: Any) -> Any:
    """pydantic's schema with its string formats left to pydantic: the
    decoder checks `date-time`, `date` and `uuid` strictly (RFC 3339),
    where pydantic reads more spellings and turns them into Python types."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "format" and isinstance(v, str) and node.get("type") == "string":
                continue
            out[k] = _decodable(v) if k not in ("default", "const", "enum", "examples") else v
        return out
    if isinstance(node, list):
        return [_decodable(x) for x in node]
    return node
