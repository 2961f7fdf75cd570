#!/usr/bin/env bash
# How honest the cost contracts are on this machine (issue 38,
# docs/contract.md): runs the `contract` bench RUNS times (default 20) and
# counts, per function, the runs whose annotation held. The right
# annotations (qsort, inc, nop) should hold in at least 19 of 20 runs; the
# sort annotated linear (qsort_linear) should fail in 20 of 20. Prints the
# machine's load before and after, since the figures depend on it.
# ATTEMPTS (default 3) is how many measurements a failing verdict gets
# (Contract::attempts); 1 shows what one measurement alone gives.
#
#   bash scripts/contract_honesty.sh [RUNS] [ATTEMPTS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
export CONTRACT_ATTEMPTS=${2:-3}
exe=$(cargo bench --bench contract --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
[ -x "$exe" ] || { echo "could not build the contract bench" >&2; exit 2; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $CONTRACT_ATTEMPTS attempt(s) per check"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$runs"); do
  # The bench exits with 1 when a verdict is not as meant; count anyway.
  "$exe" --bench >>"$out" 2>/dev/null || true
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "function      held  failed  held-after-a-retry  (of $runs runs)"
for f in qsort inc nop qsort_linear; do
  held=$(grep -c "^cost contract of \`$f\`, .*: holds" "$out" || true)
  failed=$(grep -c "^cost contract of \`$f\`, .*: FAILS" "$out" || true)
  again=$(grep -c "^cost contract of \`$f\`, .*: holds (measured" "$out" || true)
  printf '%-13s %4d  %6d  %18d\n' "$f" "$held" "$failed" "$again"
done
echo "breaches of the right annotations, if any:"
awk '/^cost contract of `(qsort|inc|nop)`, .*FAILS/ {show=1; print; next} /^cost contract/ {show=0} show && /^  - / {print}' "$out" | sort | uniq -c | sort -rn | head -20
