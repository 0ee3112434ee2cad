#!/usr/bin/env bash
# The analyses whose targets are set against `kbdata stats` over the same bytes (docs/BENCHMARKS.md):
# `kbdata noise` over a whole data folder (issue 21: at most 2x stats), and `kbdata audit` and
# `kbdata techniques` over the NVFP4-shaped file, each beside its bound (issue 44: the audit within
# 1.5x of its bound, memory constant in the file size; the techniques within 2x of theirs). Each pair is
# one process of each, timed one after the other (wall, user CPU, peak RSS); PAIRS pairs, every
# other one with stats first; the ratio is per pair. Prints one line per run and per pair.
#
#   bench/analysis_bench.sh KBDATA FULL_DIR NVFP4_DIR [PAIRS] [AUDIT_BENCH]
#
# With AUDIT_BENCH (build-bench/bench/audit_bench), also the bounds of the audit and of the
# techniques against the same pairs' stats (docs/BENCHMARKS.md, "The audit's bound"): stats plus the
# two things any implementation of their rules must add, spread over every core: telling strings
# and comments from code (BM_Regions) and finding the rules' words (BM_VocabularyHyperscan,
# BM_TechniquesVocabularyHyperscan: a dedicated matcher, nothing checked), at the rates audit_bench
# measures, over the code bytes stats counts. ONLY_AUDIT=1 leaves noise and techniques out;
# NO_NOISE=1 leaves noise out (the audit and the techniques alone, beside their bounds).
#
# FULL_DIR: `kbdata synth --scale full --seed 1 --out FULL_DIR` (both families, published layout).
# NVFP4_DIR: a folder holding nvidia_nvfp4_submissions.parquet and leaderboards.parquet of the
# `full` flat set (`--family flat --layout published`); other files in it are read too.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 KBDATA FULL_DIR NVFP4_DIR [PAIRS]" >&2
  exit 2
fi
kbdata=$1
full=$2
nvfp4=$3
pairs=${4:-3}
audit_bench=${5:-}
for d in "$full" "$nvfp4"; do
  if [ ! -d "$d" ]; then
    echo "$0: $d is not a folder" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# wall_of NAME CMD... (bench/lib.sh): the command's wall; its line (wall, user CPU, peak RSS) on
# stderr; its output in $work/out.
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
# pairs LABEL DIR ANALYSIS...: PAIRS pairs of the analysis against stats on DIR.
compare() {
  local label=$1 dir=$2
  shift 2
  local i analysis stats
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then
      analysis=$(wall_of "$1" "$kbdata" "$@" --data "$dir")
      stats=$(wall_of stats "$kbdata" stats -f csv --data "$dir")
    else
      stats=$(wall_of stats "$kbdata" stats -f csv --data "$dir")
      analysis=$(wall_of "$1" "$kbdata" "$@" --data "$dir")
    fi
    awk -v l="$label" -v i="$i" -v a="$analysis" -v s="$stats" \
      'BEGIN { printf "%s pair %d: %.2f s against stats %.2f s: %.2fx\n", l, i, a, s, a / s }'
    echo "$stats" >> "$work/stats-$1"
    echo "$analysis" >> "$work/analysis-$1"
  done
}

# rate BENCHMARK: audit_bench's median bytes per second of BENCHMARK over three runs (one
# benchmark per call: the CSV report wants every row to have the same counters).
rate() {
  "$audit_bench" --benchmark_filter="^$1\$" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=csv 2> /dev/null |
    awk -F, '/_median"/ { print $6 }'
}

# bound DIR ANALYSIS BENCHMARK: the analysis' bound against each of its pairs' stats: the regions
# and its rules' words (BENCHMARK, audit_bench's Hyperscan run of its vocabulary); and the
# analysis' time beside its bound (issue 44's targets: audit within 1.5x, techniques within 2x).
# Then what one model per code costs beside the same bound: stats plus source::PythonModel
# (tokens, statements, scopes, bindings; BM_PythonModel/0) of every code spread over every core,
# before any rule reads it (docs/BENCHMARKS.md, "One model per code beside the bound").
bound() {
  local dir=$1 analysis=$2 benchmark=$3 bytes regions vocabulary model cores
  bytes=$("$kbdata" stats -f csv --data "$dir" 2> /dev/null |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "code_bytes") c = i; next }
             { b += $c } END { printf "%.0f", b }')
  regions=$(rate BM_Regions)
  vocabulary=$(rate "$benchmark")
  model=$(rate BM_PythonModel/0)
  cores=$(nproc)
  local i=0 stats took
  while read -r stats took; do
    i=$((i + 1))
    awk -v a="$analysis" -v i="$i" -v s="$stats" -v b="$bytes" -v r="$regions" -v v="$vocabulary" \
      -v n="$cores" -v t="$took" -v m="$model" 'BEGIN { extra = (b / r + b / v) / n
               printf "%s bound pair %d: stats %.2f s + (%.2f s regions at %.2f GB/s + %.2f s " \
                      "vocabulary at %.2f GB/s) / %d cores = %.2f s: %.2fx\n",
                      a, i, s, b / r, r / 1e9, b / v, v / 1e9, n, s + extra, (s + extra) / s
               printf "%s pair %d beside its bound: %.2f s against %.2f s: %.2fx\n",
                      a, i, t, s + extra, t / (s + extra)
               printf "%s pair %d one model per code: stats %.2f s + %.2f s of models at " \
                      "%.0f MB/s / %d cores = %.2f s: %.2fx its bound\n",
                      a, i, s, b / m, m / 1e6, n, s + b / m / n, (s + b / m / n) / (s + extra) }'
  done < <(paste -d' ' "$work/stats-$analysis" "$work/analysis-$analysis")
}

# The files in the page cache before any timing (one untimed stats over each folder).
"$kbdata" stats -f csv --data "$full" > /dev/null 2>&1
"$kbdata" stats -f csv --data "$nvfp4" > /dev/null 2>&1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "${ONLY_AUDIT:-}" ] || [ -n "${NO_NOISE:-}" ] ||
  compare "noise (all of FULL_DIR)" "$full" noise -f csv
compare "audit (NVFP4_DIR)" "$nvfp4" audit -f csv
if [ -n "$audit_bench" ]; then bound "$nvfp4" audit BM_VocabularyHyperscan; fi
if [ -z "${ONLY_AUDIT:-}" ]; then
  compare "techniques (NVFP4_DIR)" "$nvfp4" techniques -f csv
  if [ -n "$audit_bench" ]; then bound "$nvfp4" techniques BM_TechniquesVocabularyHyperscan; fi
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
