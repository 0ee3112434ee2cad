# The helpers every bench script of whole kbdata processes shares (sourced, not run):
#
#   run NAME CMD...   runs CMD once, stdout to $work/out and stderr to $work/err (a failure
#                     prints NAME, its stderr, and exits 1); sets $run_wall (seconds, to the
#                     millisecond, /usr/bin/time's start-up included), $run_user (seconds) and
#                     $run_rss (peak KB); one line "NAME  W s wall  U s user  R KB" on stderr; then calls
#                     after_run when the script defines it (to remove the outputs of a run)
#   wall_of NAME CMD...  run, then prints $run_wall: for `t=$(wall_of ...)` (the variables run
#                     sets stay in the subshell)
#   median            the median of the numbers on stdin, one a line
#   ratio A B         A / B with 3 decimals
#
# The script sets $work (a folder of its own) before calling run; BENCH_NAME_WIDTH (12) pads
# the names.

# shellcheck shell=bash

run() {
  : "${work:?bench/lib.sh: the script sets work before run}"
  local name=$1
  shift
  local start=$EPOCHREALTIME
  /usr/bin/time -f "%e %U %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
    echo "$0: $name failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  local end=$EPOCHREALTIME
  read -r _ run_user run_rss < "$work/time"
  # The wall to the millisecond (GNU time's %e has 10 ms steps, too coarse for short commands).
  run_wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  printf "%-${BENCH_NAME_WIDTH:-12}s %7.3f s wall %7.2f s user %8d KB\n" "$name" "$run_wall" \
    "$run_user" "$run_rss" >&2
  if declare -F after_run > /dev/null; then after_run; fi
}

wall_of() {
  run "$@"
  echo "$run_wall"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR > 0) print v[int((NR + 1) / 2)] }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f\n", a / b; else print "-" }'; }
