#!/bin/bash
# The official image's first start, in short: initdb, password auth from the network, the database.
set -euo pipefail
user="${POSTGRES_USER:-postgres}"
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_pg() { runuser -u postgres -- "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >/tmp/pwfile
  chown postgres /tmp/pwfile
  as_pg initdb --username="$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    as_pg pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
    as_pg psql -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
    as_pg pg_ctl -w stop >/dev/null
  fi
fi
exec runuser -u postgres -- "$@"
