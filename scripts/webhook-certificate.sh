#!/usr/bin/env bash
# Creates the admission webhook's TLS certificate: a private CA and a serving
# certificate for the webhook Service, stored in the Secret the Deployment
# mounts (tls.crt, tls.key, ca.crt), and the CA put into the caBundle of every
# webhook of the ValidatingWebhookConfiguration, so the API server trusts it.
# Run it after `kubectl apply -k deploy/`, and again to rotate (the CA changes
# with it). Needs openssl and kubectl with rights to write both objects.
#
# Environment (defaults match deploy/):
#   NAMESPACE=portico  SERVICE=portico-controller-admission
#   SECRET=portico-admission  WEBHOOK=portico-admission  DAYS=3650
set -euo pipefail

namespace=${NAMESPACE:-portico}
service=${SERVICE:-portico-controller-admission}
secret=${SECRET:-portico-admission}
webhook=${WEBHOOK:-portico-admission}
days=${DAYS:-3650}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The CA signs one certificate and is then thrown away: only its certificate is kept.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
  -subj "/CN=$service.$namespace CA" -keyout ca.key -out ca.crt 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -subj "/CN=$service.$namespace.svc" -keyout tls.key -out tls.csr 2>/dev/null
# The API server calls https://<service>.<namespace>.svc and checks that name.
cat > tls.ext <<EXT
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:$service.$namespace.svc, DNS:$service.$namespace.svc.cluster.local, DNS:$service.$namespace, DNS:$service
EXT
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" -sha256 \
  -extfile tls.ext -out tls.crt 2>/dev/null

kubectl -n "$namespace" create secret generic "$secret" --type=kubernetes.io/tls \
  --from-file=tls.crt --from-file=tls.key --from-file=ca.crt --dry-run=client -o yaml |
  kubectl apply -f -

ca_bundle=$(base64 -w0 < ca.crt)
count=$(kubectl get validatingwebhookconfiguration "$webhook" -o go-template='{{len .webhooks}}')
patch=""
for ((i = 0; i < count; i++)); do
  patch+="${patch:+,}{\"op\":\"add\",\"path\":\"/webhooks/$i/clientConfig/caBundle\",\"value\":\"$ca_bundle\"}"
done
kubectl patch validatingwebhookconfiguration "$webhook" --type=json -p "[$patch]"
