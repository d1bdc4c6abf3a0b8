#!/usr/bin/env bash
# A private PostgreSQL server for askuser's tests and benchmarks.
#
#   scripts/postgres.sh          start it (installing PostgreSQL if needed); print its URL
#   scripts/postgres.sh stop     stop it
#   scripts/postgres.sh url      print the URL of the running server
#   scripts/postgres.sh tls-url  print the URL that reaches it over TCP and TLS
#                                (sslmode=verify-full, its own CA)
#
# The server keeps its data directory, Unix socket and log under
# ${ASKUSER_PG_DIR:-target/test-postgres} (relative to the repository), listens on
# that Unix socket and on 127.0.0.1 port ${ASKUSER_PG_PORT:-54329} with TLS on (a CA
# and a certificate for `localhost` made with openssl under tls/), and trusts local
# connections (a test server: only this machine reaches it). It has a role and a
# database named `askuser`. The last line printed on stdout is the URL to give
# askuser (the Unix socket), e.g.
#
#   export ASKUSER_TEST_PG="$(scripts/postgres.sh | tail -n 1)"
#
# Idempotent: a second run with the server up just prints the URL. When run as
# root, the server runs as the unprivileged `postgres` user (PostgreSQL refuses to
# run as root). If `initdb`/`pg_ctl` are missing, PostgreSQL is installed from
# Debian's packages (`apt-get install -y postgresql`).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "postgres.sh: $*" >&2; }
die() { say "$*"; exit 1; }

base="${ASKUSER_PG_DIR:-target/test-postgres}"
case "$base" in /*) ;; *) base="$root/$base" ;; esac

# The binaries: on PATH, or Debian's versioned directory (newest first).
find_bin_dir() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"
        return
    fi
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return
        fi
    done
}

install_postgres() {
    say "initdb/pg_ctl not found: installing PostgreSQL from Debian's packages"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2 || die "apt-get update failed"
    $sudo apt-get install -y -qq postgresql >&2 \
        || die "could not install PostgreSQL (apt-get install -y postgresql failed)"
}

bin="$(find_bin_dir)"
if [ -z "$bin" ]; then
    install_postgres
    bin="$(find_bin_dir)"
    [ -n "$bin" ] || die "PostgreSQL was installed but initdb/pg_ctl are still not found"
fi
psql_bin="$bin/psql"
[ -x "$psql_bin" ] || psql_bin="$(command -v psql || true)"
[ -n "$psql_bin" ] || die "psql not found beside $bin/pg_ctl"

# Who runs the server: ourselves, or `postgres` when we are root.
owner=""
if [ "$(id -u)" -eq 0 ]; then
    owner="postgres"
    if ! id -u "$owner" >/dev/null 2>&1; then
        useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$owner" \
            || die "cannot create the unprivileged user '$owner' to run the server"
    fi
fi
as_owner() {
    if [ -n "$owner" ]; then
        if command -v runuser >/dev/null 2>&1; then
            runuser -u "$owner" -- "$@"
        else
            su -s /bin/sh "$owner" -c "$(printf '%q ' "$@")"
        fi
    else
        "$@"
    fi
}

# The server's user must reach the directory, and a socket path may not exceed ~107
# bytes: otherwise use a directory under /tmp named after the repository.
usable() {
    local socket="$1/socket/.s.PGSQL.5432"
    [ "${#socket}" -le 100 ] || return 1
    mkdir -p "$1" 2>/dev/null || return 1
    [ -z "$owner" ] || chown "$owner" "$1" || return 1
    as_owner test -w "$1"
}
if ! usable "$base"; then
    fallback="/tmp/askuser-pg-$(printf '%s' "$root" | cksum | cut -d' ' -f1)"
    say "cannot use $base for the server (too long a path, or not reachable by '${owner:-$(id -un)}'); using $fallback"
    base="$fallback"
    usable "$base" || die "cannot use $base either: set ASKUSER_PG_DIR to a short directory the server's user can write"
fi
data="$base/data"
socket="$base/socket"
logfile="$base/server.log"
tls="$base/tls"
port="${ASKUSER_PG_PORT:-54329}"
encode() { printf '%s' "$1" | sed 's|%|%25|g; s|/|%2F|g; s| |%20|g; s|&|%26|g'; }
url="postgres://askuser@$(encode "$socket"):$port/askuser"
tls_url="postgres://askuser@localhost:$port/askuser?sslmode=verify-full&sslrootcert=$(encode "$tls/ca.crt")"

running() { as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1; }

# A CA and a certificate for `localhost` (not for 127.0.0.1: a test connects by
# address to see verify-full refuse a name the certificate does not hold).
make_certificates() {
    [ -f "$tls/server.crt" ] && [ -f "$tls/server.key" ] && return
    command -v openssl >/dev/null 2>&1 || die "openssl is missing (apt-get install openssl): it makes the test server's certificate"
    say "making a CA and a certificate for localhost in $tls"
    mkdir -p "$tls"
    (
        cd "$tls"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -days 3650 -subj "/CN=askuser test CA" -keyout ca.key -out ca.crt
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -subj "/CN=localhost" -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >ext.cnf
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
            -days 3650 -extfile ext.cnf -out server.crt
    ) >"$base/openssl.log" 2>&1 || { cat "$base/openssl.log" >&2; die "openssl could not make the certificates (its output is above)"; }
    chmod 600 "$tls/server.key" "$tls/ca.key"
    [ -z "$owner" ] || chown "$owner" "$tls/server.key" "$tls/server.crt"
}

# Whether the running server is the one this script starts now (TLS on, the port).
current() {
    [ "$("$psql_bin" -h "$socket" -p "$port" -U postgres -d postgres -qtA -c 'SHOW ssl' 2>/dev/null)" = on ]
}

stop() {
    if [ -f "$data/PG_VERSION" ] && running; then
        as_owner "$bin/pg_ctl" stop -D "$data" -m fast -w >&2
    else
        say "no server running in $data"
    fi
}

start() {
    if [ ! -f "$data/PG_VERSION" ]; then
        say "creating a database cluster in $data"
        rm -rf "$data"
        as_owner mkdir -p "$data" "$socket"
        chmod 700 "$data" "$socket"
        as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 \
            --locale=C.UTF-8 >"$base/initdb.log" 2>&1 \
            || { cat "$base/initdb.log" >&2; die "initdb failed (its output is above)"; }
    fi
    as_owner mkdir -p "$socket"
    make_certificates
    if running && ! current; then
        say "restarting the server started without TLS or on another port"
        as_owner "$bin/pg_ctl" stop -D "$data" -m fast -w >&2
    fi
    if ! running; then
        say "starting the server (log: $logfile)"
        as_owner "$bin/pg_ctl" start -D "$data" -l "$logfile" -w -t 60 -o \
            "-c listen_addresses='127.0.0.1' -c port=$port -c unix_socket_directories='$socket' -c max_connections=300 -c ssl=on -c ssl_cert_file='$tls/server.crt' -c ssl_key_file='$tls/server.key'" \
            >&2 || { tail -n 20 "$logfile" >&2 || true; die "the server did not start (its log is above)"; }
    fi
    local psql=("$psql_bin" -h "$socket" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
    if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = 'askuser'")" != 1 ]; then
        "${psql[@]}" -c "CREATE ROLE askuser LOGIN CREATEDB" >&2
    fi
    if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'askuser'")" != 1 ]; then
        "${psql[@]}" -c "CREATE DATABASE askuser OWNER askuser" >&2
    fi
}

case "${1:-start}" in
    start) start; echo "$url" ;;
    url) running || die "no server running in $data: run scripts/postgres.sh"; echo "$url" ;;
    tls-url) running || die "no server running in $data: run scripts/postgres.sh"; echo "$tls_url" ;;
    stop) stop ;;
    *) die "usage: scripts/postgres.sh [start|stop|url|tls-url]" ;;
esac
