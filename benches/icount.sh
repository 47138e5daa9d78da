#!/bin/bash
# bash benches/icount.sh [repo]: callgrind instruction counts of the decode bench
# paths on the 1 MB documents (benches/README.md), their generation subtracted.
cd "${1:-.}" || exit 1
cargo bench --bench decode --no-run 2>/dev/null >/dev/null
bin=$(ls -t target/release/deps/decode-* | grep -v '\.d$' | head -1)
count() { BENCH_ONCE=$1 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$$.$1 "$bin" 2>&1 | grep -o 'refs: *[0-9,]*' | tr -d ', ' | cut -d: -f2; }
none=$(count none); fn=$(count fenced_none); cn=$(count cut_none)
for p in serde_json valid fenced tolerant messy repair cut; do
  c=$(count $p); base=$none
  [ $p = fenced ] && base=$fn; [ $p = cut ] && base=$cn
  d=$((c-base))
  printf "%-12s %8.2fM\n" $p $(echo "$d/1000000" | bc -l)
done
