// SPDX-License-Identifier: MIT
/*
 * Ingest of what applications measured on a drive (coord_priv.h): rw checkpoint's rows
 * and an exec point's command, from a drive's result into their tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"

/* rw checkpoint: a result's checkpoints and their writers into their tables. */
void ing_checkpoints(struct coord *k, size_t di, const struct rb_msg_result *dr)
{
	for (size_t i = 0; i < dr->ncheckpoints; i++) {
		const struct rb_msg_checkpoint *c = &dr->checkpoints[i];
		struct rb_row_ckpt row = {
			.drive = (uint32_t)di,
			.point = dr->point,
			.attempt = dr->attempt,
			.checkpoint = c->index,
			.direction = (uint8_t)(c->direction == 1),
			.bytes = c->bytes,
			.start_ns = c->start_ns,
			.duration_ns = c->duration_ns,
			.gib_per_s = c->duration_ns ? (double)c->bytes / (double)(1ULL << 30) /
							      ((double)c->duration_ns / 1e9)
						    : 0.0,
			.writers = (uint32_t)c->nwriters,
			.slowest_writer = c->slowest_writer,
			.fs_bytes = c->fs_bytes,
			.errors = c->errors,
		};

		rb_results_ckpt(k->res, &row);
		for (size_t w = 0; w < c->nwriters; w++) {
			struct rb_row_ckpt_writer x = { .drive = row.drive,
							.point = row.point,
							.attempt = row.attempt,
							.checkpoint = row.checkpoint,
							.direction = row.direction,
							.writer = (uint32_t)w,
							.bytes = c->writer_bytes[w],
							.duration_ns = c->writer_ns[w] };

			rb_results_ckpt_writer(k->res, &x);
		}
	}
}

/* An exec point's command on drive di into the exec table, its metrics in columns. */
void ing_exec(struct coord *k, size_t di, const struct rb_msg_result *dr)
{
	const struct rb_msg_exec_result *x = dr->exec;
	struct rb_row_exec row = { .drive = (uint32_t)di,
				   .point = dr->point,
				   .attempt = dr->attempt };
	struct {
		const char *name;
		double *col;
	} cols[] = { { "tps", &row.tps },
		     { "qps", &row.qps },
		     { "iops", &row.iops },
		     { "mbps", &row.mbps },
		     { "lat_avg_ms", &row.lat_avg_ms },
		     { "lat_p95_ms", &row.lat_p95_ms },
		     { "lat_p99_ms", &row.lat_p99_ms },
		     { "lat_max_ms", &row.lat_max_ms },
		     { "errors", &row.errors } };
	size_t n = 0;

	if (!x)
		return;
	copy(row.command, sizeof(row.command), x->command);
	row.exit_code = x->exit_code;
	row.timed_out = x->timed_out;
	row.duration_ns = x->duration_ns;
	copy(row.parser, sizeof(row.parser), x->parser);
	copy(row.stdout_tail, sizeof(row.stdout_tail), x->stdout_tail);
	copy(row.stderr_tail, sizeof(row.stderr_tail), x->stderr_tail);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		*cols[c].col = NAN;
	for (size_t i = 0; i < x->nmetrics; i++) {
		char *end;
		double v = strtod(x->metrics[i].value ? x->metrics[i].value : "", &end);

		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			if (x->metrics[i].key && !strcmp(x->metrics[i].key, cols[c].name) &&
			    end != x->metrics[i].value)
				*cols[c].col = v;
		if (n < sizeof(row.metrics))
			n += (size_t)snprintf(row.metrics + n, sizeof(row.metrics) - n, "%s%s=%s",
					      n ? "," : "",
					      x->metrics[i].key ? x->metrics[i].key : "",
					      x->metrics[i].value ? x->metrics[i].value : "");
	}
	rb_results_exec(k->res, &row);
}
