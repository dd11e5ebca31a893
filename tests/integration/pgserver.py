# SPDX-License-Identifier: MIT
"""A private PostgreSQL 15 server for a test: initdb and pg_ctl run as the `postgres` user
the Debian package makes (as the test's own user when it is not root), in a 0755 folder
that user owns, listening on a unix socket in that folder only (no TCP, no system service).
Used as `with PgServer() as pg:`; pg.url(db) is a libpq URI, pg.sql(db, query) runs psql;
pg.stop() and pg.start() take the server away and bring it back with its data.
A test's server does not sync (fsync off); a bench's, durable=True, does, as a real one.
A machine without postgresql-15 skips the test (exit 77), naming why."""
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.parse

from rbtest import skip

BIN = "/usr/lib/postgresql/15/bin"


class PgServer:
    def __init__(self, db="rbtest", password="pg-S3cret-not-printed", durable=False, base=None):
        if not os.path.exists(os.path.join(BIN, "initdb")):
            skip(f"needs postgresql-15 ({BIN}/initdb is absent; scripts/install-deps.sh "
                 "installs it)")
        self.db, self.password, self.durable = db, password, durable
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                skip("needs the postgres user the postgresql-15 package makes")
        self.dir = tempfile.mkdtemp(prefix="rbpg-", dir=base)
        os.chmod(self.dir, 0o755)
        if self.user:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.started = False

    def _as_owner(self, args, **kw):
        """A server tool run as the folder's owner."""
        extra = {}
        if self.user:
            extra = dict(user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[],
                         env={"PATH": "/usr/bin:/bin", "HOME": self.dir, "LC_ALL": "C"})
        return subprocess.run(args, capture_output=True, text=True, cwd=self.dir, timeout=120,
                              **extra, **kw)

    def __enter__(self):
        r = self._as_owner([os.path.join(BIN, "initdb"), "-D", self.data, "-A", "trust",
                            "-U", "postgres", "-E", "UTF8", "--locale=C"]
                           + ([] if self.durable else ["--no-sync"]))
        if r.returncode:
            self.__exit__()
            raise RuntimeError(f"initdb: {r.returncode}\n{r.stdout}\n{r.stderr}")
        self.start()
        self.sql("postgres", f"CREATE DATABASE {self.db}")
        return self

    def start(self):
        """The server started on its data folder (again, after stop())."""
        opts = f"-k {self.dir} -c listen_addresses=''"
        if not self.durable:
            opts += " -c fsync=off -c full_page_writes=off"
        r = self._as_owner([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-o", opts, "-l",
                            os.path.join(self.dir, "log"), "-w", "-t", "60", "start"])
        if r.returncode:
            log = open(os.path.join(self.dir, "log")).read() if os.path.exists(
                os.path.join(self.dir, "log")) else ""
            self.__exit__()
            raise RuntimeError(f"pg_ctl start: {r.returncode}\n{r.stderr}\n{log}")
        self.started = True

    def url(self, db=None):
        """A libpq URI of database db (this server's by default), with a password in it
        (the server trusts the socket: it is there to be kept out of every message)."""
        return (f"postgresql://postgres:{self.password}@/{db or self.db}?host="
                + urllib.parse.quote(self.dir, safe=""))

    def sql(self, db, query, timeout=60):
        """psql's unaligned rows of query, as a list of lists of strings (a bench's bulk
        statement may take a longer timeout)."""
        r = subprocess.run([os.path.join(BIN, "psql"), "-h", self.dir, "-U", "postgres",
                            "-d", db or self.db, "-v", "ON_ERROR_STOP=1", "-At", "-F", "\t",
                            "-c", query], capture_output=True, text=True, timeout=timeout)
        if r.returncode:
            raise RuntimeError(f"psql {query!r}: {r.returncode} {r.stderr}")
        return [x.split("\t") for x in r.stdout.splitlines()]

    def script(self, db, path):
        """Runs the SQL file at path in one transaction."""
        r = subprocess.run([os.path.join(BIN, "psql"), "-h", self.dir, "-U", "postgres",
                            "-d", db or self.db, "-v", "ON_ERROR_STOP=1", "-q", "-1", "-f",
                            path], capture_output=True, text=True, timeout=300)
        if r.returncode:
            raise RuntimeError(f"psql -f {path}: {r.returncode} {r.stderr}")

    def stop(self):
        if self.started:
            self._as_owner([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-m", "immediate",
                            "-w", "stop"])
            self.started = False

    def __exit__(self, *a):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
