#!/usr/bin/env bash
# Starts podman's Docker-compatible API service on a unix socket (what dockerode talks to), unless
# an engine already answers there, and waits until it answers. Idempotent: run it as often as you like.
#
# Usage: scripts/podman-service.sh [SOCKET_PATH]
#   SOCKET_PATH defaults to the path of $VKIT_CONTAINER_SOCKET (unix://PATH), else /tmp/podman.sock.
# The service runs detached (--time=0: it never exits on idle); its log is SOCKET_PATH.log.
set -euo pipefail

sock="${1:-${VKIT_CONTAINER_SOCKET:-unix:///tmp/podman.sock}}"
sock="${sock#unix://}"

answers() {
  # GET /_ping answers "OK" from a live engine; a stale socket file refuses the connection.
  [ -S "$sock" ] && [ "$(curl -s --max-time 2 --unix-socket "$sock" http://d/_ping 2>/dev/null)" = OK ]
}

if answers; then
  echo "podman-service: an engine answers on unix://$sock"
  exit 0
fi
command -v podman >/dev/null 2>&1 || { echo "podman-service: podman missing: run scripts/setup-system.sh" >&2; exit 2; }
command -v curl >/dev/null 2>&1 || { echo "podman-service: curl missing (used to probe the socket)" >&2; exit 2; }

# A socket file nobody answers on is left by a service that died; podman would refuse to bind it.
[ -S "$sock" ] && rm -f "$sock"
mkdir -p "$(dirname "$sock")"
setsid nohup podman system service --time=0 "unix://$sock" >"$sock.log" 2>&1 </dev/null &

for _ in $(seq 1 100); do
  if answers; then
    echo "podman-service: started on unix://$sock (pid $!)"
    exit 0
  fi
  sleep 0.1
done
echo "podman-service: no answer on unix://$sock after 10 s; see $sock.log" >&2
exit 1
