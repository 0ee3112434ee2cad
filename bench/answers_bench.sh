#!/usr/bin/env bash
# Every command whose answer the one writer of tables renders (report::Writer, issue 46), timed as
# a user runs it on the `medium` synthetic set (`kbdata synth --scale medium --seed 3 --family
# both --layout kbdata`, the goldens' set: ~20 problems of both schema families), against the
# same command of BASELINE, a kbdata built from an older commit (docs/BENCHMARKS.md, "The
# answers"): the question is whether a change of the output path made any command slower, and by
# how much. Each round runs every command once with each binary, the two in turn (every other
# round the baseline first), after one untimed warm-up of each; the medians of the rounds and
# their ratio (this / baseline) are printed per command. Without BASELINE only this binary's
# times are printed: the peer comparisons with DuckDB are duckdb_compare's and the other scripts'.
#
#   bench/answers_bench.sh KBDATA [ROUNDS]        (ROUNDS: 5)
#   BASELINE=/tmp/old/build/kbdata bench/answers_bench.sh KBDATA
#
# DATA=FOLDER uses a medium set already made (else it is made in the work folder, ~10 s).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: [BASELINE=OLD_KBDATA] $0 KBDATA [ROUNDS]" >&2
  exit 2
fi
kbdata=$1
rounds=${2:-5}
baseline=${BASELINE:-}
for bin in "$kbdata" $baseline; do
  if [ ! -x "$bin" ]; then
    echo "$0: $bin is not an executable" >&2
    exit 2
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KBDATA_PROGRESS=never

BENCH_NAME_WIDTH=22
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
outputs=$work/outputs
after_run() { rm -rf "$outputs" && mkdir -p "$outputs"; }
after_run

data=${DATA:-}
if [ -z "$data" ]; then
  data=$work/medium
  "$kbdata" synth --scale medium --seed 3 --family both --layout kbdata --out "$data" > /dev/null
fi
nvfp4=$data/nvidia_nvfp4_submissions.parquet
trimul=$data/trimul_submissions.parquet
for f in "$nvfp4" "$trimul"; do
  if [ ! -f "$f" ]; then
    echo "$0: $f is missing (DATA must be a medium set of both families, kbdata layout)" >&2
    exit 2
  fi
done

# The commands, NAME then the arguments after the binary. Each renders its answer (or its file's
# rows, its summary, its manifest) through report::Writer.
commands=(
  "top|top --data $data -p nvfp4_gemm -n 0"
  "top -f json|top --data $data -p nvfp4_gemm -n 0 -f json"
  "stats|stats --data $data"
  "stats -f csv|stats --data $data -f csv"
  "records -f json|records --data $data -p trimul -f json"
  "progression -f json|progression --data $data --user _trida -p nvfp4_gemm -f json"
  "fastest -f json|fastest --data $data -p nvfp4_gemm -f json"
  "noise -f json|noise --data $data -f json"
  "tasks -f json|tasks --data $data -f json"
  "audit -f jsonl|audit --data $data -f jsonl"
  "techniques -f jsonl|techniques --data $data -f jsonl"
  "configs -f json|configs --data $data -f json"
  "submissions -f parquet|submissions --data $data -f parquet -o $outputs/s.parquet"
  "cat -f csv|cat $nvfp4 -f csv"
  "cat -f jsonl|cat $nvfp4 -f jsonl"
  "inspect --json|inspect $nvfp4 --json"
  "pairs .jsonl|pairs --data $data --out $outputs/p.jsonl"
  "pairs .parquet|pairs --data $data --out $outputs/p.parquet"
  "pairs --format chat|pairs --data $data --format chat --out $outputs/c.jsonl"
  "dedup --exact|dedup $nvfp4 $outputs/d.parquet --exact"
  "dedup --fuzzy|dedup $trimul $outputs/d.parquet --fuzzy"
  "extract --all|extract --data $data -p trimul --all --out $outputs/x"
)

echo "== answers_bench: the commands of the one table writer on the medium set ($(du -sh "$data" | cut -f1))"
if [ -n "$baseline" ]; then
  echo "this: $kbdata ($("$kbdata" --version)); baseline: $baseline ($("$baseline" --version))"
else
  echo "this: $kbdata ($("$kbdata" --version)); no BASELINE: times only"
fi
printf '%-24s %12s %12s %8s\n' command "baseline s" "this s" ratio > "$work/table"
for entry in "${commands[@]}"; do
  name=${entry%%|*}
  read -r -a args <<< "${entry#*|}"
  bins=("$kbdata")
  [ -n "$baseline" ] && bins+=("$baseline")
  for bin in "${bins[@]}"; do run warm-up "$bin" "${args[@]}"; done
  : > "$work/this" && : > "$work/base"
  for ((i = 1; i <= rounds; ++i)); do
    order=(this base)
    [ $((i % 2)) -eq 0 ] && order=(base this)
    for who in "${order[@]}"; do
      if [ "$who" = this ]; then
        wall_of "$name" "$kbdata" "${args[@]}" >> "$work/this"
      elif [ -n "$baseline" ]; then
        wall_of "$name (baseline)" "$baseline" "${args[@]}" >> "$work/base"
      fi
    done
  done
  this_s=$(median < "$work/this")
  if [ -n "$baseline" ]; then
    base_s=$(median < "$work/base")
    printf '%-24s %12s %12s %8s\n' "$name" "$base_s" "$this_s" "$(ratio "$this_s" "$base_s")" \
      >> "$work/table"
  else
    printf '%-24s %12s %12s %8s\n' "$name" - "$this_s" - >> "$work/table"
  fi
done
echo "medians of $rounds rounds (wall seconds); ratio: this / baseline; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$work/table"
