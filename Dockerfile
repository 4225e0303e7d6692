# Portico's image: Debian 12 with the nginx and Lua packages of
# scripts/debian-packages.txt (those scripts/setup.sh installs), Node 20, and
# the compiled controller with its production npm packages.
#   docker build -t portico:0.1.0 .
# Debian 12 ships Node 18; Node 20 comes from the official node:20 image built
# on the same Debian release (same glibc and libstdc++), copied as one binary.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json ./
COPY src ./src
RUN npx tsc -p tsconfig.json && npm prune --omit=dev --no-audit --no-fund --loglevel=error

# Portico's build of Debian's lua-nginx-module (scripts/build-lua-module.sh) and
# the master's pool-block allocator (scripts/build-pool-blocks.sh; docs/scale.md).
FROM debian:12-slim AS lua-module
COPY scripts/debian-packages.txt scripts/debian-build-packages.txt scripts/build-lua-module.sh scripts/build-pool-blocks.sh /src/scripts/
COPY scripts/patches /src/scripts/patches
COPY native /src/native
RUN apt-get update \
  && grep -v '^#' /src/scripts/debian-packages.txt | xargs apt-get install -y --no-install-recommends \
  && mkdir /out && cp "$(bash /src/scripts/build-lua-module.sh)" /out/ngx_http_lua_module.so \
  && cp "$(bash /src/scripts/build-pool-blocks.sh)" /out/libportico_pool_blocks.so

FROM debian:12-slim
# Debian's images deny service starts during builds (policy-rc.d), so
# installing nginx does not start the system nginx; Portico runs its own.
COPY scripts/debian-packages.txt /tmp/debian-packages.txt
RUN apt-get update \
  && grep -v '^#' /tmp/debian-packages.txt | xargs apt-get install -y --no-install-recommends \
  && rm -rf /var/lib/apt/lists/* /tmp/debian-packages.txt
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=lua-module /out/ngx_http_lua_module.so /usr/lib/portico/ngx_http_lua_module.so
COPY --from=lua-module /out/libportico_pool_blocks.so /usr/lib/portico/libportico_pool_blocks.so
WORKDIR /app
COPY package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY lua ./lua
COPY modsecurity ./modsecurity
# No USER: the controller and the nginx master run as uid 0 with the few
# capabilities deploy/deployment.yaml grants, so that nginx's workers can run
# as `nobody`, unable to read the ServiceAccount token (docs/deploy.md).
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
