#!/usr/bin/env bash
# Local infrastructure without Docker (docs/architecture.md §10):
#   - RabbitMQ from the distribution's rabbitmq-server package (installed with apt when missing);
#   - a MongoDB-wire-compatible document database: FerretDB, built from infra/docdb, storing its
#     data in a PostgreSQL cluster of its own under .data/postgresql (the default) or with SQLite
#     (PostgreSQL is Debian's postgresql package, installed with apt when missing).
# Usage: scripts/infra.sh up|down|status
#        scripts/infra.sh cluster up|down|status|stop-node N|start-node N
#        scripts/infra.sh psql [PSQL ARGS]
#   cluster: a three-node RabbitMQ cluster of its own beside the single node (never touched):
#   nodes sb_cluster_{1,2,3}@localhost, AMQP on 127.0.0.1:CLUSTER_AMQP_BASE+{1,2,3} (5701..5703),
#   distribution ports 20000 above, the machine's epmd. `down` stops them and deletes their
#   data (a fresh cluster each `up`). stop-node/start-node stop and start one node (failover).
#   psql: psql on the PostgreSQL database of the docdb on DOCDB_PORT (postgresql backend), to see
#   how FerretDB stores the data, or to hold a row locked (a test holds one document's writes so).
#   MONGODB_URL set -> the document database is external: not built, started or stopped here.
#   AMQP_URL set    -> RabbitMQ is external: not installed, started or stopped here.
#   DOCDB_PORT (27017) and AMQP_PORT (5672) choose the local ports; RabbitMQ's management HTTP API
#   (enabled on every local node, for the tests) listens on 127.0.0.1 at AMQP_PORT + 10000.
#   RABBITMQ_NODENAME, ERL_EPMD_PORT: another local RabbitMQ node (and epmd) beside the default.
#   DOCDB_BACKEND   -> postgresql or sqlite. Unset: what the running docdb uses, else postgresql.
#                      The two keep separate data; switching needs `down` first.
#   DOCDB_PPROF     -> host:port where a docdb started now serves Go's profiling endpoints
#                      (/debug/pprof/profile?seconds=N); unset: none.
# Idempotent; needs no stdin. `down` stops only what this script started (pid file / marker).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="$ROOT/.data"
LOGS="$DATA/logs"
DOCDB_SRC="$ROOT/infra/docdb"
DOCDB_BIN="$DOCDB_SRC/bin/docdb"
DOCDB_PORT="${DOCDB_PORT:-27017}"
# A docdb on another port keeps its own pid file, SQLite files and PostgreSQL database.
if [ "$DOCDB_PORT" = 27017 ]; then
  DOCDB_PID="$DATA/docdb.pid"
  DOCDB_DATA="$DATA/docdb"
else
  DOCDB_PID="$DATA/docdb-$DOCDB_PORT.pid"
  DOCDB_DATA="$DATA/docdb-$DOCDB_PORT"
fi
DOCDB_BACKEND="${DOCDB_BACKEND:-}"
case "$DOCDB_BACKEND" in
  "" | sqlite | postgresql) ;;
  *) echo "infra: error: DOCDB_BACKEND must be sqlite or postgresql, not '$DOCDB_BACKEND'" >&2 && exit 1 ;;
esac
PG_ROOT="$DATA/postgresql" # owned by the user PostgreSQL runs as: data/, its log
PG_DATA="$PG_ROOT/data"
PG_PORT=5432 # names the socket file only: the cluster listens on no TCP port
PG_DB="docdb_$DOCDB_PORT"
PG_WAIT_S="${PG_WAIT_S:-60}"
AMQP_PORT="${AMQP_PORT:-5672}"
DOCDB_WAIT_S="${DOCDB_WAIT_S:-30}"
RABBIT_WAIT_S="${RABBIT_WAIT_S:-90}"
LOCAL_MONGODB_URL="mongodb://127.0.0.1:$DOCDB_PORT"
LOCAL_AMQP_URL="amqp://127.0.0.1:$AMQP_PORT"

say() { echo "infra: $*"; }
die() {
  echo "infra: error: $*" >&2
  exit 1
}

# Accepts a TCP connection within 2 s?
probe() { timeout 2 bash -c ">/dev/tcp/$1/$2" 2>/dev/null; }

# URL without its password, for printing.
redact() { sed -E 's#(://[^:@/]+):[^@/]*@#\1:***@#' <<<"$1"; }

# "host port" of the first host in a mongodb:// or amqp(s):// URL; empty for mongodb+srv.
url_host_port() {
  local url=$1 rest host port default
  case "$url" in
    mongodb+srv://*) return 0 ;;
    amqps://*) default=5671 ;;
    amqp://*) default=5672 ;;
    *) default=27017 ;;
  esac
  rest=${url#*://}
  rest=${rest%%/*}
  rest=${rest%%\?*}
  rest=${rest##*@}
  rest=${rest%%,*}
  if [[ $rest == \[* ]]; then # [ipv6]:port
    host=${rest%%]*}
    host=${host#[}
    port=${rest#*]}
    port=${port#:}
  elif [[ $rest == *:* ]]; then
    host=${rest%%:*}
    port=${rest##*:}
  else
    host=$rest
    port=
  fi
  echo "${host:-127.0.0.1} ${port:-$default}"
}

# Reachable external URL? (SRV records are not resolved here: assumed reachable.)
probe_url() {
  local hp
  hp=$(url_host_port "$1")
  [ -z "$hp" ] && return 0
  # shellcheck disable=SC2086
  probe $hp
}

# The status line of an external service: its URL without the password, and whether it answers.
external_status() {
  if probe_url "$2"; then
    say "$1 external $(redact "$2")"
  else
    say "$1 external $(redact "$2") (unreachable)"
    return 1
  fi
}

# Prefix for commands that need root: nothing as root, `sudo -n` otherwise (never prompts).
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=()
elif command -v sudo >/dev/null; then
  AS_ROOT=(sudo -n)
else
  AS_ROOT=(no_root)
fi
no_root() { die "'$*' needs root, and sudo is not installed"; }

# ---------------------------------------------------------------- RabbitMQ
# Debian's rabbitmq-server and rabbitmqctl wrappers switch to the rabbitmq user themselves.
#
# Every listener stays on loopback (RabbitMQ and Erlang listen on every interface by default):
#   - AMQP on 127.0.0.1 (RABBITMQ_NODE_IP_ADDRESS);
#   - epmd, Erlang's port mapper, on loopback (ERL_EPMD_ADDRESS). The first Erlang node of the
#     machine starts epmd, and that may be a rabbitmqctl racing the server, so every rabbitmq
#     command here carries the variable;
#   - the node's distribution port (AMQP_PORT + 20000) on the loopback address the host name
#     resolves to, where rabbitmqctl reaches rabbit@<host name>; rabbitmqctl's own on 127.0.0.1;
#   - the management HTTP API on 127.0.0.1:AMQP_PORT + 10000 (15672 beside 5672), where tests
#     make their vhosts and look at queues and connections.
# Passed explicitly with `env`, because `sudo` drops the caller's environment.

# First IPv4 address of the short host name (what Erlang resolves rabbit@<host name> to).
host_ipv4() { getent ahostsv4 "$(hostname -s)" 2>/dev/null | awk 'NR == 1 { print $1 }'; }

RABBIT_DIST_IP=$(host_ipv4)
RABBIT_DIST_IP=${RABBIT_DIST_IP:-127.0.0.1} # not 127.*: warned about in rabbit_up
RABBIT_EPMD_ADDRESS=127.0.0.1
[ "$RABBIT_DIST_IP" != 127.0.0.1 ] && RABBIT_EPMD_ADDRESS="127.0.0.1,$RABBIT_DIST_IP"
EPMD_PORT="${ERL_EPMD_PORT:-4369}"

# Points the RabbitMQ functions below at one node: its name (empty: the default, rabbit@<host>),
# AMQP port, distribution address and the file keeping the OS pid of the node we started.
rabbit_select() {
  local nodename=$1 dist_ip=$3
  AMQP_PORT=$2
  MGMT_PORT=$((AMQP_PORT + 10000))
  MGMT_LISTENER="[{ip,\"127.0.0.1\"},{port,$MGMT_PORT}]"
  if [ "$AMQP_PORT" = 5672 ]; then
    RABBIT_MARKER="$DATA/rabbitmq.pid"
  else
    RABBIT_MARKER="$DATA/rabbitmq-$AMQP_PORT.pid"
  fi
  RABBIT_ENV=(
    env
    RABBITMQ_NODE_PORT="$AMQP_PORT"
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
    ERL_EPMD_ADDRESS="$RABBIT_EPMD_ADDRESS"
    ERL_EPMD_PORT="$EPMD_PORT"
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {${dist_ip//./,}} -rabbitmq_management tcp_config $MGMT_LISTENER"
    # The node's plugins, and a file of its own that the node writes them to: the machine's
    # enabled_plugins file is read by every node started otherwise, without this listener.
    RABBITMQ_ENABLED_PLUGINS=rabbitmq_management
    RABBITMQ_ENABLED_PLUGINS_FILE="/var/lib/rabbitmq/enabled_plugins-$AMQP_PORT"
    RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
  )
  [ -n "$nodename" ] && RABBIT_ENV+=(RABBITMQ_NODENAME="$nodename")
  RABBITMQCTL=("${AS_ROOT[@]}" "${RABBIT_ENV[@]}" rabbitmqctl)
}
rabbit_select "${RABBITMQ_NODENAME:-}" "$AMQP_PORT" "$RABBIT_DIST_IP"

rabbit_node_pid() { timeout 20 "${RABBITMQCTL[@]}" -q eval 'os:getpid().' 2>/dev/null | tr -dc '0-9'; }

# Local addresses listening on a TCP port that are not loopback (ss prints [::ffff:a.b.c.d]).
wide_listeners() {
  command -v ss >/dev/null || return 0
  ss -Hltn "sport = :$1" 2>/dev/null | awk '{ print $4 }' |
    grep -vE '^(127\.|\[::1\]|\[::ffff:127\.)' || true
}

# An epmd left listening beyond loopback (started earlier by any Erlang program) would serve
# this node too: stop it when no node is registered with it, so the node starts one on loopback.
epmd_narrow() {
  [ -n "$(wide_listeners "$EPMD_PORT")" ] || return 0
  if "${AS_ROOT[@]}" env ERL_EPMD_PORT="$EPMD_PORT" epmd -names 2>/dev/null | grep -q '^name '; then
    say "rabbitmq: warning: epmd on port $EPMD_PORT listens beyond loopback and serves running Erlang nodes; left running"
    return 0
  fi
  say "rabbitmq: stopping an idle epmd that listens beyond loopback on port $EPMD_PORT"
  "${AS_ROOT[@]}" env ERL_EPMD_PORT="$EPMD_PORT" epmd -kill >/dev/null 2>&1 || true
}

rabbit_up() {
  if [ -n "${AMQP_URL:-}" ]; then
    say "rabbitmq external ($(redact "$AMQP_URL")), nothing to start"
    return 0
  fi
  command -v rabbitmq-server >/dev/null || rabbit_install
  rabbit_start_node
}

rabbit_install() {
  if ! command -v rabbitmq-server >/dev/null; then
    say "rabbitmq: installing Debian's rabbitmq-server package"
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
    # The package's own start attempt may fail where there is no init system; we start it below.
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rabbitmq-server </dev/null ||
      command -v rabbitmq-server >/dev/null || die "apt-get could not install rabbitmq-server"
  fi
}

# Starts the selected node unless something already answers on its AMQP port.
rabbit_start_node() {
  if probe 127.0.0.1 "$AMQP_PORT"; then
    say "rabbitmq already up on 127.0.0.1:$AMQP_PORT"
    local port wide=""
    for port in "$AMQP_PORT" $((AMQP_PORT + 20000)) "$EPMD_PORT" "$MGMT_PORT"; do
      [ -z "$(wide_listeners "$port")" ] || wide="$wide $port"
    done
    [ -z "$wide" ] ||
      say "rabbitmq: warning: port(s)$wide listen beyond loopback (a node started otherwise, or before infra.sh kept it on loopback); if this script started it, 'down' and 'up' again restart it on loopback"
    rabbit_management_check
    return 0
  fi
  [ "${AS_ROOT[*]-}" = no_root ] && no_root rabbitmq-server -detached
  case "$RABBIT_DIST_IP" in
    127.*) ;;
    *) say "rabbitmq: warning: host name $(hostname -s) resolves to $RABBIT_DIST_IP, not loopback; the distribution port listens there so that rabbitmqctl reaches the node" ;;
  esac
  epmd_narrow
  say "rabbitmq: starting on 127.0.0.1:$AMQP_PORT"
  local started=$SECONDS
  # 9>&- : the detached node must not inherit the lock descriptor.
  "${AS_ROOT[@]}" "${RABBIT_ENV[@]}" rabbitmq-server -detached \
    </dev/null >>"$LOGS/rabbitmq-start.log" 2>&1 9>&-
  until timeout 10 "${RABBITMQCTL[@]}" -q await_startup --timeout 8 >/dev/null 2>&1 9>&- &&
    probe 127.0.0.1 "$AMQP_PORT"; do
    [ $((SECONDS - started)) -ge "$RABBIT_WAIT_S" ] &&
      die "rabbitmq accepts no connection on 127.0.0.1:$AMQP_PORT after ${RABBIT_WAIT_S}s (see /var/log/rabbitmq/)"
    sleep 1
  done
  rabbit_node_pid >"$RABBIT_MARKER" || true
  say "rabbitmq up on 127.0.0.1:$AMQP_PORT after $((SECONDS - started))s"
  rabbit_management_check
}

# The management API of the selected node, which a node this script starts has (its plugins and
# listener are in its environment). One started otherwise is only told how to get it: enabling a
# plugin on a running node goes through the machine's enabled_plugins file, which would start it,
# listening on every interface, in every other node of the machine at its next start.
rabbit_management_check() {
  local started=$SECONDS
  until probe 127.0.0.1 "$MGMT_PORT"; do
    if [ $((SECONDS - started)) -ge 10 ]; then
      say "rabbitmq: warning: no management API on 127.0.0.1:$MGMT_PORT (tests make their vhosts through it); a node started before this script enabled it needs 'scripts/infra.sh down' and 'up'"
      return 0
    fi
    sleep 1
  done
  say "rabbitmq: management API on http://127.0.0.1:$MGMT_PORT"
}

rabbit_down() {
  if [ -n "${AMQP_URL:-}" ]; then
    say "rabbitmq external, nothing to stop"
    return 0
  fi
  if [ ! -s "$RABBIT_MARKER" ]; then
    if probe 127.0.0.1 "$AMQP_PORT"; then
      say "rabbitmq was not started by this script, left running"
    else
      say "rabbitmq already down"
    fi
    rm -f "$RABBIT_MARKER"
    return 0
  fi
  local ours running
  ours=$(cat "$RABBIT_MARKER")
  running=$(rabbit_node_pid || true)
  if [ -z "$running" ]; then
    say "rabbitmq already down"
  elif [ "$running" != "$ours" ]; then
    say "rabbitmq running now is not the one this script started, left running"
  else
    say "rabbitmq: stopping"
    timeout 60 "${RABBITMQCTL[@]}" -q stop >/dev/null 9>&-
    say "rabbitmq stopped"
  fi
  rm -f "$RABBIT_MARKER"
}

rabbit_status() {
  if [ -n "${AMQP_URL:-}" ]; then
    external_status "rabbitmq" "$AMQP_URL" || return 1
  elif probe 127.0.0.1 "$AMQP_PORT"; then
    say "rabbitmq up       $LOCAL_AMQP_URL"
    if probe 127.0.0.1 "$MGMT_PORT"; then
      say "rabbitmq management http://127.0.0.1:$MGMT_PORT"
    else
      say "rabbitmq management down http://127.0.0.1:$MGMT_PORT (a node infra.sh starts has it)"
    fi
  else
    say "rabbitmq down     $LOCAL_AMQP_URL"
    return 1
  fi
}

# ---------------------------------------------------------------- RabbitMQ cluster (three nodes)
# Nodes named @localhost: their distribution ports bind 127.0.0.1, where `localhost` resolves.
# They share the machine's epmd and Erlang cookie with the single node, which is never touched.
CLUSTER_AMQP_BASE="${CLUSTER_AMQP_BASE:-5700}"
CLUSTER_SIZE=3
cluster_node() { echo "sb_cluster_$1@localhost"; }
cluster_port() { echo $((CLUSTER_AMQP_BASE + $1)); }
cluster_select() { rabbit_select "$(cluster_node "$1")" "$(cluster_port "$1")" 127.0.0.1; }
cluster_urls() {
  local i urls=()
  for i in $(seq 1 "$CLUSTER_SIZE"); do urls+=("amqp://127.0.0.1:$(cluster_port "$i")"); done
  (IFS=,; echo "${urls[*]}")
}

# Running nodes of the cluster node $1 belongs to, one per line.
cluster_running() {
  cluster_select "$1"
  timeout 20 "${RABBITMQCTL[@]}" -q eval \
    'io:format("~s~n", [string:join([atom_to_list(N) || N <- rabbit_nodes:all_running()], " ")]).' \
    2>/dev/null 9>&- | head -n 1 | tr ' ' '\n' | grep . || true
}

cluster_up() {
  [ "${AS_ROOT[*]-}" = no_root ] && no_root rabbitmq-server -detached
  rabbit_install
  local i started=$SECONDS first
  first=$(cluster_node 1)
  for i in $(seq 1 "$CLUSTER_SIZE"); do
    cluster_select "$i"
    rabbit_start_node
  done
  for i in $(seq 2 "$CLUSTER_SIZE"); do
    cluster_running 1 | grep -qx "$(cluster_node "$i")" && continue
    say "rabbitmq cluster: $(cluster_node "$i") joins $first"
    cluster_select "$i"
    timeout 60 "${RABBITMQCTL[@]}" -q stop_app >>"$LOGS/rabbitmq-cluster.log" 2>&1 9>&-
    timeout 60 "${RABBITMQCTL[@]}" -q reset >>"$LOGS/rabbitmq-cluster.log" 2>&1 9>&-
    timeout 60 "${RABBITMQCTL[@]}" -q join_cluster "$first" >>"$LOGS/rabbitmq-cluster.log" 2>&1 9>&- ||
      die "$(cluster_node "$i") could not join $first"
    timeout 60 "${RABBITMQCTL[@]}" -q start_app >>"$LOGS/rabbitmq-cluster.log" 2>&1 9>&-
  done
  local running
  running=$(cluster_running 1 | wc -l)
  [ "$running" = "$CLUSTER_SIZE" ] || die "rabbitmq cluster: $running of $CLUSTER_SIZE nodes running"
  say "rabbitmq cluster up after $((SECONDS - started))s: AMQP_URL=$(cluster_urls)"
}

cluster_down() {
  local i node
  for i in $(seq 1 "$CLUSTER_SIZE"); do
    cluster_select "$i"
    node=$(cluster_node "$i")
    if [ -n "$(rabbit_node_pid || true)" ]; then
      say "rabbitmq cluster: stopping $node"
      timeout 60 "${RABBITMQCTL[@]}" -q stop >/dev/null 9>&- || true
    fi
    rm -f "$RABBIT_MARKER"
    # A fresh cluster each time: nodes that remember each other wait for one another at start.
    "${AS_ROOT[@]}" rm -rf "/var/lib/rabbitmq/mnesia/$node" "/var/lib/rabbitmq/mnesia/$node-feature_flags" \
      "/var/lib/rabbitmq/mnesia/$node-plugins-expand" "/var/lib/rabbitmq/mnesia/$node.pid" \
      "/var/lib/rabbitmq/enabled_plugins-$AMQP_PORT"
  done
  say "rabbitmq cluster down"
}

cluster_status() {
  local i rc=0 running
  running=$(cluster_running 1 || true)
  for i in $(seq 1 "$CLUSTER_SIZE"); do
    if probe 127.0.0.1 "$(cluster_port "$i")"; then
      say "rabbitmq cluster node $(cluster_node "$i") up amqp://127.0.0.1:$(cluster_port "$i")"
    else
      say "rabbitmq cluster node $(cluster_node "$i") down amqp://127.0.0.1:$(cluster_port "$i")"
      rc=1
    fi
  done
  say "rabbitmq cluster: $(echo "$running" | grep -c . || true) of $CLUSTER_SIZE nodes clustered and running"
  return "$rc"
}

# Stops one node the way a lost machine goes: SIGKILL, no goodbye to its clients or peers.
cluster_stop_node() {
  cluster_select "$1"
  local pid
  pid=$(rabbit_node_pid || true)
  [ -n "$pid" ] || die "$(cluster_node "$1") is not running"
  say "rabbitmq cluster: killing $(cluster_node "$1") (pid $pid)"
  "${AS_ROOT[@]}" kill -KILL "$pid"
  while probe 127.0.0.1 "$AMQP_PORT"; do sleep 0.1; done
  rm -f "$RABBIT_MARKER"
}

cluster_start_node() {
  cluster_select "$1"
  rabbit_start_node
}

# ---------------------------------------------------------------- PostgreSQL (DOCDB_BACKEND=postgresql)
# A cluster of the project's own under .data/postgresql, reachable only through a Unix socket in a
# directory closed to other users (no TCP port, so no clash with another cluster or checkout;
# trust authentication is then safe). PostgreSQL refuses to run as root: as root it runs as the
# `postgres` user the package creates, otherwise as the invoking user.

if [ "$(id -u)" = 0 ]; then
  PG_USER=postgres
  as_pg() { (cd / && runuser -u postgres -- "$@"); }
else
  PG_USER=$(id -un)
  as_pg() { "$@"; }
fi

# Unix socket paths are limited to 107 bytes: a deep checkout gets a short directory in /tmp.
PG_SOCK_DIR="$PG_ROOT/run"
if [ $((${#PG_SOCK_DIR} + 20)) -gt 100 ]; then
  PG_SOCK_DIR="/tmp/docdb-pg-$(md5sum <<<"$PG_ROOT" | cut -c1-12)"
fi
PG_DOCDB_URL="postgres://postgres@/$PG_DB?host=$PG_SOCK_DIR&port=$PG_PORT"

# bin directory of the cluster's PostgreSQL version (of the newest installed before initdb).
pg_bindir() {
  local version
  if [ -s "$PG_DATA/PG_VERSION" ]; then
    version=$(cat "$PG_DATA/PG_VERSION")
    [ -x "/usr/lib/postgresql/$version/bin/pg_ctl" ] && echo "/usr/lib/postgresql/$version/bin"
    return 0
  fi
  { find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null || true; } |
    sort -V | tail -n 1 | xargs -r dirname
}

pg_running() { [ -s "$PG_DATA/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; }

pg_psql() { as_pg "$PG_BIN/psql" -X -q -h "$PG_SOCK_DIR" -p "$PG_PORT" -U postgres "$@" </dev/null; }

pg_up() {
  PG_BIN=$(pg_bindir)
  if [ -z "$PG_BIN" ] && [ -s "$PG_DATA/PG_VERSION" ]; then
    die "PostgreSQL $(cat "$PG_DATA/PG_VERSION") made .data/postgresql but is not installed; remove .data/postgresql to start afresh"
  fi
  if [ -z "$PG_BIN" ]; then
    say "postgresql: installing Debian's postgresql package"
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
    # Its own cluster (main) may fail to start where there is no init system: not ours, unused.
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql </dev/null 9>&- ||
      true
    PG_BIN=$(pg_bindir)
    [ -n "$PG_BIN" ] || die "apt-get could not install postgresql"
  fi
  if [ ! -s "$PG_DATA/PG_VERSION" ]; then
    say "postgresql: creating a cluster in .data/postgresql"
    mkdir -p "$PG_ROOT"
    chown "$PG_USER:" "$PG_ROOT"
    chmod 700 "$PG_ROOT"
    as_pg test -w "$PG_ROOT" ||
      die "user $PG_USER cannot write $PG_ROOT (is a parent directory closed to other users?)"
    rm -rf "$PG_DATA"
    if ! as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --no-locale \
      >"$PG_ROOT/initdb.log" 2>&1; then
      tail -n 20 "$PG_ROOT/initdb.log" >&2
      die "initdb failed (log: .data/postgresql/initdb.log)"
    fi
  fi
  if ! pg_running; then
    say "postgresql: starting ($(basename "$(dirname "$PG_BIN")"), socket in $PG_SOCK_DIR)"
    mkdir -p "$PG_SOCK_DIR"
    chown "$PG_USER:" "$PG_SOCK_DIR"
    chmod 700 "$PG_SOCK_DIR"
    # synchronous_commit off: a crash of the machine may lose the last commits, never corrupts.
    # 9>&- : the server must not inherit the lock descriptor.
    if ! as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_ROOT/postgresql.log" -w -t "$PG_WAIT_S" \
      -o "-c listen_addresses='' -c unix_socket_directories='$PG_SOCK_DIR' -c unix_socket_permissions=0700 -c port=$PG_PORT -c max_connections=200 -c synchronous_commit=off" \
      start </dev/null >/dev/null 2>&1 9>&-; then
      tail -n 20 "$PG_ROOT/postgresql.log" >&2 || true
      die "postgresql did not start (log: .data/postgresql/postgresql.log)"
    fi
  fi
  if [ "$(pg_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != 1 ]; then
    pg_psql -d postgres -c "CREATE DATABASE \"$PG_DB\"" >/dev/null || die "cannot create database $PG_DB"
    say "postgresql: database $PG_DB created"
  fi
  # Documents above ~2 kB (a message with its history) are compressed on every write and
  # decompressed on every read: lz4 does both in a fraction of pglz's time (docs/benchmarks.md,
  # "What each stored row costs"). Set on the database, so a running cluster takes it too (from
  # docdb's next connections); a PostgreSQL built without lz4 keeps pglz.
  pg_psql -d postgres -c "ALTER DATABASE \"$PG_DB\" SET default_toast_compression = 'lz4'" >/dev/null 2>&1 ||
    say "postgresql: warning: this PostgreSQL has no lz4; documents stay compressed with pglz"
}

# Another docdb of this checkout (another DOCDB_PORT) running on the cluster?
pg_in_use() {
  local f pid
  for f in "$DATA"/docdb*.pid; do
    [ -s "$f" ] && [ "$f" != "$DOCDB_PID" ] || continue
    pid=$(cat "$f")
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$DOCDB_BIN" &&
      tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-backend postgresql" && return 0
  done
  return 1
}

# Stops the cluster unless another docdb of this checkout still uses it.
pg_down() {
  PG_BIN=$(pg_bindir)
  [ -n "$PG_BIN" ] && pg_running || return 0
  if pg_in_use; then
    say "postgresql: still used by another docdb of this checkout, left running"
    return 0
  fi
  say "postgresql: stopping"
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null
  say "postgresql stopped"
}

pg_status() {
  PG_BIN=$(pg_bindir)
  if [ -n "$PG_BIN" ] && pg_running; then
    say "postgresql up    .data/postgresql (socket in $PG_SOCK_DIR)"
  else
    say "postgresql down  .data/postgresql"
    return 1
  fi
}

# ---------------------------------------------------------------- document database

# Pid from the pid file, when that process is still our docdb binary.
docdb_pid() {
  [ -s "$DOCDB_PID" ] || return 1
  local pid
  pid=$(cat "$DOCDB_PID")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$DOCDB_BIN" || return 1
  echo "$pid"
}

# Backend of our running docdb.
docdb_backend() {
  local pid
  pid=$(docdb_pid) || return 1
  if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-backend postgresql"; then
    echo postgresql
  else
    echo sqlite
  fi
}

# Binary missing, or older than its sources?
docdb_stale() {
  local f
  [ -x "$DOCDB_BIN" ] || return 0
  for f in "$DOCDB_SRC"/*.go "$DOCDB_SRC/go.mod" "$DOCDB_SRC/go.sum" "$DOCDB_SRC"/patches/*; do
    [ "$f" -nt "$DOCDB_BIN" ] && return 0
  done
  return 1
}

docdb_build() {
  docdb_stale || return 0
  command -v go >/dev/null || die "go is not installed; it is needed to build infra/docdb"
  say "docdb: building infra/docdb (about a minute the first time)"
  local started=$SECONDS
  mkdir -p "$DOCDB_SRC/bin"
  # Into a temporary file first, so an interrupted build never leaves a fresh-looking binary.
  # FerretDB is built with a correction to its update command (infra/docdb/patches/ferretdb.sh).
  if ! (cd "$DOCDB_SRC" && modfile="$(bash patches/ferretdb.sh "$DATA/docdb-build")" &&
    go build -mod=readonly -modfile "$modfile" -trimpath -o bin/docdb.tmp .) \
    >"$LOGS/docdb-build.log" 2>&1 9>&-; then
    tail -n 30 "$LOGS/docdb-build.log" >&2
    die "building infra/docdb failed (log: .data/logs/docdb-build.log)"
  fi
  mv -f "$DOCDB_SRC/bin/docdb.tmp" "$DOCDB_BIN"
  say "docdb: built in $((SECONDS - started))s"
}

docdb_up() {
  if [ -n "${MONGODB_URL:-}" ]; then
    say "docdb external ($(redact "$MONGODB_URL")), nothing to build or start"
    return 0
  fi
  local running
  if probe 127.0.0.1 "$DOCDB_PORT"; then
    if ! running=$(docdb_backend); then
      say "docdb already up on 127.0.0.1:$DOCDB_PORT (not started by this script)"
      return 0
    fi
    if [ -n "$DOCDB_BACKEND" ] && [ "$DOCDB_BACKEND" != "$running" ]; then
      die "docdb on 127.0.0.1:$DOCDB_PORT runs on $running; 'scripts/infra.sh down' first to switch to $DOCDB_BACKEND (each keeps its own data)"
    fi
    DOCDB_BACKEND=$running
    [ "$running" = postgresql ] && pg_up # its cluster may have stopped on its own
    if docdb_stale; then
      docdb_build # while the old one still serves
      say "docdb: infra/docdb changed since the running binary was built, restarting"
      docdb_stop
    else
      say "docdb already up on 127.0.0.1:$DOCDB_PORT ($running)"
      return 0
    fi
  fi
  DOCDB_BACKEND=${DOCDB_BACKEND:-postgresql}
  docdb_build
  local args
  if [ "$DOCDB_BACKEND" = postgresql ]; then
    pg_up
    args=(-backend postgresql -postgresql-url "$PG_DOCDB_URL")
  else
    mkdir -p "$DOCDB_DATA"
    args=(-backend sqlite -data "$DOCDB_DATA")
  fi
  [ -n "${DOCDB_PPROF:-}" ] && args+=(-pprof "$DOCDB_PPROF")
  mkdir -p "$LOGS"
  # Keep one old log of at most 10 MB.
  if [ -f "$LOGS/docdb.log" ] && [ "$(wc -c <"$LOGS/docdb.log")" -gt 10485760 ]; then
    mv -f "$LOGS/docdb.log" "$LOGS/docdb.log.1"
  fi
  say "docdb: starting on 127.0.0.1:$DOCDB_PORT ($DOCDB_BACKEND)"
  local started=$SECONDS pid
  setsid nohup "$DOCDB_BIN" -listen "127.0.0.1:$DOCDB_PORT" "${args[@]}" \
    </dev/null >>"$LOGS/docdb.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$DOCDB_PID"
  until probe 127.0.0.1 "$DOCDB_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$DOCDB_PID"
      tail -n 20 "$LOGS/docdb.log" >&2 || true
      die "docdb exited while starting (log: .data/logs/docdb.log)"
    fi
    if [ $((SECONDS - started)) -ge "$DOCDB_WAIT_S" ]; then
      kill "$pid" 2>/dev/null || true
      rm -f "$DOCDB_PID"
      die "docdb accepts no connection after ${DOCDB_WAIT_S}s (log: .data/logs/docdb.log)"
    fi
    sleep 0.2
  done
  say "docdb up on 127.0.0.1:$DOCDB_PORT (pid $pid, $DOCDB_BACKEND)"
}

docdb_down() {
  if [ -n "${MONGODB_URL:-}" ]; then
    say "docdb external, nothing to stop"
    return 0
  fi
  docdb_stop
  pg_down
}

# Stops our docdb (its PostgreSQL cluster, if any, stays up).
docdb_stop() {
  local pid
  if ! pid=$(docdb_pid); then
    rm -f "$DOCDB_PID"
    if probe 127.0.0.1 "$DOCDB_PORT"; then
      say "docdb on 127.0.0.1:$DOCDB_PORT was not started by this script, left running"
    else
      say "docdb already down"
    fi
    return 0
  fi
  say "docdb: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 100); do # 10 s, then SIGKILL
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "docdb: still running after 10s, killing"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DOCDB_PID"
  say "docdb stopped"
}

docdb_status() {
  if [ -n "${MONGODB_URL:-}" ]; then
    external_status "docdb   " "$MONGODB_URL" || return 1
  elif probe 127.0.0.1 "$DOCDB_PORT"; then
    local backend
    backend=$(docdb_backend) || backend="not started by this script"
    say "docdb    up       $LOCAL_MONGODB_URL ($backend)"
    if [ "$backend" = postgresql ]; then
      pg_status || return 1
    fi
  else
    say "docdb    down     $LOCAL_MONGODB_URL"
    return 1
  fi
}

# ---------------------------------------------------------------- main

usage() { die "usage: scripts/infra.sh up|down|status | cluster up|down|status|stop-node N|start-node N | psql [ARGS]"; }
[ $# -ge 1 ] || usage

# Before the lock: a psql session may last, and it starts or stops nothing.
if [ "$1" = psql ]; then
  shift
  PG_BIN=$(pg_bindir)
  { [ -n "$PG_BIN" ] && pg_running; } || die "postgresql is not running (scripts/infra.sh up with DOCDB_BACKEND=postgresql)"
  as_pg "$PG_BIN/psql" -X -q -h "$PG_SOCK_DIR" -p "$PG_PORT" -U postgres -d "$PG_DB" "$@"
  exit
fi
[ "$1" = cluster ] || [ $# -eq 1 ] || usage

mkdir -p "$DATA" "$LOGS"
# One infra.sh at a time (npm start and npm test may run together); children close fd 9.
exec 9>"$DATA/infra.lock"
flock -w 300 9 || die "another scripts/infra.sh is still running after 300s"

case "$1" in
  up)
    started=$SECONDS
    docdb_up
    rabbit_up
    say "ready in $((SECONDS - started))s"
    ;;
  down)
    docdb_down
    rabbit_down
    ;;
  cluster)
    case "${2:-}" in
      up) cluster_up ;;
      down) cluster_down ;;
      status) cluster_status ;;
      stop-node | start-node)
        [[ ${3:-} =~ ^[1-3]$ ]] || usage
        if [ "$2" = stop-node ]; then cluster_stop_node "$3"; else cluster_start_node "$3"; fi
        ;;
      *) usage ;;
    esac
    ;;
  status)
    rc=0
    docdb_status || rc=1
    rabbit_status || rc=1
    exit "$rc"
    ;;
  *) usage ;;
esac
