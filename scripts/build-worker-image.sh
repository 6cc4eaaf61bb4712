#!/usr/bin/env bash
# Builds the Coq worker image `localhost/vkit-coq-worker:1` offline (no registry pull): a minimal
# Debian bookworm root from debootstrap, the frozen package list of
# fixtures/worker-images/coq-bookworm.list installed in it, imported into podman. Skipped when the
# image exists. Run as root (debootstrap and chroot need it); sudo is used otherwise.
#
# The mirror is read at run time from the host's apt sources, never written into the repository.
# The package list pins every package of the image (`dpkg-query -W` of the first build), so a later
# build installs the same versions; the build fails when the result differs from the list, rather
# than produce an image whose tools vkit would identify differently. Image ids differ between builds
# (import timestamps); vkit identifies the checker by the tool tree's digest, not the image id.
#
# Usage: scripts/build-worker-image.sh [--force]
#   --force  rebuild even when the image exists (the old tag moves to the new image)
# Environment: VKIT_WORKER_MIRROR overrides the mirror read from the apt sources.
set -euo pipefail

IMAGE=localhost/vkit-coq-worker:1
SUITE=bookworm
here="$(cd "$(dirname "$0")" && pwd)"
LIST="$(dirname "$here")/fixtures/worker-images/coq-bookworm.list"
# The first build (no list yet) installs these two and records what it got.
SEED="coq=8.16.1+dfsg-1+b2 ocaml-nox=4.13.1-4"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ "${1:-}" != "--force" ] && $SUDO podman image exists "$IMAGE" 2>/dev/null; then
  echo "build-worker-image: $IMAGE exists ($($SUDO podman image inspect --format '{{.Id}}' "$IMAGE" | cut -c1-12)), skipped"
  exit 0
fi

# The first enabled deb822 stanza of type deb whose Suites list has exactly `bookworm`, else a
# one-line `deb URI bookworm ...` entry.
find_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk -v suite="$SUITE" '
      function flush() {
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no" && uri != "" && (" " suites " ") ~ (" " suite " ")) { print uri; found = 1; exit }
        types = ""; suites = ""; uri = ""; enabled = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "types:" { $1 = ""; types = $0 }
      tolower($1) == "suites:" { $1 = ""; suites = $0; gsub(/[ \t]+/, " ", suites) }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "enabled:" { enabled = tolower($2) }
      END { if (!found) flush() }
    ' "$f" | head -1
  done | head -1
}
find_mirror_list() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v suite="$SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i + 1) == suite) { print $i; exit } }'
}
MIRROR="${VKIT_WORKER_MIRROR:-$(find_mirror)}"
[ -n "$MIRROR" ] || MIRROR="$(find_mirror_list)"
if [ -z "$MIRROR" ]; then
  echo "build-worker-image: no enabled '$SUITE' deb source in /etc/apt/sources.list{,.d/*}: set VKIT_WORKER_MIRROR to a Debian mirror URL" >&2
  exit 2
fi

command -v debootstrap >/dev/null 2>&1 || { echo "build-worker-image: debootstrap missing: run scripts/setup-system.sh" >&2; exit 2; }
command -v podman >/dev/null 2>&1 || { echo "build-worker-image: podman missing: run scripts/setup-system.sh" >&2; exit 2; }

start=$(date +%s)
ROOTFS="$($SUDO mktemp -d /var/tmp/vkit-worker-rootfs.XXXXXX)"
trap '$SUDO rm -rf --one-file-system "$ROOTFS"' EXIT

echo "build-worker-image: debootstrap $SUITE from $MIRROR"
$SUDO debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >/dev/null

in_root() { $SUDO env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$ROOTFS" "$@"; }
in_root apt-get update -qq
if [ -s "$LIST" ]; then
  # shellcheck disable=SC2046
  in_root apt-get install -y -qq --no-install-recommends --allow-downgrades $(grep -v '^#' "$LIST") >/dev/null
else
  # shellcheck disable=SC2086
  in_root apt-get install -y -qq --no-install-recommends $SEED >/dev/null
fi
got="$(in_root dpkg-query -W -f '${Package}=${Version}\n' | LC_ALL=C sort)"
if [ -s "$LIST" ]; then
  if [ "$got" != "$(grep -v '^#' "$LIST" | LC_ALL=C sort)" ]; then
    echo "build-worker-image: the image's packages differ from $LIST:" >&2
    diff <(grep -v '^#' "$LIST" | LC_ALL=C sort) <(printf '%s\n' "$got") >&2 || true
    exit 1
  fi
else
  mkdir -p "$(dirname "$LIST")"
  { echo "# Every package of $IMAGE as name=version (dpkg-query -W of its first build, $(date -u +%Y-%m-%d))."
    echo "# scripts/build-worker-image.sh installs exactly these; delete this file and rebuild with --force to re-pin."
    printf '%s\n' "$got"; } >"$LIST"
  echo "build-worker-image: recorded $(printf '%s\n' "$got" | wc -l) pinned packages in $LIST (commit it)"
fi

# Nothing of the build host stays in the image: package lists, caches, the mirror, the machine id.
in_root apt-get clean
$SUDO rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/* "$ROOTFS"/var/log/* "$ROOTFS"/etc/apt/sources.list
$SUDO sh -c ": >'$ROOTFS/etc/machine-id'"

$SUDO tar --numeric-owner -C "$ROOTFS" -c . | $SUDO podman import - "$IMAGE" >/dev/null
echo "build-worker-image: $IMAGE = $($SUDO podman image inspect --format '{{.Id}}' "$IMAGE") in $(($(date +%s) - start)) s"
