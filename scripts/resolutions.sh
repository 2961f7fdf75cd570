#!/usr/bin/env bash
# Builds pattern-core against the newest and the oldest versions its
# Cargo.toml allows, with default features, none, each alone and all, in a scratch copy of
# the workspace (the repository's Cargo.lock is not touched), and builds a new
# user crate that depends on pattern-core as `cargo add` would.
#
#   bash scripts/resolutions.sh [scratch-dir]
#
# "Newest" ignores the workspace's rust-version when resolving, as a user on
# a newer toolchain gets. "Oldest" takes the lowest version of every direct
# dependency (transitive ones newest): `cargo update -Z
# direct-minimal-versions`, an unstable flag that stable cargo accepts under
# RUSTC_BOOTSTRAP=1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${1:-$root/target/resolutions}"
rm -rf "$scratch/workspace" "$scratch/user" "$scratch/target"
mkdir -p "$scratch/workspace"
# Three builds of the dependency tree do not fit a small disk at once: the
# scratch directory goes when the script ends, however it ends.
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR="$scratch/target"

# Tracked files only (what a clone has), without the lockfile.
(cd "$root" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$scratch/workspace"
cd "$scratch/workspace"
rm -f Cargo.lock

echo "== newest versions the manifests allow"
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=allow cargo generate-lockfile --quiet
grep -A1 -E '^name = "(proptest|rand|serde|syn|criterion)"$' Cargo.lock | grep -o '"[^"]*"' | paste - - | sed 's/^/   /'
cargo build --quiet -p pattern-core --no-default-features
cargo build --quiet -p pattern-core --all-features
# Each feature alone compiles: a module gated by one feature uses no other's.
for feature in macros queueing calibrate sim fit measure exec explore plots proptest paper; do
  cargo check --quiet -p pattern-core --no-default-features --features "$feature"
done
cargo test --quiet -p pattern-core -p pattern-expr -p pattern-design --lib

echo "== a new crate that depends on pattern-core (cargo add)"
# Written by hand rather than with `cargo new`, which would join the
# enclosing workspace when the scratch directory lies inside this one.
mkdir -p "$scratch/user/src"
printf '[package]\nname = "user"\nversion = "0.1.0"\nedition = "2024"\n\n[dependencies]\n\n[workspace]\n' \
  > "$scratch/user/Cargo.toml"
(
  cd "$scratch/user"
  cat > src/main.rs <<'RS'
use pattern_core::prelude::*;

fn main() {
    let design = Design::parse("a = 2*x; b = 3*x; pipe(a, b)").expect("a design");
    let at = design.model().eval(&[("x", 10.0)]).expect("a value");
    assert_eq!(at, 30.0);
    println!("pipe(a, b) at x = 10: {at}");
}
RS
  cargo add --quiet --path "$scratch/workspace/pattern-core"
  CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=allow cargo run --quiet
)

echo "== oldest versions the manifests allow (direct dependencies)"
rm -rf "$CARGO_TARGET_DIR"
RUSTC_BOOTSTRAP=1 cargo update --quiet -Z direct-minimal-versions
grep -A1 -E '^name = "(proptest|rand|serde|syn|criterion)"$' Cargo.lock | grep -o '"[^"]*"' | paste - - | sed 's/^/   /'
cargo build --quiet -p pattern-core --no-default-features
cargo build --quiet -p pattern-core --all-features
cargo test --quiet -p pattern-core -p pattern-expr -p pattern-design --lib
echo "== resolutions: all built"
