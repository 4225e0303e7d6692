#!/usr/bin/env bash
# Runs the benchmarks and prints their figures (Markdown tables, as in
# bench/README.md). Installs what they need first, idempotently: Portico's own
# dependencies (scripts/setup.sh), wrk, GNU time, and the test control plane. Extra
# arguments select benchmarks, e.g. `bash bench/run.sh render`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# wrk, and GNU time (/usr/bin/time) for the peak memory of nginx -t in render.ts.
for package in wrk time; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    echo "bench: installing the Debian package $package" >&2
    [ "$(id -u)" = 0 ] || { echo "bench: run as root to install $package" >&2; exit 1; }
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >/dev/null
  fi
done
PORTICO_CONTROLPLANE_BIN=$(bash scripts/build-controlplane.sh)
export PORTICO_CONTROLPLANE_BIN

if [ $# -gt 0 ]; then benchmarks=("$@"); else benchmarks=(render ingressToTraffic ingressAtScale proxyThroughput liveUpdates admission metricsOverhead regexBacktracking externalAuthThroughput); fi
for benchmark in "${benchmarks[@]}"; do
  printf '\n## %s\n\n' "$benchmark"
  node --import tsx "bench/$benchmark.ts"
done
