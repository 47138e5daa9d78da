#!/usr/bin/env bash
# The declared MSRV (`rust-version`) of each crate, checked against what its
# locked dependencies declare. No other toolchain can be installed where CI
# runs, so instead of building on the MSRV this reads Cargo.lock through
# `cargo metadata` and, for each crate of the workspace, walks its normal and
# build dependencies (not dev-dependencies: a user never builds those) with
# its default features, and fails if any of them needs a newer compiler than
# the crate declares. A dependency's need is its own `rust-version`, or what
# its edition needs (2024: 1.85, 2021: 1.56) when that is more: cargo
# cannot read the manifest of an edition newer than it knows.
#
# The optional features of the library may need more, with the versions
# Cargo.lock holds: each is printed, and checked against the table below,
# which the README repeats ("Minimum Rust version"); so a `cargo update`
# that raises one fails here until the README says so.
#
# Also printed, not checked: what the tests need (the dev-dependencies).
#
# The crates' own code is held to their rust-version by clippy's
# `incompatible_msrv` lint (a std item newer than it is a warning, an error
# under CI's -D warnings); a language feature newer than it is not checked.
#
# Needs python3 (for the JSON) besides cargo.
set -euo pipefail
cd "$(dirname "$0")/.."

# feature -> the rust-version its locked dependencies need, as documented.
documented="futures=1.82 chrono=1.82 time=1.88 uuid=1.89 rust_decimal=1.82 url=1.88 schema=1.82"

metadata() {
    cargo metadata --format-version 1 --locked "$@"
}

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
metadata >"$dir/default.json"
features=()
for pair in $documented; do
    feature=${pair%%=*}
    metadata --features "$feature" >"$dir/$feature.json"
    features+=("$feature=$dir/$feature.json")
done

python3 - "$dir/default.json" "$documented" "${features[@]}" <<'EOF'
import json, sys

EDITION = {"2015": (1, 0), "2018": (1, 31), "2021": (1, 56), "2024": (1, 85)}


def version(text):
    """`1.82` or `1.67.1` as a comparable tuple of its first two numbers."""
    if not text:
        return (0, 0)
    major, minor = text.split(".")[:2]
    return (int(major), int(minor))


def show(v):
    return f"{v[0]}.{v[1]}"


def needs(package):
    """The compiler a package needs: its rust-version, or its edition's."""
    return max(version(package.get("rust_version")), EDITION.get(package["edition"], (0, 0)))


def closure(meta, root, kinds):
    """The packages `root` depends on through edges of `kinds`, then
    through normal and build edges (a dev-dependency's own dev-dependencies
    are never built)."""
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    seen, todo = set(), [(root, kinds)]
    while todo:
        at, wanted = todo.pop()
        for dep in nodes[at]["deps"]:
            if not any(k["kind"] in wanted for k in dep["dep_kinds"]):
                continue
            if dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                todo.append((dep["pkg"], (None, "build")))
    return [packages[i] for i in sorted(seen)]


def members(meta):
    packages = {p["id"]: p for p in meta["packages"]}
    return [packages[i] for i in meta["workspace_members"]]


def worst(deps):
    top = max((needs(p) for p in deps), default=(0, 0))
    return top, sorted(f"{p['name']} {p['version']} ({show(needs(p))})" for p in deps if needs(p) == top)


failed = False
default = json.load(open(sys.argv[1]))
documented = dict(pair.split("=") for pair in sys.argv[2].split())
library = None
for crate in members(default):
    declared = version(crate.get("rust_version"))
    if crate["name"] == "serde_llm":
        library = crate
    if declared == (0, 0):
        print(f"FAIL {crate['name']}: no rust-version declared")
        failed = True
        continue
    deps = closure(default, crate["id"], (None, "build"))
    over = [p for p in deps if needs(p) > declared]
    top, which = worst(deps)
    if over:
        failed = True
        print(f"FAIL {crate['name']} declares rust-version {show(declared)}, but these need more:")
        for p in sorted(over, key=needs, reverse=True):
            print(f"       {p['name']} {p['version']} needs {show(needs(p))}")
    else:
        print(f"ok   {crate['name']} {show(declared)}: its {len(deps)} dependencies need at most {show(top)} ({', '.join(which)})")
    tests, which = worst(closure(default, crate["id"], ("dev",)))
    if tests > declared:
        print(f"     {crate['name']}'s tests need {show(tests)} ({', '.join(which)})")

declared = version(library["rust_version"])
for arg in sys.argv[3:]:
    feature, path = arg.split("=", 1)
    meta = json.load(open(path))
    top, which = worst(closure(meta, library["id"], (None, "build")))
    need = max(top, declared)
    said = version(documented[feature])
    mark = "ok  " if need == said else "FAIL"
    failed |= need != said
    note = "" if need == said else f" (documented: {show(said)}; update README and .ci/msrv.sh)"
    extra = f": {', '.join(which)}" if top > declared else ""
    print(f"{mark} feature {feature} needs {show(need)}{extra}{note}")

sys.exit(1 if failed else 0)
EOF
