#!/usr/bin/env bash
# Checks the lifecycle model (fixtures/lifecycle/lifecycle.pml) with Spin, in a temp dir.
#
#   scripts/check-lifecycle-model.sh [-D NAME]... [-O LEVEL] [-j JOBS] [--trail] CHECK...
#
# CHECK is the name of an ltl block in the model (checked with `pan -a -N NAME`), or `end-states`:
# invalid end states (a process stuck forever, e.g. a face waiting on a run nobody will end), checked
# without a claim in the QUIET world (nobody else cancels or opens the store). -D defines a model
# macro, e.g. -D BUG_RECOVER_LIVE (see fixtures/lifecycle/README.md). The model is compiled once for
# the ltl checks and once for `end-states`; checks run up to JOBS at a time (default 2).
#
# Prints each check's pan output, then one summary line per check:
#   lifecycle-model: check=NAME errors=N states=N transitions=N depth=N seconds=S complete=yes|no
# `complete=no` means the search was cut short (memory or depth limit): not a verification.
# --trail replays each counterexample (spin -t -p). Exit status: 0 when every check ran (whatever it
# found), 2 on usage errors, 3 when spin or gcc is missing or the model does not compile.
# Needs spin and gcc: scripts/setup-system.sh installs them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="$here/fixtures/lifecycle/lifecycle.pml"
defines=()
opt=1
jobs_max=2
trail=0
checks=()
while [ $# -gt 0 ]; do
  case "$1" in
    -D) defines+=("-D$2"); shift 2 ;;
    -D*) defines+=("$1"); shift ;;
    -O) opt="$2"; shift 2 ;;
    -j) jobs_max="$2"; shift 2 ;;
    --trail) trail=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "check-lifecycle-model: unknown option $1" >&2; exit 2 ;;
    *) checks+=("$1"); shift ;;
  esac
done
[ ${#checks[@]} -gt 0 ] || { echo "check-lifecycle-model: name at least one check (an ltl block, or end-states)" >&2; exit 2; }
for tool in spin gcc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "check-lifecycle-model: $tool not found; run scripts/setup-system.sh" >&2; exit 3; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/vkit-spin-XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Builds pan in $work/$1 with model macros $2 (space separated) and C flags $3.
build() {
  local dir="$work/$1"
  mkdir -p "$dir"
  cp "$model" "$dir/lifecycle.pml"
  # shellcheck disable=SC2086
  (cd "$dir" && spin ${defines[@]+"${defines[@]}"} $2 -a lifecycle.pml >spin.out 2>&1) || { cat "$dir/spin.out" >&2; exit 3; }
  # MEMLIM (MB) makes a runaway search stop with a message instead of exhausting the machine.
  # shellcheck disable=SC2086
  (cd "$dir" && gcc -w -O"$opt" -DMEMLIM=2048 $3 -o pan pan.c) || { echo "check-lifecycle-model: gcc failed" >&2; exit 3; }
}

need_ltl=0
need_end=0
for c in "${checks[@]}"; do
  if [ "$c" = end-states ]; then need_end=1; else need_ltl=1; fi
done
[ $need_ltl -eq 0 ] || build ltl "" ""
[ $need_end -eq 0 ] || build end "-DQUIET" "-DSAFETY -DNOCLAIM"

run() {
  local c="$1" dir
  if [ "$c" = end-states ]; then
    dir="$work/end"
    (cd "$dir" && ./pan -m100000 -w21 >"$work/$c.out" 2>&1) || true
  else
    dir="$work/ltl"
    grep -q "^ltl $c " "$model" || { echo "check-lifecycle-model: no ltl block named $c" >"$work/$c.out"; return; }
    # Each check gets its own trail file name, so parallel runs do not overwrite each other's.
    (cd "$dir" && ./pan -a -m100000 -w21 -N "$c" -t"$c.trail" >"$work/$c.out" 2>&1) || true
  fi
}

for c in "${checks[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run "$c" &
done
wait

num() { sed -n "$1" "$2" | head -n1; }
for c in "${checks[@]}"; do
  out="$work/$c.out"
  echo "=== $c"
  cat "$out"
  errors="$(num 's/.*errors: \([0-9]*\).*/\1/p' "$out")"
  states="$(num 's/^ *\([0-9][0-9e.+]*\) states, stored.*/\1/p' "$out")"
  transitions="$(num 's/^ *\([0-9][0-9e.+]*\) transitions.*/\1/p' "$out")"
  depth="$(num 's/.*depth reached \([0-9]*\).*/\1/p' "$out")"
  seconds="$(num 's/^pan: elapsed time \([0-9.e+]*\).*/\1/p' "$out")"
  complete=yes
  if [ -z "$errors" ] || grep -q -e "memory limit" -e "max search depth too small" -e "out of memory" "$out"; then complete=no; fi
  echo "lifecycle-model: check=$c errors=${errors:--1} states=${states:-0} transitions=${transitions:-0} depth=${depth:-0} seconds=${seconds:-0} complete=$complete"
  if [ $trail -eq 1 ] && [ "${errors:-0}" != 0 ]; then
    if [ "$c" = end-states ]; then
      (cd "$work/end" && spin ${defines[@]+"${defines[@]}"} -DQUIET -t -p -g lifecycle.pml) || true
    else
      (cd "$work/ltl" && spin ${defines[@]+"${defines[@]}"} -t -p -g -k "lifecycle.pml.$c.trail" lifecycle.pml) || true
    fi
  fi
done
