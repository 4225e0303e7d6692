#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds (or reuses) the test
# control plane, type-checks, then runs every test against one shared
# kube-apiserver + etcd. Extra arguments select test files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PORTICO_CONTROLPLANE_BIN=$(bash scripts/build-controlplane.sh)
export PORTICO_CONTROLPLANE_BIN
npx tsc -p tsconfig.test.json
exec node --import tsx test/run.ts "$@"
