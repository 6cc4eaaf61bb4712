#!/bin/sh
# Runs the example: a scratch git repository whose first commit is the trusted target (the crate and
# its accepted basis) and whose second is the agent's candidate (the rewritten function), then
# `vkit change certify` with the host's target. Expected here: every logic obligation HOLDS (Z3),
# the code step BLOCKED naming the missing Kani assets, acceptance unknown (exit 3).
# Usage: sh examples/change-certify/run.sh [VKIT]   (VKIT defaults to `vkit` on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vkit=${1:-vkit}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/crates" "$here/verification" "$work/"
cd "$work"
git init -q -b main
git -c user.name=example -c user.email=example@vkit.invalid add -A
git -c user.name=example -c user.email=example@vkit.invalid commit -q -m 'target: clamp and its accepted basis'
cp "$here/candidate-lib.rs" crates/clamp/src/lib.rs
git -c user.name=example -c user.email=example@vkit.invalid commit -q -am 'candidate: clamp_percent rewritten'
set +e
$vkit change certify --request "$here/request.json" --target HEAD~1
status=$?
set -e
echo "exit $status"
exit $status
