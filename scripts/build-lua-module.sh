#!/usr/bin/env bash
# Builds Debian 12's lua-nginx-module (libnginx-mod-http-lua) from Debian's own
# source package, with Debian's patches plus Portico's one change
# (scripts/patches/lua-nginx-module-inherited-ssl-context.patch), against
# Debian's nginx-dev of the installed nginx, exactly as Debian's package is
# built (dh's nginx_mod build system: nginx's configure flags, NDK headers,
# LuaJIT 2.1, PCRE). Once per input, into
# ~/.cache/portico/nginx-lua-module-<digest>/, and prints the module's path.
# Run as root: it installs the build's Debian packages when they are missing.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache="${PORTICO_CACHE:-$HOME/.cache/portico}"

# The Debian source this patch was written for; another version needs a look at the patch.
lua_version=0.10.23
lua_debian_revision=1+deb12u1
orig_sha256=aabd9907e8b7077c1b4cf4c1d0426e9b10885c5b0bfa87c85c3a97c33c40b503
debian_sha256=cb87283957e13788d8abd66abb30b000bcdbeaff7fde303ed656e6615baf03fa
pool=http://deb.debian.org/debian/pool/main/libn/libnginx-mod-http-lua
patch_file="$here/scripts/patches/lua-nginx-module-inherited-ssl-context.patch"

mapfile -t build_packages < <(grep -v '^#' "$here/scripts/debian-build-packages.txt")
missing=()
for package in "${build_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-lua-module: installing Debian packages: ${missing[*]}" >&2
  [ "$(id -u)" = 0 ] || { echo "build-lua-module: run as root to install Debian packages" >&2; exit 1; }
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

installed=$(dpkg-query -W -f='${Version}' libnginx-mod-http-lua)
if [ "$installed" != "1:$lua_version-$lua_debian_revision" ]; then
  echo "build-lua-module: Debian's libnginx-mod-http-lua is $installed, this script builds 1:$lua_version-$lua_debian_revision; update its pins and check the patch" >&2
  exit 1
fi
nginx_version=$(dpkg-query -W -f='${Version}' nginx-dev)
[ "$nginx_version" = "$(dpkg-query -W -f='${Version}' nginx)" ] || {
  echo "build-lua-module: nginx-dev $nginx_version differs from nginx $(dpkg-query -W -f='${Version}' nginx)" >&2
  exit 1
}

digest=$( (echo "$nginx_version $lua_version-$lua_debian_revision"; cat "$patch_file" "$0") | sha256sum | cut -c1-16)
out="$cache/nginx-lua-module-$digest"
if [ -f "$out/ngx_http_lua_module.so" ]; then
  echo "$out/ngx_http_lua_module.so"
  exit 0
fi

echo "build-lua-module: building lua-nginx-module $lua_version with Portico's patch (about 1 minute)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() { # file, sha256
  curl -sSfL --retry 3 -o "$work/$1" "$pool/$1"
  echo "$2  $work/$1" | sha256sum -c --quiet -
}
fetch "libnginx-mod-http-lua_$lua_version.orig.tar.gz" "$orig_sha256"
fetch "libnginx-mod-http-lua_$lua_version-$lua_debian_revision.debian.tar.xz" "$debian_sha256"
mkdir "$work/lua"
tar -xzf "$work/libnginx-mod-http-lua_$lua_version.orig.tar.gz" -C "$work/lua" --strip-components=1
tar -xJf "$work/libnginx-mod-http-lua_$lua_version-$lua_debian_revision.debian.tar.xz" -C "$work/lua"
(
  cd "$work/lua"
  while read -r debian_patch; do
    [ -n "$debian_patch" ] && [ "${debian_patch#\#}" = "$debian_patch" ] && patch -p1 -s < "debian/patches/$debian_patch"
  done < debian/patches/series
  patch -p1 -s < "$patch_file"
)

# As dh's nginx_mod build system and the package's debian/rules do.
cp -r /usr/share/nginx/src "$work/nginx"
(
  cd "$work/nginx"
  # shellcheck disable=SC1091
  . ./conf_flags
  export LUAJIT_INC=/usr/include/luajit-2.1 LUAJIT_LIB="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libluajit-5.1.so"
  ./configure "${NGX_CONF_FLAGS[@]}" \
    --with-cc-opt="$(dpkg-buildflags --get CFLAGS) -fPIC $(dpkg-buildflags --get CPPFLAGS)" \
    --with-ld-opt="$(dpkg-buildflags --get LDFLAGS) -fPIC -lpcre" \
    --add-module=/usr/share/nginx-ndk/src \
    --add-dynamic-module="$work/lua" > "$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
  # debian/rules' LUA_DEFAULT_PATH (Debian's lua-resty-core), quoted for make's shell.
  sed -i "s|^CFLAGS = .*|& '-DLUA_DEFAULT_PATH=\"/usr/share/lua/5.1/?.lua;\"'|" objs/Makefile
  make -j"$(nproc)" -f objs/Makefile modules > "$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
)
mkdir -p "$out"
cp "$work/nginx/objs/ngx_http_lua_module.so" "$out/.ngx_http_lua_module.so.tmp"
mv "$out/.ngx_http_lua_module.so.tmp" "$out/ngx_http_lua_module.so"
echo "$out/ngx_http_lua_module.so"
