#!/usr/bin/env bash
# Installs what Portico needs on Debian 12, idempotently: the nginx data plane
# and its Lua modules, npm packages, and the compiled controller. A second run
# changes nothing and takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t debian_packages < <(grep -v '^#' scripts/debian-packages.txt)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  [ "$(id -u)" = 0 ] || { echo "setup: run as root to install Debian packages" >&2; exit 1; }
  apt-get update -qq
  # Debian's nginx package starts a system nginx on :80; Portico runs its own.
  policy_added=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  [ -z "$policy_added" ] || rm -f /usr/sbin/policy-rc.d
fi

# Installs a build where the data plane loads it, when it differs. Replaced by a
# rename, never rewritten in place: a running nginx has it mapped.
install_library() { # built file, installed path
  if ! cmp -s "$1" "$2"; then
    [ "$(id -u)" = 0 ] || { echo "setup: run as root to install $2" >&2; exit 1; }
    mkdir -p "$(dirname "$2")"
    cp "$1" "$2.tmp"
    chmod 0644 "$2.tmp"
    mv "$2.tmp" "$2"
  fi
}
# Portico's build of Debian's lua-nginx-module (scripts/build-lua-module.sh, cached;
# docs/scale.md), where the data plane loads it (src/dataplane/nginx/luaModule.ts).
# (Built apart from the call: set -e does not stop at a failed substitution in an argument.)
lua_module=$(bash scripts/build-lua-module.sh)
install_library "$lua_module" /usr/lib/portico/ngx_http_lua_module.so
# The master's pool-block allocator (scripts/build-pool-blocks.sh, cached; docs/scale.md),
# where the data plane preloads it (src/dataplane/nginx/process/masterMalloc.ts).
pool_blocks=$(bash scripts/build-pool-blocks.sh)
install_library "$pool_blocks" /usr/lib/portico/libportico_pool_blocks.so

# npm packages, reinstalled only when the lock file changed.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.portico-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  echo "setup: installing npm packages" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > node_modules/.portico-lock-hash
fi

# Incremental: a second run re-emits only what changed (about 4 s instead of 12 s on
# 2 cores). The build info lives in dist/, so removing dist/ rebuilds everything;
# touched, it dates the build (tsc leaves it alone when nothing needed emitting),
# which the tests check against src/ before they start dist/.
npx tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsbuildinfo
touch dist/.tsbuildinfo
