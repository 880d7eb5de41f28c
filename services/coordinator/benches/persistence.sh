#!/bin/bash
# Persistence overhead: the same batch (PROBLEMS of solveallfoe.pts, default 1-2,
# all 184,756 layouts each) through a coordinator without and with --data-dir,
# RUNS times each, alternating; a fresh worker (2 threads) every run, since a
# worker's tables remember what they solved. Prints seconds per run and the
# store's size. Build first: cargo build --release -p coordinator -p preferans-worker -p deckhand-cli
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=target/release
FILE=services/cli/problems/solveallfoe.pts
PROBLEMS=${PROBLEMS:-1-2}
RUNS=${RUNS:-3}
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT

run() { # $1: extra coordinator flags
  $B/preferans-worker --listen 127.0.0.1:58054 --threads 2 >/dev/null 2>&1 &
  local worker=$!
  # shellcheck disable=SC2086
  $B/coordinator --listen 127.0.0.1:58055 --workers 127.0.0.1:58054 $1 >/dev/null 2>&1 &
  local coordinator=$!
  sleep 1
  local t0 t1 id
  t0=$(date +%s.%N)
  id=$($B/deckhand preferans batch submit $FILE --problems "$PROBLEMS" --coordinator 127.0.0.1:58055)
  $B/deckhand preferans batch wait "$id" --coordinator 127.0.0.1:58055 >/dev/null
  t1=$(date +%s.%N)
  kill $coordinator $worker
  wait $coordinator $worker 2>/dev/null || true
  echo "$t1 - $t0" | bc
}

for i in $(seq "$RUNS"); do
  rm -rf "$DATA/store"
  memory=$(run "")
  disk=$(run "--data-dir $DATA/store")
  echo "run $i: memory ${memory}s, --data-dir ${disk}s, store $(du -k "$DATA/store/coordinator.redb" | cut -f1) KiB"
done
