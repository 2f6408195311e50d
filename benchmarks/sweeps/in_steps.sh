#!/bin/bash
# Run a committed sweep in steps of `limit`, committing the run store after each
# step, so that a long embedded-model sweep (hours on 2 cores) survives a stop:
#   benchmarks/sweeps/in_steps.sh MATRIX OUTDIR START STEP MAX [veriplan bench args...]
# e.g. benchmarks/sweeps/in_steps.sh src/veriplan/methods/sqbcp/sweeps/sqbcp_results.toml results/sqbcp-qwen 25 4 50
# Finished units are kept (bench resumes). EXTRA, if set, is appended to the sweep
# file (e.g. a [[configs]] table). The model runs under `flock $LOCK` (one model at a
# time); while the file $PAUSE exists no new step starts. VERIPLAN_DATA names the data.
set -u
MATRIX=$1; OUT=$2; START=$3; STEP=$4; MAX=$5; shift 5
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
LOCK=${LOCK:-/tmp/veriplan-model.lock}; PAUSE=${PAUSE:-/tmp/sweep-pause}
PY=.venv/bin/python
CHUNK=$(mktemp --suffix=.toml)
L=$START
while :; do
  while [ -e "$PAUSE" ]; do sleep 20; done
  [ "$L" -gt "$MAX" ] && L=$MAX
  sed -E "s/^limit = [0-9]+/limit = $L/" "$MATRIX" > "$CHUNK"
  [ -n "${EXTRA:-}" ] && printf '%s\n' "$EXTRA" >> "$CHUNK"
  echo "== $(date +%T) $MATRIX limit=$L"
  flock "$LOCK" nice -n 5 .venv/bin/veriplan bench --matrix "$CHUNK" \
      --data-dir "${VERIPLAN_DATA:?set VERIPLAN_DATA to the data folder}" --out "$OUT" "$@"
  echo "bench rc=$?"
  N=$($PY - "$OUT/runs.sqlite" <<'PYEOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("pragma wal_checkpoint(TRUNCATE)")
print(con.execute("select count(*) from units").fetchone()[0])
con.close()
PYEOF
)
  for _ in 1 2 3 4 5; do
    git add "$OUT/runs.sqlite" && git commit -q \
      -m "results: $(basename "$OUT") run store, $N units (sweep continues)" -- "$OUT/runs.sqlite" && break
    sleep 3
  done
  echo "== committed $N units"
  [ "$L" -ge "$MAX" ] && break
  L=$((L + STEP))
done
rm -f "$CHUNK"
echo "== $MATRIX done to limit $MAX"
