#!/usr/bin/env bash
# Measures what the macros add to a build: a crate with 100 #[cost]-annotated
# functions and 50 design! types (plus a budget and a summary) against the
# same 100 functions without annotations. Dependencies are built first; each
# variant is then rebuilt (lib.rs touched) RUNS times, in release and debug,
# and the medians are printed. Usage: scripts/compile_cost.sh [RUNS]
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/compile-cost"
mkdir -p "$work"

make_crate() { # name annotated(0/1)
  local dir="$work/$1"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
pattern-core = { path = "$root/pattern-core" }

[workspace]
TOML
  {
    echo "#![allow(dead_code)]"
    [ "$2" = 1 ] && echo "use pattern_core::{cost, cost_budget, cost_summary, design};"
    for i in $(seq 0 99); do
      case $((i % 4)) in
        0) model="$((i + 1)).5 * x * log2(x)" ;;
        1) model="$((i + 3)) * x + 12.25" ;;
        2) model="0.$((i + 1)) * x^(2/3) + $((i * 7))" ;;
        3) model="$((i + 2))e3" ;;
      esac
      [ "$2" = 1 ] && echo "#[cost(\"$model\")]"
      echo "pub fn f$i(v: &mut [i32]) { v.iter_mut().for_each(|e| *e = e.wrapping_add($i)); }"
    done
    if [ "$2" = 1 ]; then
      for j in $(seq 0 49); do
        a=$((j * 2)); b=$((j * 2 + 1)); c=$(((j * 7) % 100))
        case $((j % 3)) in
          0) term="pipe(tpool[$((j % 8 + 1))](f$a), f$b, f$c)" ;;
          1) term="tpool[$((j % 4 + 1))](seq(f$a, f$b))" ;;
          2) term="seq(pipe(f$a, f$b), tpool[n](f$c))" ;;
        esac
        echo "design!(pub type D$j = $term);"
      done
      echo "cost_budget!(D0, x = 1e6, max = 1e30);"
      echo "cost_summary! { pub const SUMMARY = [D0, D1, D3] at x = [1024, 1e6]; }"
    fi
  } > "$dir/src/lib.rs"
}

make_crate cost_annotated 1
make_crate cost_plain 0

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for profile in debug release; do
  flag=""; [ "$profile" = release ] && flag="--release"
  for name in cost_annotated cost_plain; do
    (cd "$work/$name" && CARGO_TARGET_DIR="$work/target-$name" cargo build -q $flag)
    times=()
    for _ in $(seq "$runs"); do
      touch "$work/$name/src/lib.rs"
      start=$(date +%s.%N)
      (cd "$work/$name" && CARGO_TARGET_DIR="$work/target-$name" cargo build -q $flag)
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    printf '%s\n' "${times[@]}" | median > "$work/$name-$profile.median"
  done
  a=$(cat "$work/cost_annotated-$profile.median"); p=$(cat "$work/cost_plain-$profile.median")
  printf '%-8s annotated %.2f s, plain %.2f s, added %.2f s (medians of %d rebuilds)\n' \
    "$profile" "$a" "$p" "$(echo "$a - $p" | bc)" "$runs"
done
