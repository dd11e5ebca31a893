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
	/* as fio: no percentiles where there was no IO */
	if (pct && d->hist && d->hist->total) {
		fputs(", \"percentile\": {", out);
		for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
			fprintf(out, "%s\"%f\": %" PRIu64, i ? ", " : "", pcts[i],
				rb_hist_percentile(d->hist, pcts[i]));
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

void rb_fio_samples_add(struct rb_fio_samples *s, double kib_per_s, double iops)
{
	const double x[2] = { kib_per_s, iops };

	for (int m = 0; m < 2; m++) {
		s->sum[m] += x[m];
		s->sq[m] += x[m] * x[m];
		if (!s->n || x[m] < s->min[m])
			s->min[m] = x[m];
		if (!s->n || x[m] > s->max[m])
			s->max[m] = x[m];
	}
	s->n++;
}

void rb_fio_samples_put(const struct rb_fio_samples *s, struct rb_fio_dir *d)
{
	unsigned n = s->n;

	d->nsamples = n;
	if (!n)
		return;
	d->bw_min = s->min[0];
	d->bw_max = s->max[0];
	d->bw_mean = s->sum[0] / n;
	d->iops_min = s->min[1];
	d->iops_max = s->max[1];
	d->iops_mean = s->sum[1] / n;
	if (n > 1) {
		d->bw_dev = sqrt(fmax(0, (s->sq[0] - s->sum[0] * d->bw_mean) / (n - 1)));
		d->iops_dev = sqrt(fmax(0, (s->sq[1] - s->sum[1] * d->iops_mean) / (n - 1)));
	}
}

/* The share of a job's mean bandwidth in its group's (fio's bw_agg), as fio computes it. */
static double bw_agg(const struct rb_fio_dir *d, double group_kib)
{
	double p;

	if (!d->nsamples)
		return 0;
	if (group_kib <= 1)
		return 100;
	p = d->bw_mean * 100 / group_kib;
	return p > 100 ? 100 : p;
}

static void dir_block(FILE *out, const char *name, const struct rb_fio_dir *d, bool plus,
		      double group_kib)
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
	/* fio's sample statistics: zeros, with 0 samples, where it took none */
	fprintf(out,
		", \"bw_min\": %.0f, \"bw_max\": %.0f, \"bw_agg\": %.6f, \"bw_mean\": %.6f, "
		"\"bw_dev\": %.6f, \"bw_samples\": %u, \"iops_min\": %.0f, \"iops_max\": %.0f, "
		"\"iops_mean\": %.6f, \"iops_stddev\": %.6f, \"iops_samples\": %u}",
		d->bw_min, d->bw_max, bw_agg(d, group_kib), d->bw_mean, d->bw_dev, d->nsamples,
		d->iops_min, d->iops_max, d->iops_mean, d->iops_dev, d->nsamples);
}

/* fio's range of a value v (in the range's unit): the first bound it is below. */
static unsigned range_of(uint64_t v, unsigned n)
{
	static const uint64_t bound[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
	unsigned i = 0;

	while (i < n - 1 && v >= bound[i])
		i++;
	return i;
}

uint64_t rb_fio_lat_ranges(const struct rb_fio_job_out *job, uint64_t ret_ns[10],
			   uint64_t ret_us[10], uint64_t ret_ms[12])
{
	uint64_t total = 0;

	memset(ret_ns, 0, 10 * sizeof(*ret_ns));
	memset(ret_us, 0, 10 * sizeof(*ret_us));
	memset(ret_ms, 0, 12 * sizeof(*ret_ms));
	for (int d = 0; d < 3; d++) {
		const struct rb_hist *h = job->dir[d].hist;

		for (unsigned i = 0; h && h->total && i < RB_HIST_BUCKETS; i++) {
			uint64_t v, c = h->counts[i];

			if (!c)
				continue;
			v = rb_hist_bucket_value(i);
			if (v < 1000)
				ret_ns[range_of(v, 10)] += c;
			else if (v < 1000000)
				ret_us[range_of(v / 1000, 10)] += c;
			else
				ret_ms[range_of(v / 1000000, 12)] += c;
			total += c;
		}
	}
	return total;
}

/*
 * An object of shares of total, as fio writes them: each a percentage, the smallest
 * non-zero one shown as floor (fio's 0.01 for latencies, 0.1 for depths).
 */
static double share(uint64_t v, uint64_t total, double floor_pct)
{
	double p = total ? 100.0 * (double)v / (double)total : 0;

	return v && p < floor_pct ? floor_pct : p;
}

static void shares(FILE *out, const char *name, const char *const *keys, const uint64_t *v,
		   unsigned n, uint64_t total, double floor_pct)
{
	fprintf(out, ", \"%s\": {", name);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s\"%s\": %.6f", i ? ", " : "", keys[i],
			share(v[i], total, floor_pct));
	fputc('}', out);
}

static uint64_t sum(const uint64_t *v, unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* A job's members after its directions: CPU, depths, latency ranges, the latency target. */
static void job_tail(FILE *out, const struct rb_fio_job_out *x, uint64_t runtime_ns)
{
	static const char *const level[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const lat[] = { "2",	  "4",	 "10",	"20",	"50",	"100",
					   "250", "500", "750", "1000", "2000", ">=2000" };
	uint64_t ns[10], us[10], ms[12], total;

	fprintf(out, ",\n     \"job_runtime\": %" PRIu64 ", \"usr_cpu\": %.6f, \"sys_cpu\": %.6f",
		runtime_ns / 1000000, x->usr_cpu_pct, x->sys_cpu_pct);
	if (x->rusage)
		fprintf(out, ", \"ctx\": %" PRIu64 ", \"majf\": %" PRIu64 ", \"minf\": %" PRIu64,
			x->ctx, x->majf, x->minf);
	if (x->depths) {
		const struct rb_fio_depths *p = x->depths;

		shares(out, "iodepth_level", level, p->level, RB_FIO_DEPTH_NR,
		       sum(p->level, RB_FIO_DEPTH_NR), 0.1);
		shares(out, "iodepth_submit", batch, p->submit, RB_FIO_DEPTH_NR,
		       sum(p->submit, RB_FIO_DEPTH_NR), 0.1);
		shares(out, "iodepth_complete", batch, p->complete, RB_FIO_DEPTH_NR,
		       sum(p->complete, RB_FIO_DEPTH_NR), 0.1);
	}
	total = rb_fio_lat_ranges(x, ns, us, ms);
	shares(out, "latency_ns", lat, ns, 10, total, 0.01);
	shares(out, "latency_us", lat, us, 10, total, 0.01);
	shares(out, "latency_ms", lat, ms, 12, total, 0.01);
	/* rackbench has no latency target: fio's members for a job without one */
	if (x->iodepth)
		fprintf(out,
			", \"latency_depth\": %u, \"latency_target\": 0, \"latency_target_ns\": 0, "
			"\"latency_percentile\": 100.000000, \"latency_window\": 0, "
			"\"latency_window_us\": 0",
			x->iodepth);
	fputc('}', out);
}

static void disk_util(FILE *out, const struct rb_fio_disk *disks, unsigned n)
{
	fputs(",\n  \"disk_util\": [", out);
	for (unsigned i = 0; i < n; i++) {
		const struct rb_fio_disk *k = &disks[i];
		double util = k->msec ? 100.0 * (double)k->io_ticks_ms / (double)k->msec : 0;

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		rb_json_str(out, k->name);
		fprintf(out,
			", \"read_ios\": %" PRIu64 ", \"write_ios\": %" PRIu64
			", \"read_sectors\": %" PRIu64 ", \"write_sectors\": %" PRIu64
			", \"read_merges\": %" PRIu64 ", \"write_merges\": %" PRIu64
			", \"read_ticks\": %" PRIu64 ", \"write_ticks\": %" PRIu64
			", \"in_queue\": %" PRIu64 ", \"util\": %.6f}",
			k->ios[0], k->ios[1], k->sectors[0], k->sectors[1], k->merges[0],
			k->merges[1], k->ticks_ms[0], k->ticks_ms[1], k->in_queue_ms,
			util > 100 ? 100 : util);
	}
	fputs("\n  ]", out);
}

/* The group's bandwidth per direction in KiB/s: all its bytes over its longest runtime. */
static void group_bw(const struct rb_fio_doc *doc, double ret_kib[3])
{
	for (int d = 0; d < 3; d++) {
		uint64_t bytes = 0, runtime = 0;

		for (unsigned j = 0; j < doc->njobs; j++) {
			bytes += doc->jobs[j].dir[d].bytes;
			if (doc->jobs[j].dir[d].runtime_ns > runtime)
				runtime = doc->jobs[j].dir[d].runtime_ns;
		}
		ret_kib[d] = runtime ? (double)bytes / 1024 / ((double)runtime / 1e9) : 0;
	}
}

static void job_write(FILE *out, const struct rb_fio_job_out *x, bool plus, const double agg[3])
{
	static const char *const dirs[] = { "read", "write", "trim" };
	uint64_t runtime = x->dir[0].runtime_ns;
	const struct rb_fio_dir zero = { 0 };

	for (int d = 1; d < 3; d++)
		if (x->dir[d].runtime_ns > runtime)
			runtime = x->dir[d].runtime_ns;
	fputs("\n    {\"jobname\": ", out);
	rb_json_str(out, x->name);
	fputs(", \"groupid\": 0", out);
	if (x->start_ms)
		fprintf(out, ", \"job_start\": %lld", (long long)x->start_ms);
	fprintf(out, ", \"error\": %d, \"eta\": 0, \"elapsed\": %" PRIu64 ", \"job options\": {",
		x->error, (runtime + 999999999) / 1000000000);
	for (int k = 0; k < 16 && x->options[k][0]; k++) {
		fprintf(out, "%s", k ? ", " : "");
		rb_json_str(out, x->options[k][0]);
		fputs(": ", out);
		rb_json_str(out, x->options[k][1]);
	}
	fputc('}', out);
	for (int d = 0; d < 3; d++) {
		fputs(",\n     ", out);
		dir_block(out, dirs[d], &x->dir[d], plus, agg[d]);
	}
	/* rackbench issues no syncs: fio's sync member of a job that issued none */
	fputs(",\n     \"sync\": {\"total_ios\": 0, ", out);
	lat_block(out, "lat_ns", &zero, false, false);
	fputc('}', out);
	job_tail(out, x, runtime);
}

void rb_fio_json_write(FILE *out, const struct rb_fio_doc *doc, bool plus)
{
	time_t now = time(NULL);
	char when[64];
	double agg[3];

	group_bw(doc, agg);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(out,
		"{\n  \"fio version\": \"rackbench-%s\",\n  \"timestamp\": %lld,\n"
		"  \"timestamp_ms\": %lld,\n  \"time\": \"%s\",\n  \"global options\": {},\n"
		"  \"jobs\": [",
		RB_VERSION, (long long)now, (long long)now * 1000, when);
	for (unsigned j = 0; j < doc->njobs; j++) {
		if (j)
			fputc(',', out);
		job_write(out, &doc->jobs[j], plus, agg);
	}
	fputs("\n  ]", out);
	if (doc->ndisks)
		disk_util(out, doc->disks, doc->ndisks);
	fputs("\n}\n", out);
}

/* A field of a terse line that may hold ';' or a line break: those become '_'. */
static void terse_str(FILE *out, const char *s)
{
	fputc(';', out);
	for (; s && *s; s++)
		fputc(*s == ';' || *s == '\n' || *s == '\r' ? '_' : *s, out);
}

/* min, max (whole us), mean, stddev (us) of a direction's latency; zeros without IO */
static void terse_lat(FILE *out, const struct rb_fio_dir *d)
{
	double mean = d->ios ? (double)d->lat_sum_ns / (double)d->ios : 0;

	if (!d->ios) {
		fputs(";0;0;0.000000;0.000000", out);
		return;
	}
	fprintf(out, ";%" PRIu64 ";%" PRIu64 ";%f;%f", d->lat_min_ns / 1000, d->lat_max_ns / 1000,
		mean / 1000, stddev(d->hist, mean) / 1000);
}

/* A direction's 41 fields: fio's show_ddir_status_terse of terse version 3. */
static void terse_dir(FILE *out, const struct rb_fio_dir *d, double group_kib)
{
	uint64_t runt = (uint64_t)llround((double)d->runtime_ns / 1e6); /* ms, as fio's */
	bool hist = d->hist && d->hist->total;

	fprintf(out, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, d->bytes >> 10,
		runt ? d->bytes * 1000 / runt / 1024 : 0, runt ? d->ios * 1000 / runt : 0, runt);
	fputs(";0;0;0.000000;0.000000", out); /* slat: none measured apart */
	terse_lat(out, d);
	for (size_t i = 0; i < 20; i++) /* fio's 20 places, its 17 default percentiles */
		if (i < sizeof(pcts) / sizeof(pcts[0]))
			fprintf(out, ";%f%%=%" PRIu64, pcts[i],
				hist ? rb_hist_percentile(d->hist, pcts[i]) / 1000 : 0);
		else
			fputs(";0%=0", out);
	terse_lat(out, d);
	if (d->nsamples)
		fprintf(out, ";%.0f;%.0f;%f%%;%f;%f", d->bw_min, d->bw_max, bw_agg(d, group_kib),
			d->bw_mean, d->bw_dev);
	else
		fputs(";0;0;0.000000%;0.000000;0.000000", out);
}

/* The job's CPU, depths and latency ranges: an unknown figure is an empty field. */
static void terse_tail(FILE *out, const struct rb_fio_job_out *x)
{
	uint64_t ns[10], us[10], ms[12], total = rb_fio_lat_ranges(x, ns, us, ms), nsum = 0;

	fprintf(out, ";%f%%;%f%%", x->usr_cpu_pct, x->sys_cpu_pct);
	if (x->rusage)
		fprintf(out, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, x->ctx, x->majf, x->minf);
	else
		fputs(";;;", out);
	for (int i = 0; i < RB_FIO_DEPTH_NR; i++)
		if (x->depths)
			fprintf(out, ";%3.1f%%",
				share(x->depths->level[i], sum(x->depths->level, RB_FIO_DEPTH_NR),
				      0.1));
		else
			fputc(';', out);
	/* the microseconds' first range holds the IOs under 1 us too, as fio's terse line */
	for (int i = 0; i < 10; i++)
		nsum += ns[i];
	for (int i = 0; i < 10; i++)
		fprintf(out, ";%3.2f%%",
			share(us[i], total, 0.01) +
				(i || !total ? 0 : 100.0 * (double)nsum / (double)total));
	for (int i = 0; i < 12; i++)
		fprintf(out, ";%3.2f%%", share(ms[i], total, 0.01));
}

void rb_fio_terse_write(FILE *out, const struct rb_fio_doc *doc)
{
	double agg[3];

	group_bw(doc, agg);
	for (unsigned j = 0; j < doc->njobs; j++) {
		const struct rb_fio_job_out *x = &doc->jobs[j];

		fprintf(out, "3;rackbench-%s", RB_VERSION);
		terse_str(out, x->name);
		fprintf(out, ";0;%d", x->error);
		terse_dir(out, &x->dir[0], agg[0]);
		terse_dir(out, &x->dir[1], agg[1]); /* version 3 has no trim */
		terse_tail(out, x);
		for (unsigned k = 0; k < doc->ndisks; k++) {
			const struct rb_fio_disk *d = &doc->disks[k];
			double util =
				d->msec ? 100.0 * (double)d->io_ticks_ms / (double)d->msec : 0;

			terse_str(out, d->name);
			fprintf(out,
				";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64
				";%" PRIu64 ";%" PRIu64 ";%3.2f%%",
				d->ios[0], d->ios[1], d->merges[0], d->merges[1], d->ticks_ms[0],
				d->ticks_ms[1], d->in_queue_ms, util > 100 ? 100 : util);
		}
		fputc('\n', out);
	}
}
