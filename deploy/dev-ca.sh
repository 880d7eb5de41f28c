#!/usr/bin/env bash
# Makes a throw-away development PKI for the compose cluster, OUTSIDE the
# repository (default /tmp/deckhand-dev-pki; give another directory as $1):
#
#   bash deploy/dev-ca.sh                 # then: docker compose -f deploy/compose.yaml up -d
#
#   ca.pem              the development CA (clients: --ca / DECKHAND_CA)
#   server.pem/.key     one certificate for every service, valid for the compose
#                       service names, localhost and 127.0.0.1, usable as a
#                       server and as a client certificate (the coordinator
#                       presents it to the workers, which require mutual TLS)
#   client.pem/.key     a client certificate for the CLI (--cert/--key)
#   tokens              one random bearer token (servers: --auth-tokens;
#                       coordinator: --worker-token-file; CLI: --token "$(cat tokens)")
#
# Needs openssl. Never use these files outside development: the CA key sits
# next to them. Production certificates come from your CA or cert-manager
# (see deploy/README.md).
set -euo pipefail

dir="${1:-/tmp/deckhand-dev-pki}"
mkdir -p "$dir"
cd "$dir"
umask 077

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj "/CN=deckhand development CA" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout ca.key -out ca.pem 2>/dev/null

leaf() { # name, extendedKeyUsage, subjectAltName
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -subj "/CN=deckhand $1" -keyout "$1.key" -out "$1.csr" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n%s\n' \
        "$2" "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
        -days 30 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}
leaf server serverAuth,clientAuth \
    "subjectAltName=DNS:hand-ops,DNS:rummikub,DNS:mahjong,DNS:preferans-worker,DNS:coordinator,DNS:localhost,IP:127.0.0.1"
leaf client clientAuth "subjectAltName=DNS:deckhand-cli"
openssl rand -hex 32 >tokens

# The containers run as uid 10001: let them read the files (not the CA key).
chmod 644 ca.pem server.pem client.pem tokens server.key client.key
echo "development PKI in $dir"
