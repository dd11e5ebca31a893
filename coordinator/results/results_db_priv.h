/* SPDX-License-Identifier: MIT */
/*
 * What the results database's connection (results_db.c) and its export
 * (results_db_export.c) share: the connection and its statements (private to them).
 */
#ifndef RB_RESULTS_DB_PRIV_H
#define RB_RESULTS_DB_PRIV_H

#include <libpq-fe.h>
#include <stddef.h>

#include "results_db.h"

struct rb_resdb {
	PGconn *conn;
	char where[512];    /* rb_resdb_where() of its URL */
	char password[256]; /* to blank out of libpq's messages; "" none */
};

/*
 * Runs sql with n text parameters (NULL: SQL NULL). Returns its result (the caller
 * PQclear()s it) when it succeeded, else NULL with err filled: what failed, the
 * database's message (without the password).
 */
PGresult *rdb_exec(struct rb_resdb *db, const char *sql, int n, const char *const *params,
		   const char *what, char *err, size_t errlen);
/* The same, for a statement whose result is not needed: 0 or -EIO. */
int rdb_do(struct rb_resdb *db, const char *sql, int n, const char *const *params, const char *what,
	   char *err, size_t errlen);
/* Ends the transaction going on without its changes (an error already said). */
void rdb_rollback(struct rb_resdb *db);
/* msg into buf with every copy of the password written "***". */
void rdb_scrub(const struct rb_resdb *db, const char *msg, char *buf, size_t len);

#endif
