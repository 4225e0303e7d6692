#!/usr/bin/env bash
# Builds native/pool_blocks.c, the allocator of nginx's master's pool blocks
# (src/dataplane/nginx/process/masterMalloc.ts, docs/scale.md), once per source
# and compiler, into ~/.cache/portico/pool-blocks-<digest>/, and prints the
# library's path. gcc is one of scripts/debian-build-packages.txt, which
# scripts/build-lua-module.sh installs.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache="${PORTICO_CACHE:-$HOME/.cache/portico}"
source_file="$here/native/pool_blocks.c"

digest=$( (gcc --version | head -1; cat "$source_file" "$0") | sha256sum | cut -c1-16)
out="$cache/pool-blocks-$digest"
library="$out/libportico_pool_blocks.so"
if [ ! -f "$library" ]; then
  mkdir -p "$out"
  gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/.libportico_pool_blocks.so.tmp" "$source_file"
  mv "$out/.libportico_pool_blocks.so.tmp" "$library"
fi
echo "$library"
