"""serde_llm beside the Python packages a user would pick instead, in one run.

    python python/bench.py               # builds ./python (release) into a temporary venv
    python python/bench.py --installed   # uses the serde_llm this interpreter imports

It makes a temporary virtual environment, installs the peers there
(json_repair, fast-json-repair, repairjson, partial-json-parser, jiter, and
pydantic), and runs the measures in it, printing Markdown tables:

* a 1 MB messy reply (prose, a fence, unquoted keys, single quotes, Python
  literals, trailing commas, comments) and a 200-byte one: ``repair_json``
  and ``loads`` against json_repair, fast-json-repair and repairjson, each
  output checked first ("wrong" where it is not the reply's value);
* ``parse(text, Model)`` against ``json_repair.loads`` + ``Model.model_validate``;
* a 100 KB reply streamed in 16-byte chunks with the value read after each
  chunk: ``StreamParser`` against partial-json-parser and
  ``jiter.from_json(partial_mode=...)`` parsing every prefix.

Times are the fastest of several runs (the machine is shared: the fastest
run is the one least disturbed).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time
from typing import Optional

HERE = pathlib.Path(__file__).resolve().parent
PEERS = ["json_repair", "fast-json-repair", "repairjson", "partial-json-parser", "jiter", "pydantic>=2.7"]


# --- the replies -------------------------------------------------------------


def record(i: int, rng: random.Random) -> dict:
    return {
        "id": i,
        "name": f"Item {i} “deluxe”",
        "price": round(rng.uniform(1, 500), 2),
        "tags": rng.sample(["red", "blue", "sale", "new", "eco", "xl"], 2),
        "in_stock": rng.random() < 0.5,
        "rating": None if i % 7 == 0 else rng.randint(1, 5),
        "note": f"Ships in {rng.randint(1, 9)} days; call 555-{i:04d}",
    }


def messy_record(r: dict) -> str:
    tags = ", ".join(f"'{t}'" for t in r["tags"])
    rating = "None" if r["rating"] is None else r["rating"]
    stock = "True" if r["in_stock"] else "false"
    return (
        f"  {{id: {r['id']}, name: '{r['name']}', \"price\": {r['price']}, tags: [{tags},], "
        f"in_stock: {stock}, \"rating\": {rating}, note: \"{r['note']}\",}},"
        + (" // checked" if r["id"] % 10 == 0 else "")
    )


def messy_reply(size: int) -> tuple[str, dict]:
    """A reply of about ``size`` bytes as a model writes one, and its value."""
    rng = random.Random(7)
    records, lines, n = [], [], 0
    while n < size - 180:
        r = record(len(records), rng)
        records.append(r)
        lines.append(messy_record(r))
        n += len(lines[-1].encode()) + 1
    body = "{\n items: [\n" + "\n".join(lines) + f"\n ],\n total: {len(records)},\n}}"
    text = f"Sure! Here is the catalog you asked for:\n\n```json\n{body}\n```\n\nLet me know if you need anything else."
    return text, {"items": records, "total": len(records)}


SMALL = (
    "Sure! Here is the JSON you asked for:\n```json\n"
    "{name: 'Ada Lovelace', \"age\": 36, langs: ['en', 'fr',], active: True, // checked\n"
    " \"score\": 0.93}\n```\nAnything else?"
)
SMALL_VALUE = {"name": "Ada Lovelace", "age": 36, "langs": ["en", "fr"], "active": True, "score": 0.93}


def stream_reply(size: int) -> tuple[str, dict]:
    """Valid JSON of about ``size`` bytes, as a provider streams tool
    arguments (the re-parsing peers read only JSON)."""
    rng = random.Random(11)
    items = []
    while len(json.dumps({"items": items})) < size:
        items.append(record(len(items), rng))
    value = {"items": items}
    return json.dumps(value), value


# --- timing ------------------------------------------------------------------


def best(fn, *, repeat: int, number: int = 1) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, per call, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


def cell(name: str, fn, check, *, repeat: int, number: int, results: dict) -> str:
    """Times ``fn`` if its output passes ``check``; "wrong" (with the time)
    where it does not, "error" where it raises."""
    try:
        ok = check(fn())
    except Exception as e:  # a peer that gives up
        return f"error ({type(e).__name__})"
    t = best(fn, repeat=repeat, number=number)
    results[name] = t if ok else None
    return fmt(t) if ok else f"wrong ({fmt(t)})"


def race(contenders: list, check, rounds: int) -> tuple[dict, dict]:
    """Times each ``(name, fn, number)`` in turns, ``rounds`` times: on a
    shared machine the load changes over time, and taking turns gives each
    the same chances; the fastest round of each counts. Returns the cells
    (time, "wrong (time)" or "error") and the times of the right ones."""
    cells, ok, times = {}, {}, {}
    for name, fn, _ in contenders:
        try:
            ok[name] = check(fn())
        except Exception as e:  # a peer that gives up
            cells[name] = f"error ({type(e).__name__})"
    live = [c for c in contenders if c[0] in ok]
    for _ in range(rounds):
        for name, fn, number in live:
            t = time.perf_counter()
            for _ in range(number):
                fn()
            dt = (time.perf_counter() - t) / number
            times[name] = min(times.get(name, dt), dt)
    for name, _, _ in live:
        cells[name] = fmt(times[name]) if ok[name] else f"wrong ({fmt(times[name])})"
    return cells, {n: t for n, t in times.items() if ok[n]}


def ratio(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None:
        return "–"
    return f"{theirs / ours:,.1f}×"


# --- the measures ------------------------------------------------------------


def repair_tables() -> None:
    import fast_json_repair
    import json_repair
    import repairjson

    import serde_llm

    big, big_value = messy_reply(1_000_000)
    print(f"The 1 MB reply: {len(big.encode()):,} bytes, {len(big_value['items']):,} records; "
          f"the small one: {len(SMALL.encode())} bytes.\n")
    print("| reply | call | serde_llm | json_repair | fast-json-repair | repairjson | vs json_repair | vs fast-json-repair | vs repairjson |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, text, value, number, slow, rounds in [
        ("1 MB", big, big_value, 1, 1, 5),
        ("200 B", SMALL, SMALL_VALUE, 1000, 50, 30),
    ]:
        for call in ("repair_json", "loads"):
            if call == "repair_json":
                check = lambda out: json.loads(out) == value  # noqa: E731
            else:
                check = lambda out: out == value  # noqa: E731
            peers = [serde_llm, json_repair, fast_json_repair, repairjson]
            names = ["serde_llm", "json_repair", "fast-json-repair", "repairjson"]
            contenders = [
                (name, lambda f=getattr(m, call): f(text), slow if name == "json_repair" else number)
                for name, m in zip(names, peers)
            ]
            cells, times = race(contenders, check, rounds)
            o = times.get("serde_llm")
            ratios = [ratio(o, times.get(p)) for p in names[1:]]
            print(f"| {label} | `{call}` | " + " | ".join([cells[n] for n in names] + ratios) + " |")
    print()


def parse_table() -> None:
    import json_repair
    from pydantic import BaseModel

    import serde_llm

    Item = record_model()

    class Catalog(BaseModel):
        items: list[Item]
        total: int

    class Person(BaseModel):
        name: str
        age: int
        langs: list[str]
        active: bool
        score: float

    big, big_value = messy_reply(1_000_000)
    print("| reply | serde_llm `parse(text, Model)` | json_repair `loads` + `model_validate` | ratio |")
    print("|---|---|---|---|")
    for label, text, model, value, number, slow, rounds in [
        ("1 MB", big, Catalog, big_value, 1, 1, 5),
        ("200 B", SMALL, Person, SMALL_VALUE, 500, 50, 30),
    ]:
        want = model.model_validate(value)
        cells, times = race(
            [
                ("serde_llm", lambda: serde_llm.parse(text, model), number),
                ("json_repair", lambda: model.model_validate(json_repair.loads(text)), slow),
            ],
            lambda v: v == want,
            rounds,
        )
        print(f"| {label} | {cells['serde_llm']} | {cells['json_repair']} | "
              f"{ratio(times.get('serde_llm'), times.get('json_repair'))} |")
    print()


def stream_once(serde_llm, chunks: list, schema=None) -> object:
    """One ``StreamParser`` (against ``schema``, if any) fed ``chunks``, its
    value read after each: the value at the end."""
    p = serde_llm.StreamParser(schema)
    v = None
    for c in chunks:
        p.feed(c)
        v = p.value
    return v


def record_model():
    """A pydantic model of ``record``'s value."""
    from pydantic import BaseModel

    class Record(BaseModel):
        id: int
        name: str
        price: float
        tags: list[str]
        in_stock: bool
        rating: Optional[int]
        note: str

    return Record


def records_model(serde_llm):
    """A pydantic model of ``stream_reply``'s value, its list marked to grow."""
    from pydantic import BaseModel

    Record = record_model()

    class Records(BaseModel):
        items: list[Record] = serde_llm.partial_field()

    return Records


def stream_table() -> None:
    import jiter
    import partial_json_parser

    import serde_llm

    text, value = stream_reply(100_000)
    chunks = [text[i : i + 16] for i in range(0, len(text), 16)]
    prefixes = [text[:i] for i in range(16, len(text), 16)] + [text]
    data = [p.encode() for p in prefixes]
    print(f"A {len(text.encode()):,}-byte reply in {len(chunks):,} chunks of 16 bytes, the value read after each.\n")

    def ours():
        return stream_once(serde_llm, chunks)

    model = records_model(serde_llm)

    def ours_model():
        return stream_once(serde_llm, chunks, model)

    def jiter_all():
        for d in data:
            v = jiter.from_json(d, partial_mode="trailing-strings")
        return v

    # partial-json-parser is pure Python: every `step`-th prefix is timed
    # and the sum scaled by `step` (the prefixes are evenly spaced, so the
    # estimate is fair); its last prefix is checked.
    step = 16

    def pjp_sample():
        for p in prefixes[::step]:
            v = partial_json_parser.loads(p)
        return partial_json_parser.loads(prefixes[-1])

    cells, times = race(
        [("serde_llm", ours, 1), ("model", ours_model, 1), ("jiter", jiter_all, 1)],
        lambda v: v == value,
        3,
    )
    results: dict = {}
    pjp = cell("pjp", pjp_sample, lambda v: v == value, repeat=1, number=1, results=results)
    if results.get("pjp") is not None:
        results["pjp"] *= step
        pjp = fmt(results["pjp"]) + f" (every {step}th prefix timed, ×{step})"
    o = times.get("serde_llm")
    print("| serde_llm `StreamParser` | jiter `partial_mode` on every prefix | partial-json-parser on every prefix | vs jiter | vs partial-json-parser |")
    print("|---|---|---|---|---|")
    row = [cells["serde_llm"], cells["jiter"], pjp, ratio(o, times.get("jiter")), ratio(o, results.get("pjp"))]
    print("| " + " | ".join(row) + " |")
    m = times.get("model")
    print(f"\nWith a pydantic model of the records (`StreamParser(Model)`, the list marked partial): "
          f"{cells['model']}, {ratio(m, times.get('jiter'))} jiter and {ratio(m, results.get('pjp'))} "
          "partial-json-parser.")
    if o:
        print(f"\nserde_llm per chunk: {fmt(o / len(chunks))} (feed + value).")
    floor = best(lambda: [None for _ in chunks], repeat=5)
    p = serde_llm.StreamParser()
    noop = best(lambda: [p.is_complete(()) for _ in chunks], repeat=5)
    # A feed and a read are two calls: the crossing a stream cannot avoid.
    two = best(lambda: [(p.is_complete(()), p.value) for _ in chunks], repeat=5)
    print(f"The floor: a Python loop over the chunks {fmt(floor)}, one native call per chunk {fmt(noop)}, "
          f"two (as a feed and a read) {fmt(two)}.")
    print()


def stream_loop(what: str, n: int) -> None:
    """Runs the stream measure's loop ``n`` times and nothing else, for an
    instruction count (``valgrind --tool=callgrind``, the count at 2 less
    the count at 0, halved): ``ours`` (a parser made, fed every chunk, its
    value read after each), ``calls`` (two native calls per chunk, as a
    feed and a read: the crossing) or ``objects`` (the value's Python
    objects built once). The installed serde_llm is measured."""
    sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
    import serde_llm

    text, _ = stream_reply(100_000)
    chunks = [text[i : i + 16] for i in range(0, len(text), 16)]

    def ours():
        return stream_once(serde_llm, chunks)

    def calls():
        p = serde_llm.StreamParser()
        for c in chunks:
            p.is_complete(())
            v = p.value
        return v

    # The value's Python objects built once (by `json.loads` of the reply's
    # JSON, C-accelerated), which any stream that gives Python objects pays.
    doc = serde_llm.repair_json(text)

    def objects():
        return json.loads(doc)

    f = {"ours": ours, "calls": calls, "objects": objects}[what]
    for _ in range(n):
        f()


def child(installed: bool) -> None:
    # The script's folder holds the package's sources (and perhaps a
    # development build): the venv's wheel, or the installed package the
    # parent named (`PYTHONPATH`), is the one measured, unless that is
    # this folder.
    named = os.environ.get("PYTHONPATH") if installed else None
    if not named or pathlib.Path(named).resolve() != HERE:
        sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
        if named:
            sys.path.insert(0, named)
    import serde_llm

    print(f"serde_llm {serde_llm.__version__} from {pathlib.Path(serde_llm.__file__).parent}; Python {sys.version.split()[0]}\n")
    repair_tables()
    parse_table()
    stream_table()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--installed", action="store_true", help="use the serde_llm this interpreter imports")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--stream-loop", nargs=2, metavar=("WHAT", "N"),
                    help="only run the stream loop (ours|calls|objects) N times, in this interpreter, for callgrind")
    args = ap.parse_args()
    if args.stream_loop:
        stream_loop(args.stream_loop[0], int(args.stream_loop[1]))
        return
    if args.child:
        child(args.installed)
        return
    with tempfile.TemporaryDirectory(prefix="serde_llm_bench_") as tmp:
        venv = pathlib.Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        print("installing the peers into a temporary venv ...", file=sys.stderr)
        subprocess.run(pip + PEERS, check=True)
        env = dict(os.environ)
        if args.installed:
            # The installed package, not the sources beside this script.
            sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
            import serde_llm

            env["PYTHONPATH"] = str(pathlib.Path(serde_llm.__file__).resolve().parents[1])
        else:
            print("building serde_llm (release) into it ...", file=sys.stderr)
            subprocess.run(pip + [str(HERE)], check=True)
        flags = ["--child"] + (["--installed"] if args.installed else [])
        subprocess.run([py, str(pathlib.Path(__file__).resolve()), *flags], check=True, env=env, cwd=tmp)


if __name__ == "__main__":
    main()
