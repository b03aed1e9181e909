#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL server is installed, for Temporal on PostgreSQL (the PostgreSQL
# smoke suite, `npm run dev:up -- --temporal postgres`; dev/harness/postgres.ts), and prints the
# folder of its programs (initdb, postgres, psql, pg_isready) as `postgres-bin=<dir>`. The harness
# runs its own server from there on a data folder of its own: the package's cluster and service are
# not used. Idempotent: installs nothing when a server is there.
set -euo pipefail

find_bindir() { # the newest installed major version's programs
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] && [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

if ! bindir=$(find_bindir); then
  # shellcheck source=scripts/apt-install.sh
  . "$(dirname "$0")/apt-install.sh"
  apt_install ensure-postgres postgresql
  bindir=$(find_bindir) || { echo "ensure-postgres: apt-get installed postgresql but no /usr/lib/postgresql/*/bin/postgres is there" >&2; exit 1; }
fi
echo "postgres-bin=$bindir"
