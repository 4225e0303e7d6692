#!/usr/bin/env bash
# Runs Portico on its embedded default: the manifests in examples/, two demo
# backends on loopback, no cluster. Extra arguments go to portico (e.g.
# --http-port 9080 to run a second instance beside the first).
# PORTICO_DEMO_HELLO_PORT and PORTICO_DEMO_API_PORT move the demo backends
# (default 18081, 18082, where examples/demo.yaml routes; give --manifests of
# your own that route to the others).
#
# SIGINT (Ctrl-C), SIGTERM (kill, timeout, a process manager) and SIGHUP (a
# closed terminal) stop Portico, its nginx and the demo backends; the script
# returns once they have exited, with Portico's exit code (0 after a clean stop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

http_port=8080
https_port=8443
hello_port=${PORTICO_DEMO_HELLO_PORT:-18081}
api_port=${PORTICO_DEMO_API_PORT:-18082}
# No load balancer has to take the demo out of rotation: stop without ingress-nginx's 10 s post-shutdown wait.
args=(--manifests examples --http-port "$http_port" --https-port "$https_port"
  --default-server-port 18181 --status-port 18246 --healthz-port 18254 --post-shutdown-grace-period 0 "$@")
# Later flags win; read the ports back for the URLs printed below.
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --http-port) http_port=${args[$((i + 1))]} ;;
    --http-port=*) http_port=${args[$i]#*=} ;;
    --https-port) https_port=${args[$((i + 1))]} ;;
    --https-port=*) https_port=${args[$i]#*=} ;;
  esac
done

backends=()
portico=
interrupted=
stop_all() { kill -TERM ${portico:+"$portico"} "${backends[@]}" 2>/dev/null || true; }
# A signal stops everything started here; the script goes on to wait for it all to exit.
trap 'interrupted=1; stop_all' INT TERM HUP
# Whatever ends the script (Portico exiting by itself, a failed step): no demo backend outlives it.
trap stop_all EXIT

# Waits for process $1 to exit and sets `status` to its exit code. `wait` returns
# early (128+n) when a trapped signal n arrives while the process is still stopping.
wait_for_exit() {
  while :; do
    interrupted=
    status=0
    wait "$1" || status=$?
    [ -n "$interrupted" ] || return 0
  done
}

for backend in "hello:$hello_port" "api:$api_port"; do
  name=${backend%%:*} port=${backend##*:}
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    node --import tsx tools/echo/echoServer.ts --listen "127.0.0.1:$port" --service "$name" --instance "$name-1" >/dev/null &
    backends+=($!)
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
portico_status=0
# Not started when a signal came during the setup (handled once it was done).
if [ -z "$interrupted" ]; then
  node bin/portico.js "${args[@]}" &
  portico=$!
  wait_for_exit "$portico"
  portico_status=$status
  portico=
fi
# Portico has exited (signalled or by itself): stop the backends, and wait for them too.
stop_all
for pid in "${backends[@]}"; do wait_for_exit "$pid"; done
exit "$portico_status"
