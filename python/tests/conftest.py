"""Shared helpers for the package's tests: where the repository's test data
is (the Rust tests' copies: tests/corpus and examples/replies, read in
place, never copied)."""

from __future__ import annotations

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
REPLIES = ROOT / "examples" / "replies"


def corpus(name: str) -> list[dict]:
    """The records of tests/corpus/{name}, one JSON object per line."""
    with open(CORPUS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def differences(name: str) -> dict[str, str]:
    """tests/corpus/{name}: the cases the Rust tests answer differently on
    purpose, id -> reason."""
    out = {}
    with open(CORPUS / name, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            case, _, reason = line.partition(" ")
            out[case] = reason.strip()
    return out


def replies() -> list[str]:
    """The recorded model replies the Rust examples decode."""
    return [p.read_text(encoding="utf-8") for p in sorted(REPLIES.iterdir()) if p.is_file()]
