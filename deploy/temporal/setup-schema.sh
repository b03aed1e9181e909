#!/bin/sh
# Creates Temporal's two PostgreSQL databases (temporal, temporal_visibility) and brings their
# schemas up to date with Temporal's SQL tool, from the versioned schema folders of the server's
# release. Run by docker-compose.yml's temporal-schema (in temporalio/admin-tools, which has the
# tool and the folders) and by the PostgreSQL smoke suite and `npm run dev:up -- --temporal
# postgres` (dev/harness/postgres.ts, with the tool and the folders built from the Go module proxy).
# Safe to run again: create-database skips a database that exists, setup-schema -v 0.0 leaves a
# versioned schema alone, and update-schema applies only the versions that are missing; any other
# error stops it (exit status not 0).
#
#   POSTGRES_HOST (127.0.0.1), POSTGRES_PORT (5432), POSTGRES_USER (temporal), POSTGRES_PASSWORD (temporal)
#   TEMPORAL_SQL_TOOL (temporal-sql-tool), TEMPORAL_SCHEMA_DIR (/etc/temporal/schema, admin-tools' folder)
set -eu

schema=${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12
SQL_PASSWORD=${POSTGRES_PASSWORD:-temporal}
export SQL_PASSWORD # the tool reads the password from it: it stays off the command line

sql() {
  "${TEMPORAL_SQL_TOOL:-temporal-sql-tool}" --plugin postgres12 \
    --ep "${POSTGRES_HOST:-127.0.0.1}" -p "${POSTGRES_PORT:-5432}" -u "${POSTGRES_USER:-temporal}" "$@"
}

for store in temporal:temporal visibility:temporal_visibility; do
  folder=${store%%:*} db=${store#*:}
  sql --db "$db" create-database
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$schema/$folder/versioned"
done
echo "temporal and temporal_visibility are up to date with $schema"
