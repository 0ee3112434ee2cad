#!/usr/bin/env bash
# The Python module against the command line (issue 47): `ds.submissions(code=True).to_pandas()`
# over the NVFP4-shaped file (build/bench-data/nvfp4) in a fresh Python process, against
# `kbdata submissions --with-code -f parquet` of the same rows, and against the simplest thing a
# user does without kbdata: DuckDB reading the same file through its C API (duckdb_query, a COPY
# of every row to a Parquet file: pandas has no Parquet engine on Debian). Wall time, user CPU
# and peak RSS of every run (/usr/bin/time), the DataFrame's own size (memory_usage(deep=True)),
# and per round the ratios: the module's time to the command's, and its peak RSS to the
# DataFrame's size (the issue's bound: at most 1.5x), whole and above the RSS of the interpreter
# with kbdata and pandas imported. ROUNDS (3) rounds after an untimed warm-up.
#
#   bench/python_bench.sh BUILD NVFP4_DIR [ROUNDS] [PYTHON]
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD NVFP4_DIR [ROUNDS] [PYTHON]" >&2
  exit 2
fi
build=$1
data=$2
rounds=${3:-3}
python=${4:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/frame.py" << 'PY'
import sys
import kbdata
df = kbdata.open(sys.argv[1]).submissions(code=True).to_pandas()
print(len(df), int(df.memory_usage(deep=True).sum()))
PY
# The interpreter with kbdata and pandas imported, nothing read: the base of the module's RSS.
cat > "$work/base.py" << 'PY'
import kbdata
import pandas
PY

# run (bench/lib.sh): stdout to $work/out; $run_wall, $run_user and $run_rss (peak KiB).
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

module() { PYTHONPATH="$build/python" run python "$python" "$work/frame.py" "$data"; }
command() { run kbdata "$build/kbdata" submissions --data "$data" --with-code -f parquet \
  -o "$work/rows.parquet"; }
duckdb() { run duckdb "$build/bench/duckdb_query" \
  "COPY (SELECT * FROM read_parquet('$data/nvidia_nvfp4_submissions.parquet')) TO '$work/duck.parquet' (FORMAT parquet)"; }

echo "== python_bench: ds.submissions(code=True).to_pandas() against kbdata submissions --with-code -f parquet"
du -h "$data/nvidia_nvfp4_submissions.parquet"
module > /dev/null  # warm-up: the file in the page cache
PYTHONPATH="$build/python" run base "$python" "$work/base.py"
base_rss=$run_rss
for round in $(seq 1 "$rounds"); do
  module
  read -r rows frame_bytes < "$work/out"
  py_wall=$run_wall py_rss=$run_rss
  command
  cli_wall=$run_wall
  if [ -x "$build/bench/duckdb_query" ]; then duckdb; fi
  printf 'round %d: %s rows, DataFrame %.0f MiB; module/command time %.2fx; module peak RSS / DataFrame %.2fx (%.2fx above the interpreter with pandas)\n' \
    "$round" "$rows" "$(echo "$frame_bytes / 1048576" | bc -l)" \
    "$(echo "$py_wall / $cli_wall" | bc -l)" "$(echo "$py_rss * 1024 / $frame_bytes" | bc -l)" \
    "$(echo "($py_rss - $base_rss) * 1024 / $frame_bytes" | bc -l)"
done
