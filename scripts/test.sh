#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds (or reuses) the test
# control plane, type-checks, lints (ESLint), checks the formatting (Prettier)
# and the Lua (luacheck), then runs every test against one shared
# kube-apiserver + etcd. Extra arguments select test files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PORTICO_CONTROLPLANE_BIN=$(bash scripts/build-controlplane.sh)
export PORTICO_CONTROLPLANE_BIN

# Each check fails the command, naming itself and how to see or fix what it found.
check() {
  local name=$1 hint=$2
  shift 2
  "$@" || { echo "test.sh: $name failed ($hint)" >&2; exit 1; }
}
check 'type check' 'npx tsc -p tsconfig.test.json' npx tsc -p tsconfig.test.json
check 'lint' 'npx eslint .' npx eslint --max-warnings 0 .
check 'format check' 'npx prettier --write . reformats' npx prettier --check --log-level warn .
check 'Lua lint' 'luacheck lua/ test/lua/' luacheck --quiet --codes lua/ test/lua/
exec node --import tsx test/run.ts "$@"
