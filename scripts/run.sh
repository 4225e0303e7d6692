#!/usr/bin/env bash
# Runs Portico on its embedded default: the manifests in examples/, two demo
# backends on loopback, no cluster. Extra arguments go to portico (e.g.
# --http-port 9080 to run a second instance beside the first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

http_port=8080
https_port=8443
args=(--manifests examples --http-port "$http_port" --https-port "$https_port"
  --default-server-port 18181 --status-port 18246 --healthz-port 18254 "$@")
# Later flags win; read the ports back for the URLs printed below.
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --http-port) http_port=${args[$((i + 1))]} ;;
    --http-port=*) http_port=${args[$i]#*=} ;;
    --https-port) https_port=${args[$((i + 1))]} ;;
    --https-port=*) https_port=${args[$i]#*=} ;;
  esac
done

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for backend in hello:18081 api:18082; do
  name=${backend%%:*} port=${backend##*:}
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    node --import tsx tools/echo/echoServer.ts --listen "127.0.0.1:$port" --service "$name" --instance "$name-1" >/dev/null &
    pids+=($!)
  fi
done

cat <<EOT
Portico is starting on the manifests in examples/ (edit them; routing follows live):
  curl -H 'Host: hello.localhost' http://127.0.0.1:$http_port/
  curl -H 'Host: hello.localhost' http://127.0.0.1:$http_port/api/users
  curl -H 'Host: api.localhost'   http://127.0.0.1:$http_port/v1/users     (rewritten to /users)
  curl -k --resolve hello.localhost:$https_port:127.0.0.1 https://hello.localhost:$https_port/
  curl http://127.0.0.1:$http_port/                                          (no rule: 404)
Stop with Ctrl-C.
EOT
node bin/portico.js "${args[@]}" &
pids+=($!)
wait "${pids[-1]}"
