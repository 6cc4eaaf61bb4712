#!/usr/bin/env bash
# Installs the system tools vkit's tests need, idempotently: a tool already present is left alone.
# Each issue that needs a new tool adds it here (podman, coq, tmux come with their issues).
# Run as root (CI) or with sudo available.
set -euo pipefail

need=()
command -v git >/dev/null 2>&1 || need+=(git)
# The lifecycle model (fixtures/lifecycle/lifecycle.pml): spin generates a C verifier, gcc builds it
# (spin also runs gcc as its preprocessor), and pan.c needs the C library headers, which gcc only
# recommends.
command -v spin >/dev/null 2>&1 || need+=(spin)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ -e /usr/include/stdio.h ] || need+=(libc6-dev)
# The TUI smoke test drives a real terminal.
command -v tmux >/dev/null 2>&1 || need+=(tmux)

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

echo "setup-system: git $(git --version | cut -d' ' -f3), spin $(spin -V | cut -d' ' -f3), gcc $(gcc -dumpfullversion), $(tmux -V)"
