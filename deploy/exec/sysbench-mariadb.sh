#!/bin/sh
# SysBench OLTP (read/write) on a MariaDB of its own whose data folder is DIR (an exec
# phase's {dir}: the drive's filesystem): the database made and started, the tables
# prepared, the run, MariaDB stopped. Its summary is sysbench's (the agent's parser reads
# it). Needs mariadb-server and sysbench; runs as the agent's user (root).
#
#   sysbench-mariadb.sh DIR THREADS SECONDS TABLES ROWS [BUFFER_POOL [FRESH]]
#
# FRESH no: the database an earlier run left in DIR is run again as it is (a measured
# hour after a warm-up); yes (the default): made anew. With FRESH no and no database in
# DIR (the warm-up failed) it exits 3 at once: a measured run on a database made cold
# would pass for the warm one.
#
# Copied onto an agent's host (here /usr/local/lib/rackbench/), an agent.yaml allows it
# as (the reviews: 100 tables x 10M rows, 32 threads, 2 h; the preset sysbench-oltp):
#   commands:
#     sysbench-mariadb:
#       argv: [/usr/local/lib/rackbench/sysbench-mariadb.sh, "{dir}", "{threads}",
#              "{time}", "{tables}", "{rows}", "{buffer_pool}", "{fresh}"]
#       params: {threads: 32, time: 7200, tables: 100, rows: 10000000, buffer_pool: 1G,
#                fresh: "yes"}
#       timeout: 6h
#       output: sysbench
set -eu
DIR=$1 THREADS=$2 TIME=$3 TABLES=$4 ROWS=$5 POOL=${6:-128M} FRESH=${7:-yes}
D=$DIR/mariadb S=$DIR/mariadb.sock T=$DIR/mariadb-tmp
if [ "$FRESH" = no ] && [ ! -d "$D/sbtest" ]; then
	echo "sysbench-mariadb: no database from an earlier run in $DIR (did the warm-up" \
		"fail?): a run on one made now would be cold, not the measured one" >&2
	exit 3
fi
if [ "$FRESH" != no ]; then
	rm -rf "$D" "$T"
	# a temporary folder of its own: MariaDBs made at once on one host in the shared /tmp
	# remove each other's temporary tables ("Can't find file: '/tmp/#sql-temptable-...'")
	mkdir -p "$D" "$T"
	if ! mariadb-install-db --no-defaults --datadir="$D" --tmpdir="$T" --user=root \
		--auth-root-authentication-method=normal --skip-test-db >"$DIR/mariadb-install.log" 2>&1; then
		# the reason is what mariadbd --bootstrap said before the boilerplate that
		# starts at "Installation of system tables failed"
		echo "mariadb-install-db failed; its log up to its advice ($DIR/mariadb-install.log):" >&2
		sed '/^Installation of system tables failed/,$d' "$DIR/mariadb-install.log" |
			tail -n 30 >&2
		exit 1
	fi
fi
mkdir -p "$T"
mariadbd --no-defaults --datadir="$D" --tmpdir="$T" --socket="$S" --skip-networking --user=root \
	--innodb-buffer-pool-size="$POOL" --innodb-flush-method=O_DIRECT \
	--pid-file="$DIR/mariadb.pid" >"$DIR/mariadbd.log" 2>&1 &
PID=$!
# MariaDB stopped whatever happens (the agent ends the group on a timeout or a stop)
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT INT TERM
i=0
until mariadb-admin --no-defaults --socket="$S" -uroot ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -ge 600 ] || ! kill -0 $PID 2>/dev/null; then
		echo "mariadbd did not start; the end of its log ($DIR/mariadbd.log):" >&2
		tail -n 20 "$DIR/mariadbd.log" >&2
		exit 1
	fi
	sleep 0.1
done
set -- oltp_read_write --db-driver=mysql --mysql-socket="$S" --mysql-user=root \
	--tables="$TABLES" --table-size="$ROWS" --threads="$THREADS"
if [ "$FRESH" = yes ]; then
	echo "sysbench-mariadb: database made anew ($TABLES tables x $ROWS rows)" >&2
	mariadb --no-defaults --socket="$S" -uroot -e "CREATE DATABASE sbtest"
	sysbench "$@" prepare >"$DIR/sysbench-prepare.log"
else
	echo "sysbench-mariadb: database the earlier run's" >&2
fi
sysbench "$@" --time="$TIME" --report-interval=0 --percentile=95 run
