#!/usr/bin/env bash
# Start a throw-away PostgreSQL for the store and scheduler tests and print its URL.
#
#   url=$(bash .ci/postgres.sh)          # postgresql+psycopg://postgres@127.0.0.1:PORT/verl_week
#   VERL_WEEK_TEST_POSTGRES_URL=$url .venv/bin/pytest -m postgres
#   bash .ci/postgres.sh stop            # stop it (the data dir stays until removed)
#
# Installs the server from Debian's packages (apt-get) when no pg_ctl is found, runs it as the
# `postgres` user (root) or as the caller, on 127.0.0.1 and a free port, with a data directory
# under $VERL_WEEK_PG_DIR (default: $TMPDIR/verl-week-postgres). Idempotent: a second call
# prints the URL of the server already running. Only the URL goes to stdout.
set -euo pipefail

STATE_DIR="${VERL_WEEK_PG_DIR:-${TMPDIR:-/tmp}/verl-week-postgres}"
DATA_DIR="$STATE_DIR/data"
SOCKET_DIR="$STATE_DIR/socket"
LOG_FILE="$STATE_DIR/server.log"
PORT_FILE="$STATE_DIR/port"
DB_NAME="${VERL_WEEK_PG_DB:-verl_week}"
DB_USER="postgres"

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
    local candidate
    for candidate in /usr/lib/postgresql/*/bin; do
        if [[ -x "$candidate/pg_ctl" && -x "$candidate/initdb" && -x "$candidate/postgres" ]]; then
            echo "$candidate"
        fi
    done | sort -V | tail -n 1
}

install_server() {
    if [[ "$(id -u)" -ne 0 ]]; then
        log "PostgreSQL server is not installed and we are not root: apt-get install postgresql"
        exit 1
    fi
    log "installing PostgreSQL from the Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # policy-rc.d 101: the package must not start its own cluster (we start ours below).
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        created_policy=1
    fi
    apt-get install -y -qq --no-install-recommends postgresql >&2
    if [[ "$created_policy" -eq 1 ]]; then
        rm -f "$policy"
    fi
}

# Run a command as the server's owner: `postgres` when we are root, else ourselves.
as_owner() {
    if [[ "$(id -u)" -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
        return
    fi
    local port
    for port in $(seq 54320 54420); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    log "no free port found in 54320-54420"
    exit 1
}

psql_admin() {
    psql -X -q -h 127.0.0.1 -p "$PORT" -U "$DB_USER" -d postgres -v ON_ERROR_STOP=1 "$@"
}

prepare_dirs() {
    mkdir -p "$STATE_DIR" "$SOCKET_DIR"
    chmod 700 "$STATE_DIR"
    if [[ "$(id -u)" -eq 0 ]]; then
        if ! id postgres >/dev/null 2>&1; then
            useradd --system --home-dir "$STATE_DIR" --shell /usr/sbin/nologin postgres
        fi
        chown -R postgres: "$STATE_DIR"
    fi
}

init_cluster() {
    if [[ -s "$DATA_DIR/PG_VERSION" ]]; then
        return
    fi
    log "initdb in $DATA_DIR"
    as_owner "$BINDIR/initdb" -D "$DATA_DIR" -U "$DB_USER" --auth=trust --encoding=UTF8 \
        --locale=C.UTF-8 >&2
}

start_server() {
    if as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1; then
        PORT="$(cat "$PORT_FILE")"
        return
    fi
    PORT="$(free_port)"
    as_owner sh -c "echo $PORT >'$PORT_FILE'"
    log "starting PostgreSQL on 127.0.0.1:$PORT"
    as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $SOCKET_DIR -c fsync=off" start >&2
}

create_database() {
    local exists
    exists="$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")"
    if [[ "$exists" != "1" ]]; then
        psql_admin -c "CREATE DATABASE $DB_NAME" >&2
    fi
}

main() {
    BINDIR="$(find_bindir)"
    if [[ -z "$BINDIR" ]]; then
        install_server
        BINDIR="$(find_bindir)"
    fi
    if [[ -z "$BINDIR" ]]; then
        log "no PostgreSQL server binaries under /usr/lib/postgresql after installing"
        exit 1
    fi
    if [[ "${1:-start}" == "stop" ]]; then
        if [[ -d "$DATA_DIR" ]]; then
            as_owner "$BINDIR/pg_ctl" -D "$DATA_DIR" -m fast stop >&2 || true
        fi
        return
    fi
    if ! command -v psql >/dev/null 2>&1; then
        PATH="$BINDIR:$PATH"
    fi
    prepare_dirs
    init_cluster
    start_server
    create_database
    echo "postgresql+psycopg://$DB_USER@127.0.0.1:$PORT/$DB_NAME"
}

main "$@"
