#!/usr/bin/env bash
# `kbdata pairs` over the NVFP4-shaped file against `kbdata dedup --fuzzy` on the same file (issue
# 22: at most 2x its time, memory bounded), and against the simplest thing a user would do instead:
# one DuckDB statement (through its C API, bench/duckdb_query) that pairs each user's consecutive
# new bests per (leaderboard, user, runner) with both codes into JSON Lines, without lineages,
# noise, no-change test or diffs. Each round runs the three one after the other (wall, user CPU,
# peak RSS), every other round in the reverse order; the ratios are per round.
#
#   bench/pairs_bench.sh KBDATA DUCKDB_QUERY NVFP4_DIR [ROUNDS]
#
# NVFP4_DIR: a folder holding nvidia_nvfp4_submissions.parquet and leaderboards.parquet of the
# `full` flat set (`make bench` makes build/bench-data/nvfp4).
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 KBDATA DUCKDB_QUERY NVFP4_DIR [ROUNDS]" >&2
  exit 2
fi
kbdata=$1
duckdb_query=$2
nvfp4=$3
rounds=${4:-3}
file=$nvfp4/nvidia_nvfp4_submissions.parquet
if [ ! -f "$file" ]; then
  echo "$0: $file is missing" >&2
  exit 2
fi

# The outputs are as large as the input: on the disk beside the bench data, not in a tmpfs.
work=$(mktemp -d "$(dirname "$nvfp4")/pairs-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run, wall_of: bench/lib.sh (wall, user CPU and peak RSS of one run); the outputs removed after.
BENCH_NAME_WIDTH=8
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
after_run() { rm -f "$work"/*.jsonl "$work"/*.parquet "$work"/*.md; }

sql="COPY (
  WITH v AS (
    SELECT leaderboard_id, user_id, runner, submission_id, submission_time, score, code
    FROM read_parquet('$file')
    WHERE passed AND score > 0 AND isfinite(score) AND status <> 'hacked' AND code <> ''),
  b AS (
    SELECT *, min(score) OVER (PARTITION BY leaderboard_id, user_id, runner
                               ORDER BY submission_time, submission_id
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS best_before
    FROM v),
  n AS (SELECT * FROM b WHERE best_before IS NULL OR score < best_before),
  p AS (
    SELECT *, lag(submission_id) OVER w AS baseline_submission_id, lag(score) OVER w AS baseline_score,
              lag(code) OVER w AS baseline_code
    FROM n WINDOW w AS (PARTITION BY leaderboard_id, user_id, runner
                        ORDER BY submission_time, submission_id))
  SELECT leaderboard_id, user_id, runner, baseline_submission_id, submission_id AS improved_submission_id,
         baseline_score, score AS improved_score, baseline_score / score AS speedup,
         baseline_code, code AS improved_code
  FROM p WHERE baseline_submission_id IS NOT NULL
) TO '$work/duckdb.jsonl' (FORMAT json)"

echo "pairs vs dedup --fuzzy and DuckDB on $file, $rounds rounds" >&2
for ((i = 1; i <= rounds; ++i)); do
  order=(pairs dedup duckdb)
  if ((i % 2 == 0)); then order=(duckdb dedup pairs); fi
  declare -A wall=()
  for what in "${order[@]}"; do
    case $what in
      pairs) wall[pairs]=$(wall_of pairs "$kbdata" pairs --data "$nvfp4" --out "$work/p.jsonl") ;;
      dedup) wall[dedup]=$(wall_of dedup "$kbdata" dedup "$file" "$work/d.parquet" --fuzzy) ;;
      duckdb) wall[duckdb]=$(wall_of duckdb "$duckdb_query" "$sql") ;;
    esac
  done
  awk -v p="${wall[pairs]}" -v d="${wall[dedup]}" -v q="${wall[duckdb]}" -v i="$i" \
    'BEGIN { printf "round %d: pairs %.2f s = %.2fx dedup --fuzzy (%.2f s), %.2fx the DuckDB statement (%.2f s)\n", i, p, p / d, d, p / q, q }'
done
