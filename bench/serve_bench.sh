#!/usr/bin/env bash
# `kbdata serve` over the NVFP4-shaped data set (issue 23: a page answers in at most 300 ms after
# the first load, the first page in at most the time of `kbdata stats`): per round a fresh server,
# its first page timed at once (the index is still being built); then, once /api/status says the
# index is ready (the time it took and its size are printed), each page type asked twice (the
# first answer runs the commands behind it over the index, the second comes from the answer
# cache), timed by curl, with the server's resident memory at the end; then `kbdata stats` over the
# same folder. Prints one line per request and a summary per round.
#
#   bench/serve_bench.sh KBDATA NVFP4_DIR [ROUNDS]
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 KBDATA NVFP4_DIR [ROUNDS]" >&2
  exit 2
fi
kbdata=$1
data=$2
rounds=${3:-3}
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# time_page URL: the seconds curl took for a whole answer (status 200 required).
time_page() {
  local out
  out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$1")
  if [ "${out%% *}" != 200 ]; then
    echo "$0: $1 answered ${out%% *}" >&2
    exit 1
  fi
  echo "${out#* }"
}

# start_server: a fresh server in the background; sets $server and $url.
start_server() {
  "$kbdata" serve --data "$data" --port 0 > "$work/out" 2> "$work/err" &
  server=$!
  for _ in $(seq 50); do
    grep -q 'serving' "$work/out" 2> /dev/null && break
    sleep 0.1
  done
  url=$(sed -n 's/.* at \(http[^ ]*\)$/\1/p' "$work/out")
}

for ((i = 1; i <= rounds; ++i)); do
  start_server
  # Every leaderboard of the configs the folder holds (one config per line), and the first ranked
  # row's submission and user of the first.
  lbs=$(curl -s "${url}api/configs" | grep '"present":true' | grep -o '"id":[0-9]*' | cut -d: -f2 |
    sort -un | tr '\n' ' ')
  lb=${lbs%% *}
  api=$(curl -s "${url}api/leaderboard/$lb")
  sid=$(printf '%s' "$api" | sed -E 's/^[^}]*"submission_id":([0-9]+).*$/\1/')
  user=$(printf '%s' "$api" | sed -E 's/^[^}]*"user_id":"([^"]*)".*$/\1/')
  # The twin above ran the leaderboard's commands: a fresh server for the pages.
  kill "$server"
  wait "$server" 2> /dev/null || true
  start_server
  first_page=$(time_page "$url")
  for _ in $(seq 600); do
    status=$(curl -s "${url}api/status")
    case $status in *'"index":"building"'* | *'"index":"warming"'*) sleep 0.5 ;; *) break ;; esac
  done
  printf 'round %d  index: %s\n' "$i" "$status" >&2
  first_max=0
  cached_max=0
  pages=("")
  for l in $lbs; do pages+=("leaderboard/$l" "leaderboard/$l/techniques"); done
  pages+=("submission/$sid" "user/$lb/$user" "search?q=${user:0:6}")
  for page in "${pages[@]}"; do
    first=$(time_page "$url$page")
    cached=$(time_page "$url$page")
    printf 'round %d  /%-40s first %7.3f s  cached %7.4f s\n' "$i" "$page" "$first" "$cached" >&2
    first_max=$(awk -v a="$first_max" -v b="$first" 'BEGIN { print (b > a ? b : a) }')
    cached_max=$(awk -v a="$cached_max" -v b="$cached" 'BEGIN { print (b > a ? b : a) }')
  done
  rss=$(ps -o rss= -p "$server" | tr -d ' ')
  kill "$server"
  wait "$server" 2> /dev/null || true
  server=
  /usr/bin/time -f '%e' -o "$work/stats" "$kbdata" stats --data "$data" > /dev/null 2>&1
  stats=$(cat "$work/stats")
  awk -v i="$i" -v fm="$first_max" -v cm="$cached_max" -v s="$stats" -v fp="$first_page" \
    -v rss="$rss" 'BEGIN { printf "round %d: after the index, slowest first answer %.3f s; first page at start %.3f s (stats %.2f s); slowest cached %.4f s; server %d MB\n", i, fm, fp, s, cm, rss / 1024 }'
done
