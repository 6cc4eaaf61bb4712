#!/usr/bin/env bash
# Installs the system tools vkit's tests need, idempotently: a tool already present is left alone.
# Each issue that needs a new tool adds it here.
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
# Every check runs in a bubblewrap sandbox by default (src/checkers/sandbox.ts).
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# Formal components run in restricted containers: podman serves the Docker API to dockerode, with
# runc (crun fails on this cgroup layout); busybox-static gives tests a tiny image; debootstrap builds
# the worker images offline; coq and ocaml-nox are the host copies of the Coq profile's tools.
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v runc >/dev/null 2>&1 || need+=(runc)
[ -x /bin/busybox ] || need+=(busybox-static)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v coqc >/dev/null 2>&1 || need+=(coq)
command -v ocamlopt >/dev/null 2>&1 || need+=(ocaml-nox)

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

# podman's defaults do not fit this machine kind (see ARCHITECTURE.md, platform facts): runc, cgroupfs,
# a file events logger, and default ulimits no higher than the hard limits (podman's defaults exceed them).
pid_max=$(cat /proc/sys/kernel/pid_max)
nproc=$(ulimit -Hu)
if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc=$pid_max; fi
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
containers_conf="[containers]
default_ulimits = [\"nofile=${nofile}:${nofile}\", \"nproc=${nproc}:${nproc}\"]

[engine]
runtime = \"runc\"
cgroup_manager = \"cgroupfs\"
events_logger = \"file\"
"
if [ "$(cat /etc/containers/containers.conf 2>/dev/null)" != "$(printf '%s' "$containers_conf")" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO mkdir -p /etc/containers
  printf '%s' "$containers_conf" | $SUDO tee /etc/containers/containers.conf >/dev/null
fi

# The Coq worker image (skipped when it exists).
bash "$(dirname "$0")/build-worker-image.sh"

echo "setup-system: git $(git --version | cut -d' ' -f3), spin $(spin -V | cut -d' ' -f3), gcc $(gcc -dumpfullversion), $(tmux -V), podman $(podman --version | cut -d' ' -f3), $(coqc --version | head -1)"
