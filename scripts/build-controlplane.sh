#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver + etcd) from Go modules, once
# per version, into ~/.cache/portico/controlplane-<versions>/bin. Go's module
# and build caches live beside it so a fresh clone never rebuilds.
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

if [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ]; then
  echo "$out"
  exit 0
fi

# Go's official install location, for shells whose PATH lacks it.
command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "build-controlplane: Go is needed to build the test control plane" >&2; exit 1; }
export GOMODCACHE="$cache/go/mod" GOCACHE="$cache/go/build" GOFLAGS=-mod=mod CGO_ENABLED=0
mkdir -p "$out.tmp"
minor=${k8s_version#*.}; minor=${minor%%.*}
(
  cd "$src/kube-apiserver"
  go build -trimpath -o "$out.tmp/kube-apiserver" -ldflags "-s -w \
    -X k8s.io/component-base/version.gitVersion=v$k8s_version \
    -X k8s.io/component-base/version.gitMajor=1 \
    -X k8s.io/component-base/version.gitMinor=$minor" .
) >&2
( cd "$src/etcd" && go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" . ) >&2
rm -rf "$out" && mv "$out.tmp" "$out"
echo "$out"
