// SPDX-License-Identifier: MIT
#include "fioout.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonout.h"

/* fio's default percentile list (--percentile_list) */
static const double pcts[] = { 1,  5,  10, 20, 30,   40,   50,	  60,	70,
			       80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };

unsigned rb_fio_plat_index(uint64_t ns)
{
	unsigned msb, err;

	if (ns < 2 * RB_FIO_PLAT_VAL)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	err = msb - RB_FIO_PLAT_BITS;
	/* group err+1 starts at (err+1) * 64; within it, the value's next 6 bits */
	uint64_t idx =
		((uint64_t)(err + 1) << RB_FIO_PLAT_BITS) + ((ns >> err) & (RB_FIO_PLAT_VAL - 1));

	return idx < RB_FIO_PLAT_NR - 1 ? (unsigned)idx : RB_FIO_PLAT_NR - 1;
}

uint64_t rb_fio_plat_value(unsigned i)
{
	unsigned err;

	if (i < 2 * RB_FIO_PLAT_VAL)
		return i;
	err = (i >> RB_FIO_PLAT_BITS) - 1;
	/* the group's base plus the bucket's midpoint */
	return ((uint64_t)1 << (err + RB_FIO_PLAT_BITS)) +
	       (uint64_t)(((double)(i % RB_FIO_PLAT_VAL) + 0.5) * (double)((uint64_t)1 << err));
}

static double stddev(const struct rb_hist *h, double mean)
{
	double sum = 0;

	if (!h || h->total < 2)
		return 0;
	for (unsigned i = 0; i < RB_HIST_BUCKETS; i++)
		if (h->counts[i]) {
			double d = (double)rb_hist_bucket_value(i) - mean;

			sum += d * d * (double)h->counts[i];
		}
	return sqrt(sum / (double)(h->total - 1));
}

static void lat_block(FILE *out, const char *name, const struct rb_fio_dir *d, bool pct, bool bins)
{
	double mean = d->ios ? (double)d->lat_sum_ns / (double)d->ios : 0;

	fprintf(out,
		"\"%s\": {\"min\": %" PRIu64 ", \"max\": %" PRIu64 ", \"mean\": %.6f, "
		"\"stddev\": %.6f, \"N\": %" PRIu64,
		name, d->ios ? d->lat_min_ns : 0, d->lat_max_ns, mean, stddev(d->hist, mean),
		d->ios);
	if (pct && d->hist) {
		fputs(", \"percentile\": {", out);
		for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
			fprintf(out, "%s\"%f\": %" PRIu64, i ? ", " : "", pcts[i],
				d->hist->total ? rb_hist_percentile(d->hist, pcts[i]) : 0);
		fputc('}', out);
	}
	/* fio writes bins only where there were IOs (its tools expect at least one) */
	if (bins && d->hist && d->hist->total) {
		uint64_t *b = calloc(RB_FIO_PLAT_NR, sizeof(*b));
		bool first = true;

		for (unsigned i = 0; b && i < RB_HIST_BUCKETS; i++)
			if (d->hist->counts[i])
				b[rb_fio_plat_index(rb_hist_bucket_value(i))] += d->hist->counts[i];
		fputs(", \"bins\": {", out);
		for (unsigned i = 0; b && i < RB_FIO_PLAT_NR; i++)
			if (b[i]) {
				fprintf(out, "%s\"%" PRIu64 "\": %" PRIu64, first ? "" : ", ",
					rb_fio_plat_value(i), b[i]);
				first = false;
			}
		fputc('}', out);
		free(b);
	}
	fputc('}', out);
}

static void dir_block(FILE *out, const char *name, const struct rb_fio_dir *d, bool plus)
{
	double secs = (double)d->runtime_ns / 1e9;
	double bw = secs > 0 ? (double)d->bytes / secs : 0;
	const struct rb_fio_dir zero = { 0 };

	fprintf(out,
		"\"%s\": {\"io_bytes\": %" PRIu64 ", \"io_kbytes\": %" PRIu64
		", \"bw_bytes\": %.0f, \"bw\": %.0f, \"iops\": %.6f, \"runtime\": %.0f, "
		"\"total_ios\": %" PRIu64 ", \"short_ios\": 0, \"drop_ios\": 0, ",
		name, d->bytes, d->bytes >> 10, bw, bw / 1024, secs > 0 ? (double)d->ios / secs : 0,
		(double)d->runtime_ns / 1e6, d->ios);
	lat_block(out, "slat_ns", &zero, false, false);
	fputs(", ", out);
	lat_block(out, "clat_ns", d, true, plus);
	fputs(", ", out);
	lat_block(out, "lat_ns", d, false, false);
	if (d->nsamples)
		fprintf(out,
			", \"bw_min\": %.0f, \"bw_max\": %.0f, \"bw_agg\": 100.0, \"bw_mean\": "
			"%.6f, \"bw_dev\": %.6f, \"bw_samples\": %u, \"iops_min\": %.0f, "
			"\"iops_max\": %.0f, \"iops_mean\": %.6f, \"iops_stddev\": %.6f, "
			"\"iops_samples\": %u}",
			d->bw_min, d->bw_max, d->bw_mean, d->bw_dev, d->nsamples, d->iops_min,
			d->iops_max, d->iops_mean, d->iops_dev, d->nsamples);
	else
		fprintf(out,
			", \"bw_min\": %.0f, \"bw_max\": %.0f, \"bw_agg\": 100.0, \"bw_mean\": "
			"%.6f, \"bw_dev\": 0.0, \"bw_samples\": 0, \"iops_min\": %.0f, "
			"\"iops_max\": %.0f, \"iops_mean\": %.6f, \"iops_stddev\": 0.0, "
			"\"iops_samples\": 0}",
			bw / 1024, bw / 1024, bw / 1024, secs > 0 ? (double)d->ios / secs : 0,
			secs > 0 ? (double)d->ios / secs : 0, secs > 0 ? (double)d->ios / secs : 0);
}

void rb_fio_json_write(FILE *out, const struct rb_fio_job_out *jobs, unsigned n, bool plus)
{
	time_t now = time(NULL);
	char when[64];

	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(out,
		"{\n  \"fio version\": \"rackbench-%s\",\n  \"timestamp\": %lld,\n"
		"  \"timestamp_ms\": %lld,\n  \"time\": \"%s\",\n  \"global options\": {},\n"
		"  \"jobs\": [",
		RB_VERSION, (long long)now, (long long)now * 1000, when);
	for (unsigned j = 0; j < n; j++) {
		const struct rb_fio_job_out *x = &jobs[j];
		uint64_t runtime = x->dir[0].runtime_ns;

		for (int d = 1; d < 3; d++)
			if (x->dir[d].runtime_ns > runtime)
				runtime = x->dir[d].runtime_ns;
		fprintf(out, "%s\n    {\"jobname\": ", j ? "," : "");
		rb_json_str(out, x->name);
		fprintf(out,
			", \"groupid\": 0, \"error\": %d, \"eta\": 0, \"elapsed\": %" PRIu64
			", \"job options\": {",
			x->error, (runtime + 999999999) / 1000000000);
		for (int k = 0; k < 16 && x->options[k][0]; k++) {
			fprintf(out, "%s", k ? ", " : "");
			rb_json_str(out, x->options[k][0]);
			fputs(": ", out);
			rb_json_str(out, x->options[k][1]);
		}
		fputs("},\n     ", out);
		dir_block(out, "read", &x->dir[0], plus);
		fputs(",\n     ", out);
		dir_block(out, "write", &x->dir[1], plus);
		fputs(",\n     ", out);
		dir_block(out, "trim", &x->dir[2], plus);
		fprintf(out,
			",\n     \"job_runtime\": %" PRIu64 ", \"usr_cpu\": %.6f, \"sys_cpu\": "
			"%.6f, \"ctx\": 0, \"majf\": 0, \"minf\": 0}",
			runtime / 1000000, x->usr_cpu_pct, x->sys_cpu_pct);
	}
	fputs("\n  ],\n  \"disk_util\": []\n}\n", out);
}
