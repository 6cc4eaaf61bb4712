#!/usr/bin/env bash
# Installs the system tools vkit's tests need, idempotently: a tool already present is left alone.
# Each issue that needs a new tool adds it here (podman, coq, tmux come with their issues).
# Run as root (CI) or with sudo available.
set -euo pipefail

need=()
command -v git >/dev/null 2>&1 || need+=(git)

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

echo "setup-system: git $(git --version | cut -d' ' -f3)"
