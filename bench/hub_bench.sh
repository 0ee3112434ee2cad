#!/usr/bin/env bash
# The hub figures of docs/BENCHMARKS.md ("The hub"): kbdata against the fake hub
# (tests/hub/fake_hub.js) on loopback with 20 ms added to every answer.
#
#   bench/hub_bench.sh KBDATA PUBLISHED_DIR KBDATA_DIR
#
# PUBLISHED_DIR and KBDATA_DIR are `kbdata synth --scale full --family flat --seed 1` in the
# published and in kbdata's layout. Prints, for each layout, what `top -p nvfp4_gemm --data hf://`
# fetched and how long it took against pulling the file first; then `pull` of the published set
# against curl fetching the same files one after another, and pull's peak memory.
set -euo pipefail
kbdata=$(realpath "$1")
published=$(realpath "$2")
own=$(realpath "$3")
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/kbdata-hub-bench-XXXXXX)
hub_pid=
cleanup() {
  if [ -n "$hub_pid" ]; then kill "$hub_pid" 2>/dev/null || true; wait "$hub_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
commit=0123456789abcdef0123456789abcdef01234567
export KBDATA_PROGRESS=never

# start_hub DIR FILE...: the fake hub serving those files of DIR; sets HF_ENDPOINT and cdn.
start_hub() {
  local dir=$1; shift
  local files="" f
  for f in "$@"; do
    files+="${files:+,}{\"path\":\"$f\",\"source\":\"$dir/$f\",\"lfs\":true}"
  done
  echo "{\"repo\":\"GPUMODE/kernelbot-data\",\"sha\":\"$commit\",\"files\":[$files],\"latency_ms\":20}" \
    > "$work/hub.json"
  node "$source_dir/tests/hub/fake_hub.js" "$work/hub.json" > "$work/hub.out" &
  hub_pid=$!
  until grep -q cdn "$work/hub.out" 2>/dev/null; do sleep 0.2; done
  export HF_ENDPOINT="http://127.0.0.1:$(awk '{print $2}' "$work/hub.out")"
}
stop_hub() { kill "$hub_pid"; wait "$hub_pid" 2>/dev/null || true; hub_pid=; }
seconds() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
best_of_3() {
  local best= t
  for _ in 1 2 3; do
    t=$(seconds "$@")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best"
}

for layout in published kbdata; do
  dir=$published
  [ "$layout" = kbdata ] && dir=$own
  start_hub "$dir" nvidia_nvfp4_submissions.parquet leaderboards.parquet
  size=$(stat -c %s "$dir/nvidia_nvfp4_submissions.parquet")
  export HF_HOME="$work/home-$layout"
  rm -rf "$HF_HOME"
  "$kbdata" top -p nvfp4_gemm --data hf://datasets/GPUMODE/kernelbot-data --verbose \
    > "$work/top-remote.txt" 2> "$work/top-remote.err"
  fetched=$(grep -o '[0-9,]* bytes fetched' "$work/top-remote.err" | tr -d , | awk '{print $1}')
  trips=$(grep -o 'in [0-9,]* round trip' "$work/top-remote.err" | awk '{print $2}')
  remote=$(best_of_3 "$kbdata" top -p nvfp4_gemm --data hf://datasets/GPUMODE/kernelbot-data)
  mkdir -p "$work/local-$layout"
  ln -sf "$dir/nvidia_nvfp4_submissions.parquet" "$dir/leaderboards.parquet" "$work/local-$layout/"
  "$kbdata" top -p nvfp4_gemm --data "$work/local-$layout" > "$work/top-local.txt"
  cmp -s "$work/top-remote.txt" "$work/top-local.txt" && same=identical || same=DIFFERENT
  # Downloading first: pull into an empty cache, then top on the snapshot.
  rm -rf "$HF_HOME"
  pull=$(seconds "$kbdata" pull --include '*.parquet')
  snapshot="$HF_HOME/hub/datasets--GPUMODE--kernelbot-data/snapshots/$commit"
  local_top=$(best_of_3 "$kbdata" top -p nvfp4_gemm --data "$snapshot")
  awk -v l="$layout" -v s="$size" -v f="$fetched" -v r="$remote" -v p="$pull" -v t="$local_top" \
      -v n="$trips" -v same="$same" 'BEGIN {
    printf "%s layout: file %d bytes; top --data hf:// fetched %d bytes (%.2f%%) in %s round trips, %.2f s; pull %.2f s + top %.2f s = %.2f s; ratio %.3f; output %s\n",
      l, s, f, 100 * f / s, n, r, p, t, p + t, r / (p + t), same }'
  stop_hub
done

# pull of the whole published set against curl, one file after another, over the same loopback.
mapfile -t files < <(cd "$published" && ls -- *.parquet)
total=0
for f in "${files[@]}"; do total=$((total + $(stat -c %s "$published/$f"))); done
start_hub "$published" "${files[@]}"
mkdir -p "$work/curl"
# Each timed transfer starts with nothing left to write back from the steps before it (the
# deleted caches, an earlier transfer's pages): sync, outside the timing.
sync
start=$(date +%s.%N)
for f in "${files[@]}"; do
  curl -sS -L -o "$work/curl/$f" "$HF_ENDPOINT/datasets/GPUMODE/kernelbot-data/resolve/$commit/$f"
done
curl_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{print e - s}')
rm -rf "$work/curl"
for jobs in 1 4; do
  export HF_HOME="$work/home-pull"
  rm -rf "$HF_HOME"
  sync
  /usr/bin/time -f "%e %M" -o "$work/pull.time" "$kbdata" pull --include '*.parquet' --jobs "$jobs" \
    > /dev/null 2>&1
  read -r s rss < "$work/pull.time"
  awk -v j="$jobs" -v s="$s" -v c="$curl_s" -v t="$total" -v rss="$rss" 'BEGIN {
    printf "pull --jobs %d: %.0f bytes in %.2f s (%.0f MB/s); curl one after another %.2f s (%.0f MB/s); pull/curl throughput %.2f; peak RSS %d KB\n",
      j, t, s, t / s / 1e6, c, t / c / 1e6, c / s, rss }'
done
rm -rf "$HF_HOME"
# Peak memory against file size: the small leaderboards file alone.
/usr/bin/time -f "%M" -o "$work/pull.time" "$kbdata" pull --include leaderboards.parquet > /dev/null 2>&1
echo "pull of leaderboards.parquet alone ($(stat -c %s "$published/leaderboards.parquet") bytes): peak RSS $(cat "$work/pull.time") KB"
