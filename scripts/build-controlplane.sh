#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver + etcd, and the kubectl the
# deploy tests use) from Go modules, once per version, into
# ~/.cache/portico/controlplane-<versions>/bin. Go's module and build caches
# live beside it so a fresh clone never rebuilds.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/tools/controlplane"
# The version of a module as its wrapper's go.mod requires it (tidy may move
# the line into a require block).
required() { awk -v m="$1" '$1==m {print $2} $1=="require" && $2==m {print $3}' "$2" | sed 's/^v//' | head -n1; }
k8s_version=$(required k8s.io/kubernetes "$src/kube-apiserver/go.mod")
etcd_version=$(required go.etcd.io/etcd/server/v3 "$src/etcd/go.mod")
cache="${PORTICO_CACHE:-$HOME/.cache/portico}"
out="$cache/controlplane-k8s$k8s_version-etcd$etcd_version/bin"

# Each binary is built only when missing, so adding one never rebuilds the others.
missing=()
for binary in kube-apiserver etcd kubectl; do [ -x "$out/$binary" ] || missing+=("$binary"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$out"
  exit 0
fi

# Go's official install location, for shells whose PATH lacks it.
command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "build-controlplane: Go is needed to build the test control plane" >&2; exit 1; }
export GOMODCACHE="$cache/go/mod" GOCACHE="$cache/go/build" GOFLAGS=-mod=mod CGO_ENABLED=0
minor=${k8s_version#*.}; minor=${minor%%.*}
k8s_ldflags="-s -w \
  -X k8s.io/component-base/version.gitVersion=v$k8s_version \
  -X k8s.io/component-base/version.gitMajor=1 \
  -X k8s.io/component-base/version.gitMinor=$minor"
mkdir -p "$out"
for binary in "${missing[@]}"; do
  flags=$k8s_ldflags
  [ "$binary" = etcd ] && flags="-s -w"
  # Into a temporary name first: an interrupted build never looks complete.
  ( cd "$src/$binary" && go build -trimpath -ldflags "$flags" -o "$out/.$binary.tmp" . ) >&2
  mv "$out/.$binary.tmp" "$out/$binary"
done
echo "$out"
