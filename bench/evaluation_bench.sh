#!/usr/bin/env bash
# `kbdata place` and `kbdata tasks` over the NVFP4-shaped file (docs/evaluation.md), each against
# the simplest thing a user would do instead, one DuckDB statement through its C API
# (bench/duckdb_query): the rank of each score among the users' best qualifying scores, and per
# (leaderboard, runner) the users and the quantiles of their bests, without epochs, deadlines,
# noise or notes; and against the command's own bound, the passes it cannot avoid, run as the
# commands that make them: for place, a ranking of the problem's runner (`kbdata top`, the
# qualifying rows) and the noise of the problem (`kbdata noise -p`, every row with its code); for
# tasks, `kbdata stats` (every row) and `kbdata noise` of the whole file. Each round runs every
# command one after the other (wall, user CPU, peak RSS), every other round in the reverse order;
# the ratios are per round.
#
#   bench/evaluation_bench.sh KBDATA DUCKDB_QUERY NVFP4_DIR [ROUNDS]
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run, wall_of: bench/lib.sh (wall, user CPU and peak RSS of one run); the outputs removed after.
BENCH_NAME_WIDTH=12
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
after_run() { rm -f "$work"/*.jsonl "$work"/*.md; }

problem=nvfp4_gemm
runner=NVIDIA
qualifying="passed AND score > 0 AND isfinite(score) AND status <> 'hacked'"
place_sql="WITH best AS (
    SELECT user_id, min(score) AS s FROM read_parquet('$file')
    WHERE problem_name = '$problem' AND runner = '$runner' AND $qualifying GROUP BY user_id)
  SELECT x.score, (SELECT count(*) FROM best WHERE s < x.score) + 1 AS rank,
         (SELECT count(*) FROM best) AS users
  FROM (VALUES (2e-05), (1.2e-05)) x(score)"
tasks_sql="WITH best AS (
    SELECT leaderboard_id, problem_name, runner, user_id, min(score) AS s,
           min(submission_time) AS first_submission, max(submission_time) AS last_submission
    FROM read_parquet('$file') WHERE $qualifying GROUP BY ALL)
  SELECT leaderboard_id, problem_name, runner, count(*) AS users, min(s) AS record,
         quantile_cont(s, [0.25, 0.5, 0.75]) AS quartiles, min(first_submission),
         max(last_submission)
  FROM best GROUP BY ALL ORDER BY leaderboard_id, runner"

# The file in the page cache before any timing.
"$kbdata" stats -f csv --data "$nvfp4" > /dev/null 2>&1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "place and tasks vs DuckDB and their bounds on $file, $rounds rounds" >&2
for ((i = 1; i <= rounds; ++i)); do
  order=(place duckdb-place top noise-p tasks duckdb-tasks stats noise)
  if ((i % 2 == 0)); then order=(noise stats duckdb-tasks tasks noise-p top duckdb-place place); fi
  declare -A wall=()
  for what in "${order[@]}"; do
    case $what in
      place) wall[$what]=$(wall_of "$what" "$kbdata" place --data "$nvfp4" -p "$problem" \
        --runner "$runner" 20us 1.2e-05 -f csv) ;;
      duckdb-place) wall[$what]=$(wall_of "$what" "$duckdb_query" "$place_sql") ;;
      top) wall[$what]=$(wall_of "$what" "$kbdata" top --data "$nvfp4" -p "$problem" \
        --runner "$runner" -n 0 -f csv) ;;
      noise-p) wall[$what]=$(wall_of "$what" "$kbdata" noise --data "$nvfp4" -p "$problem" -f csv) ;;
      tasks) wall[$what]=$(wall_of "$what" "$kbdata" tasks --data "$nvfp4" --out "$work/t.jsonl") ;;
      duckdb-tasks) wall[$what]=$(wall_of "$what" "$duckdb_query" "$tasks_sql") ;;
      stats) wall[$what]=$(wall_of "$what" "$kbdata" stats --data "$nvfp4" -f csv) ;;
      noise) wall[$what]=$(wall_of "$what" "$kbdata" noise --data "$nvfp4" -f csv) ;;
    esac
  done
  awk -v p="${wall[place]}" -v dp="${wall[duckdb-place]}" -v t="${wall[top]}" \
    -v np="${wall[noise-p]}" -v k="${wall[tasks]}" -v dk="${wall[duckdb-tasks]}" \
    -v s="${wall[stats]}" -v n="${wall[noise]}" -v i="$i" 'BEGIN {
      printf "round %d: place %.2f s = %.2fx the DuckDB statement (%.2f s), %.2fx its bound " \
             "(top %.2f s + noise -p %.2f s)\n", i, p, p / dp, dp, p / (t + np), t, np
      printf "round %d: tasks %.2f s = %.2fx the DuckDB statement (%.2f s), %.2fx its bound " \
             "(stats %.2f s + noise %.2f s)\n", i, k, k / dk, dk, k / (s + n), s, n }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
