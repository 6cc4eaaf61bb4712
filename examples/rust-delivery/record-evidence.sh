#!/bin/sh
# Re-creates evidence/ for the rust-delivery example by running the real commands against the
# real crate in ean-check/ (this is exactly how the committed evidence was produced).
#
#   sh examples/rust-delivery/record-evidence.sh        (from the repository root, or from here)
#
# Each passing record is the stdout of one claim's self_verify command (cargo's progress lines go
# to stderr and carry absolute paths, so they are not recorded). Each watched-fail record is the
# combined output of the same command after one source edit, followed by `exit: N`; the edited file
# is restored from a saved copy and compared byte for byte before anything else runs.
#
# Recording new evidence changes every record_hash: refill them in acceptance.toml with
# `vkit acceptance digest --domain record FILE`, then re-issue the decision (its package hash changes).
set -eu
cd "$(dirname "$0")"
CARGO=${CARGO:-cargo}
EV=$(pwd)/evidence
mkdir -p "$EV"
cd ean-check

# No backtraces (they vary with the host's environment), and a clean build: cargo decides what to
# rebuild by mtime, so a stale build of an earlier mutant must never answer for the real sources.
RUST_BACKTRACE=0
export RUST_BACKTRACE
"$CARGO" clean --offline 2>/dev/null
"$CARGO" test --offline --no-run 2>/dev/null
"$CARGO" test --offline --test malformed   > "$EV/malformed-test.txt"
"$CARGO" test --offline --test check_digit > "$EV/check-digit-test.txt"
"$CARGO" test --offline --test no_panic    > "$EV/no-panic-test.txt"
"$CARGO" test --offline --doc              > "$EV/doc-test.txt"

# watched_fail FILE OLD NEW OUT COMMAND...: replace OLD (must occur once) by NEW in FILE, run the
# command (it must fail), record its output, restore FILE and prove the restoration.
watched_fail() {
  file=$1 old=$2 new=$3 out=$4
  shift 4
  cp "$file" "$file.orig"
  node -e '
    const fs = require("fs"); const [f, o, n] = process.argv.slice(1);
    const t = fs.readFileSync(f, "utf8");
    if (t.split(o).length !== 2) { console.error("expected exactly one occurrence in " + f + ": " + o); process.exit(2); }
    fs.writeFileSync(f, t.replace(o, n));' "$file" "$old" "$new"
  { printf '$ %s\n(perturbation: in %s, `%s` -> `%s`)\n---\n' "$*" "$file" "$old" "$new"; } > "$EV/$out"
  set +e
  "$@" >> "$EV/$out" 2>&1
  code=$?
  set -e
  printf -- '---\nexit: %s\n' "$code" >> "$EV/$out"
  # Restore by writing the saved bytes (a fresh mtime, so cargo rebuilds: a rename would bring
  # back the old mtime and cargo would keep running the mutant's stale build), then prove it.
  cp "$file.orig" "$file"
  cmp "$file.orig" "$file"
  rm "$file.orig"
  if [ "$code" -eq 0 ]; then echo "SURVIVOR: $out stayed green" >&2; exit 1; fi
}

watched_fail src/lib.rs 'if !b.is_ascii_digit() {' 'if !b.is_ascii_alphanumeric() {' \
  watched-fail-malformed.txt "$CARGO" test --offline --test malformed
watched_fail src/lib.rs 'let weight = if i % 2 == 0 { 1 } else { 3 };' 'let weight = if i % 2 == 0 { 3 } else { 1 };' \
  watched-fail-check-digit.txt "$CARGO" test --offline --test check_digit
watched_fail src/lib.rs 'if bytes.len() != LEN {' 'if bytes.len() > LEN {' \
  watched-fail-no-panic.txt "$CARGO" test --offline --test no_panic
watched_fail src/lib.rs 'if expected != found {' 'if false && expected != found {' \
  watched-fail-doc-test.txt "$CARGO" test --offline --doc

# The restored tree must pass again (exit non-zero otherwise, under set -e).
"$CARGO" test --offline >/dev/null 2>&1
echo "evidence recorded in $EV"
