#!/usr/bin/env bash
# What a user's `cargo add pattern-core` costs: a fresh crate holding the
# README's compile-time example (`#[cost]`, `design!`, `cost_budget!`),
# built in release from an empty target directory against one or more
# checkouts of the workspace, one after another in the same run.
# Prints, per checkout, the crates in the default dependency tree
# (`cargo tree -e normal`, deduplicated, the user's crate left out) and the
# build's wall time, the median of RUNS clean builds.
#
#   bash scripts/default_build.sh [RUNS] WORKSPACE...
set -euo pipefail
runs=${1:-1}
shift
[ $# -ge 1 ] || { echo "usage: $0 [RUNS] WORKSPACE..." >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for ws in "$@"; do
  ws=$(cd "$ws" && pwd)
  dir="$scratch/user-$(basename "$ws")"
  mkdir -p "$dir/src"
  printf '[package]\nname = "user"\nversion = "0.1.0"\nedition = "2024"\n\n[dependencies]\npattern-core = { path = "%s/pattern-core" }\n\n[workspace]\n' \
    "$ws" > "$dir/Cargo.toml"
  cat > "$dir/src/main.rs" <<'RS'
use pattern_core::prelude::*;

#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) { v.sort_unstable() }

#[cost("536.185 * x")]
fn inc(v: &mut [i32]) { v.iter_mut().for_each(|e| *e += 1) }

design!(pub type Sorter = pipe(tpool[4](qsort), inc));

cost_budget!(Sorter, x = 1e6, max = 6e9);

fn main() {
    let mut v = vec![3, 1, 2];
    qsort(&mut v);
    inc(&mut v);
    println!("{}", Sorter::model());
    let d = design!(tpool[n](seq(qsort, inc)));
    println!("{}", d.model());
}
RS
  (
    cd "$dir"
    # The newest versions the manifests allow, as `cargo add` resolves them.
    CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=allow cargo generate-lockfile --quiet
    crates=$(cargo tree -e normal --prefix none | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | grep -vc '^user ')
    times=()
    for _ in $(seq "$runs"); do
      rm -rf target
      start=$(date +%s.%N)
      cargo build --release --quiet
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    ./target/release/user >/dev/null
    med=$(printf '%s\n' "${times[@]}" | median)
    printf '%s: %s crates in the default tree, release build %.1f s (median of %s: %s)\n' \
      "$ws" "$crates" "$med" "$runs" "${times[*]}"
  )
done
