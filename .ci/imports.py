#!/usr/bin/env python3
"""No module of the library imports one that imports it back.

Reads every path into the crate in src/ (`crate::…` and `$crate::…`, in
`use` lines, grouped ones included, and in code; and `super::…` where it
climbs to the crate root), outside comments, string literals and
`#[cfg(test)]` modules, and builds the graph of top-level modules: a
folder is one module (`src/scan/*.rs` and `src/scan.rs` are `scan`), and a
name that `lib.rs` re-exports (`crate::Decoder`) counts as the module it
comes from. Prints each circle (every import in it, and a shortest cycle
through each) and fails if there is one; also fails if an engine module
imports `schema` (the runtime-schema layer sits above the engine).

An import listed in KNOWN is left out of the check, said at each run, and
must still exist (the list cannot go stale); `--strict` checks without it.

What it cannot see: a method is no path, so a call of a method an `impl`
in another module defines is not counted (`partial::grow::Local` calls
`Decoder::part`, which `choose` defines: a view's part re-enters the
pipeline).

    python3 .ci/imports.py            # check
    python3 .ci/imports.py --strict   # check, KNOWN imports included
    python3 .ci/imports.py --graph    # print the graph, one module a line
    python3 .ci/imports.py --self-test
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# Modules allowed to import `schema`: itself (the crate root is no module).
ABOVE_ENGINE = {"schema"}

# Imports that close a circle, left until the work that removes them.
KNOWN: dict = {}

# A char literal: one character, an escape, or a `\u{…}` escape (a lifetime
# such as `'a` has no closing quote).
CHAR = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'")
# A raw string's opening (`r"`, `r#"`, `br#"`), not part of an identifier.
RAW = re.compile(r'(?<![\w])b?r(#*)"')
# A string's opening (`"`, `b"`), not part of an identifier.
STR = re.compile(r'(?<![\w])b?"')


def strip_comments(code):
    """The code without `//` and `/* */` comments and without the text of
    string and char literals (a path in a string is no import)."""
    out = []
    i, n = 0, len(code)
    while i < n:
        if code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if code.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif code.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif RAW.match(code, i):
            m = RAW.match(code, i)
            end = code.find('"' + m.group(1), m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif STR.match(code, i):
            i = STR.match(code, i).end()
            while i < n and code[i] != '"':
                i += 2 if code[i] == "\\" else 1
            i += 1
            out.append('""')
        elif CHAR.match(code, i):
            out.append("' '")
            i = CHAR.match(code, i).end()
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def block_end(code, j):
    """Where the block whose `{` is just before `j` ends."""
    depth = 1
    while j < len(code) and depth:
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        j += 1
    return j


def drop_test_modules(code):
    """The code without `#[cfg(test)] mod … { … }` blocks."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        if m.start() < i:
            continue
        out.append(code[i:m.start()])
        i = block_end(code, m.end())
    out.append(code[i:])
    return "".join(out)


def module_of(path, root=ROOT):
    """The top-level module a file belongs to, and how deep the file's own
    module is (`src/x.rs` and `src/x/mod.rs` 1, `src/x/y.rs` 2)."""
    parts = os.path.relpath(path, root).split(os.sep)
    first = parts[0][:-3] if parts[0].endswith(".rs") else parts[0]
    depth = len(parts) - (1 if parts[-1] == "mod.rs" else 0)
    return first, depth


def group_names(code, j):
    """The top-level names of the group `{a::b, c, d::{e, f}}` whose `{` is
    just before `j`."""
    end = block_end(code, j)
    items, cur, depth = [], [], 0
    for ch in code[j:end - 1]:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if depth == 0 and ch == ",":
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [m.group(1) for m in (re.match(r"\s*(\w+)", item) for item in items) if m]


def crate_paths(code, depth):
    """The first segment of each path into the crate root: `crate::x`,
    `$crate::x`, and `super::…::x` with as many `super`s as the module is
    deep (inline `mod m { … }` blocks counted); a group gives each of its
    names."""
    inline = [(m.end(), block_end(code, m.end()))
              for m in re.finditer(r"\bmod\s+\w+\s*\{", code)]
    firsts = []
    pattern = r"(?<![\w])(crate\s*::\s*|(?:super\s*::\s*)+)(\{|\w+)"
    for m in re.finditer(pattern, code):
        ups = m.group(1).count("super")
        if ups:
            nested = sum(1 for a, b in inline if a <= m.start() < b)
            if ups < depth + nested:
                continue  # a path inside the same top-level module
        if m.group(2) == "{":
            firsts.extend(group_names(code, m.end()))
        else:
            firsts.append(m.group(2))
    return firsts


def reexports(lib, modules):
    """Names `lib.rs` re-exports from the library's modules, each with the
    module it comes from (a name also re-exported from another crate, as
    the derive `Partial` is, is still the module's)."""
    names = {}
    for m in re.finditer(r"pub\s+use\s+(\w+)((?:::\w+)*)::(\{[^}]*\}|\w+)", lib):
        module, items = m.group(1), m.group(3).strip("{}")
        if module not in modules:
            continue
        for item in items.split(","):
            alias = re.match(r"\s*(\w+)(\s+as\s+(\w+))?", item)
            if alias:
                names[alias.group(3) or alias.group(1)] = module
    return names


def graph(root=ROOT):
    """Each module, with each module it imports and the first file that
    does."""
    with open(os.path.join(root, "lib.rs")) as f:
        lib = strip_comments(f.read())
    modules = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", lib, re.M))
    names = reexports(lib, modules)
    edges = {m: {} for m in modules}
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            src, depth = module_of(path, root)
            if src not in modules:
                continue
            with open(path) as f:
                code = drop_test_modules(strip_comments(f.read()))
            for first in crate_paths(code, depth):
                target = first if first in modules else names.get(first)
                if target and target != src:
                    shown = os.path.relpath(path, os.path.join(root, ".."))
                    edges[src].setdefault(target, shown)
    return edges


def components(edges):
    """Each strongly connected component of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def shortest_path(edges, members, start, goal):
    """A shortest path from `start` to `goal` inside `members`."""
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        if v == goal:
            path = [v]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            return list(reversed(path))
        for w in sorted(edges[v]):
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def circles(edges):
    """For each component: its modules, and a shortest cycle through each
    of its imports (every import in a circle is on one), each cycle once."""
    out = []
    for comp in components(edges):
        members = set(comp)
        cycles = []
        for a in comp:
            for b in sorted(edges[a]):
                if b not in members:
                    continue
                cyc = [a] + shortest_path(edges, members, b, a)
                # The same cycle from another start is not shown again.
                k = cyc.index(min(cyc[:-1]))
                canon = cyc[k:-1] + cyc[:k] + [cyc[k]]
                if canon not in cycles:
                    cycles.append(canon)
        out.append((comp, cycles))
    return out


def check(edges, say=print):
    """Says what is wrong; `True` when nothing is."""
    ok = True
    for comp, cycles in circles(edges):
        ok = False
        say(f"import circle among {', '.join(comp)}:")
        for cyc in cycles:
            say("  " + " -> ".join(cyc))
            for a, b in zip(cyc, cyc[1:]):
                say(f"      {a} -> {b}  ({edges[a][b]})")
    for m in sorted(edges):
        if m not in ABOVE_ENGINE and "schema" in edges[m]:
            ok = False
            say(f"the engine imports schema: {m} -> schema  ({edges[m]['schema']})")
    return ok


def self_test():
    """The checker on small made-up crates: a circle through a `use`, a
    re-exported name, a group, `super::`, and imports it must not count
    (comments, strings, test modules, paths inside one module)."""
    import tempfile

    def crate(files):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                path = os.path.join(root, "src", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            return graph(os.path.join(root, "src"))

    lib = "mod a;\nmod b;\nmod c;\npub use b::Thing;\npub use other::Thing as Other;\n"
    cases = [
        # (files besides lib.rs, the modules in a circle)
        ({"a.rs": "use crate::b::X;", "b.rs": "use crate::a::Y;", "c.rs": ""}, ["a", "b"]),
        ({"a.rs": "fn f() -> crate::Thing {}", "b/mod.rs": "use crate::{c, a::Y};",
          "c.rs": ""}, ["a", "b"]),
        ({"a.rs": "use super::b::X;", "b/x.rs": "use super::super::c::Z;",
          "c.rs": "use crate::{\n    d::Q,\n    b::{self, x},\n};"}, ["b", "c"]),
        ({"a.rs": "use crate::b::X;", "b.rs": "use crate::c::Z;", "c.rs": "use crate::a::Y;"},
         ["a", "b", "c"]),
        ({"a.rs": "use crate::b::X;", "b.rs": "use crate::c::Z;", "c.rs": ""}, None),
        ({"a.rs": "use crate::b::X;",
          "b.rs": "// crate::a::Y\n/* crate::a::Y */\nconst S: &str = \"crate::a::Y\";\n"
                  "const R: &str = r#\"crate::a::\"Y\"#;\nconst Q: char = '\"';\n"
                  "fn f<'a>(x: &'a str) {}\n"
                  "#[cfg(test)]\nmod tests {\n    use crate::a::Y;\n    fn g() { let _ = '}'; }\n}\n"
                  "mod inner { use super::super::c::Z; use super::Local; }",
          "c.rs": ""}, None),
        ({"a.rs": "", "b.rs": "use crate::c::Z;", "c.rs": "macro_rules! m { () => { $crate::b::X } }"},
         ["b", "c"]),
    ]
    failed = 0
    for files, want in cases:
        edges = crate({"lib.rs": lib, **files})
        got = [comp for comp, _ in circles(edges)]
        if got != ([want] if want else []):
            failed += 1
            print(f"self-test failed: {sorted(files)}: want {want}, got {got}; graph {edges}")
    if "b" in crate({"lib.rs": lib, "a.rs": "use crate::Other;", "b.rs": "", "c.rs": ""})["a"]:
        failed += 1
        print("self-test failed: a name re-exported from another crate counted")
    print(f"self-test: {len(cases) + 1 - failed} of {len(cases) + 1} passed")
    return 1 if failed else 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    edges = graph()
    if "--graph" in sys.argv:
        for m in sorted(edges):
            print(f"{m} -> {' '.join(sorted(edges[m])) or '(nothing)'}")
        return 0
    ok = True
    if "--strict" not in sys.argv:
        for (a, b), why in sorted(KNOWN.items()):
            if b not in edges.get(a, {}):
                ok = False
                print(f"{a} -> {b} is listed as known but is gone: take it off KNOWN")
                continue
            print(f"known, left out: {a} -> {b}  ({edges[a][b]}): {why}")
            del edges[a][b]
    if not check(edges) or not ok:
        return 1
    print(f"no import circles among {len(edges)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
