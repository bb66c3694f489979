# cluster.sh — start and stop throwaway PostgreSQL clusters as the postgres
# user (initdb refuses root), in a temporary folder, on a port of their own,
# listening on a unix socket inside that folder only.  Sourced by the other
# scripts.

PG_CONFIG=${PG_CONFIG:-pg_config}
PG_BINDIR=$("$PG_CONFIG" --bindir)
PG_PGXS_DIR=$(dirname "$("$PG_CONFIG" --pgxs)")

# Run a command as the postgres user (or as ourselves when we are not root).
as_postgres() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# A free TCP port number in the 54000-58999 range.
free_port() {
    local port
    for _ in $(seq 1 200); do
        port=$((54000 + RANDOM % 5000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    echo "no free port found" >&2
    return 1
}

# cluster_start DIR [extra postgresql.conf lines...]
# Creates DIR/data, starts it; sets CLUSTER_DIR, CLUSTER_PORT, CLUSTER_SOCKET.
cluster_start() {
    CLUSTER_DIR=$1
    shift
    CLUSTER_PORT=$(free_port)
    CLUSTER_SOCKET=$CLUSTER_DIR/socket
    mkdir -p "$CLUSTER_SOCKET"
    chown -R postgres: "$CLUSTER_DIR" 2>/dev/null || true
    as_postgres "$PG_BINDIR/initdb" -D "$CLUSTER_DIR/data" -A trust -U postgres \
        --no-sync >"$CLUSTER_DIR/initdb.log" 2>&1 || { cat "$CLUSTER_DIR/initdb.log"; return 1; }
    {
        echo "port = $CLUSTER_PORT"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$CLUSTER_SOCKET'"
        echo "shared_buffers = 128MB"
        echo "autovacuum = off"
        echo "checkpoint_timeout = 1h"
        echo "fsync = on"
        for line in "$@"; do echo "$line"; done
    } | as_postgres tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
    as_postgres "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null ||
        { cat "$CLUSTER_DIR/server.log"; return 1; }
    export PGHOST=$CLUSTER_SOCKET PGPORT=$CLUSTER_PORT PGUSER=postgres
}

cluster_stop() {
    [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR/data" ] || return 0
    as_postgres "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}

# cluster_psql ARGS... — psql against the running cluster, as postgres.
cluster_psql() {
    as_postgres "$PG_BINDIR/psql" -h "$CLUSTER_SOCKET" -p "$CLUSTER_PORT" -U postgres -X -v ON_ERROR_STOP=1 "$@"
}
