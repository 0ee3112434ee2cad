#!/usr/bin/env bash
# kbdata export against its ceiling, the server's own COPY of the same queries.
#
#   bench/export_bench.sh KBDATA [SCALE]     (SCALE: small, medium (default) or full)
#
# Creates a PostgreSQL server in a temporary folder (Debian's initdb/pg_ctl, as the postgres user
# when run as root; 127.0.0.1, a free port), seeds it with `kbdata synth --db --scale SCALE`, then
# times, as whole processes (wall time and peak RSS from /usr/bin/time), in $ROUNDS (default 5)
# alternating rounds:
#   export  kbdata export of every flat config and both legacy AMD files (--jobs 1)
#   copy    psql running `COPY (query) TO STDOUT (FORMAT binary)` for the same configs, in one
#           session, to /dev/null; the queries are kbdata's own (`kbdata export --show-sql`)
# and prints median times, the largest peak RSS, and the median of the per-round ratios with their
# range. The server is stopped and the folder removed at the end.
set -euo pipefail

kbdata=$(realpath "${1:?usage: bench/export_bench.sh KBDATA [SCALE]}")
scale=${2:-medium}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "export_bench: no PostgreSQL server (scripts/install-deps)" >&2; exit 1; }

dir=$(mktemp -d /tmp/kbdata-export-bench-XXXXXX)
as_server() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$dir"
cleanup() {
  as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

# A free port: one nothing answers on (bash's /dev/tcp).
for _ in $(seq 50); do
  port=$((20000 + RANDOM % 40000))
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
done
echo bench > "$dir/pw"
[ "$(id -u)" -eq 0 ] && chown postgres "$dir/pw"
as_server "$bin/initdb" -D "$dir/data" -U kb --pwfile="$dir/pw" --auth=scram-sha-256 -E UTF8 \
  --locale=C --no-sync >/dev/null
as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
export PGPASSWORD=bench
url="postgresql://kb:bench@127.0.0.1:$port/kb"
psql -q -h 127.0.0.1 -p "$port" -U kb postgres -c "CREATE DATABASE kb"
echo "export_bench: seeding (kbdata synth --db --scale $scale)"
"$kbdata" synth --db "$url" --scale "$scale" --seed 1 >/dev/null

configs=(
  --config nvidia_nvfp4_submissions=595,597,598,697,730
  --config amd_1_1m_competition=763,764,765
  --config trimul_submissions=496
  --config helion_b200_nebius=766,767,768,769,770
  --config pmpp_v2_submissions=901,902,903,904,905,906,907,908
  --config linalg_submissions=774,775,776
  --legacy amd_submissions=398,399,430,463,563,564,565
  --legacy amd_successful_submissions=398,399,430,463,563,564,565
)
# The same queries, each as COPY ... TO STDOUT in binary.
"$kbdata" export "${configs[@]}" --show-sql |
  awk '/^-- /{next} {buf = buf $0 "\n"} /;$/{sub(/;\n$/, "", buf); print "COPY (" buf ") TO STDOUT (FORMAT binary);"; buf = ""}' \
  > "$dir/copy.sql"

# Runs the command once (an executable, timed as a whole process by /usr/bin/time) and prints
# "seconds kilobytes"; the output folder is emptied first.
measure() {
  rm -rf "$dir/out"
  if ! /usr/bin/time -o "$dir/time" -f "%e %M" "$@" >/dev/null 2>"$dir/err"; then
    echo "export_bench: failed: $*" >&2
    cat "$dir/err" >&2
    exit 1
  fi
  tail -1 "$dir/time"
}

copy_cmd=(psql -q -X -h 127.0.0.1 -p "$port" -U kb kb -v ON_ERROR_STOP=1 -f "$dir/copy.sql")
export_cmd=("$kbdata" export --db "$url" --out "$dir/out" "${configs[@]}")
"${copy_cmd[@]}" | wc -c > "$dir/copy-bytes"  # warms the cache; the bytes COPY sends
# Rounds alternate the two, so both see the same machine; the ratio is taken per round.
rounds=${ROUNDS:-5}
: > "$dir/rounds"
for _ in $(seq "$rounds"); do
  read -r c_s c_kb <<< "$(measure "${copy_cmd[@]}")"
  read -r e_s e_kb <<< "$(measure "${export_cmd[@]}")"
  echo "$e_s $e_kb $c_s $c_kb" >> "$dir/rounds"
done
# median: bench/lib.sh
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
export_s=$(cut -d' ' -f1 "$dir/rounds" | median)
export_kb=$(cut -d' ' -f2 "$dir/rounds" | sort -g | tail -1)
copy_s=$(cut -d' ' -f3 "$dir/rounds" | median)
copy_kb=$(cut -d' ' -f4 "$dir/rounds" | sort -g | tail -1)
ratios=$(awk '{printf "%.3f\n", $1 / $3}' "$dir/rounds")
files=$(du -cb "$dir"/out/*.parquet | tail -1 | cut -f1)

printf 'export_bench (scale %s, %s rows of runs, %s submissions)\n' "$scale" \
  "$(psql -Atq -h 127.0.0.1 -p "$port" -U kb kb -c 'SELECT count(*) FROM leaderboard.runs')" \
  "$(psql -Atq -h 127.0.0.1 -p "$port" -U kb kb -c 'SELECT count(*) FROM leaderboard.submission')"
printf '  %-40s %8s %10s %14s\n' "" "median s" "peak RSS" "bytes out"
printf '  %-40s %8s %7d MB %14s\n' "kbdata export (8 configs, Parquet)" "$export_s" $((export_kb / 1024)) "$files"
printf '  %-40s %8s %7d MB %14s\n' "psql COPY (same queries) TO STDOUT" "$copy_s" $((copy_kb / 1024)) "$(cat "$dir/copy-bytes")"
printf '  ratio export / COPY wall time: %.2f (median of %d rounds; range %s..%s); load average %s\n' \
  "$(echo "$ratios" | median)" "$rounds" "$(echo "$ratios" | sort -g | head -1)" \
  "$(echo "$ratios" | sort -g | tail -1)" "$(cut -d' ' -f1 /proc/loadavg)"
