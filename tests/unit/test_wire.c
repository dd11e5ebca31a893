// SPDX-License-Identifier: MIT
/*
 * The wire codec: every message survives pack and unpack field by field; the bytes are
 * the ones protobuf-c's generated code makes of the same message (so the typed codec
 * changed nothing on the wire); versions, unknown fields and garbage are handled.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rackbench.pb-c.h"
#include "wire.h"

/* Packs m and unpacks it again; the caller frees the copy. */
static struct rb_msg *round_trip(const struct rb_msg *m)
{
	struct rb_msg *back = NULL;
	uint8_t *buf;
	size_t len;
	char err[256];

	assert_int_equal(rb_msg_pack(m, &buf, &len), 0);
	assert_int_equal(rb_msg_unpack(buf, len, &back, err, sizeof(err)), 0);
	free(buf);
	assert_int_equal(back->kind, m->kind);
	assert_int_equal(back->epoch, m->epoch);
	assert_int_equal(back->seq, m->seq);
	assert_int_equal(back->major, RB_PROTO_MAJOR);
	assert_int_equal(back->minor, RB_PROTO_MINOR);
	return back;
}

static void identity(struct rb_identity *x, const char *path, uint64_t size)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->path, sizeof(x->path), "%s", path);
	snprintf(x->kind, sizeof(x->kind), "block");
	snprintf(x->model, sizeof(x->model), "Model %s", path);
	snprintf(x->serial, sizeof(x->serial), "S%llu", (unsigned long long)size);
	snprintf(x->firmware, sizeof(x->firmware), "FW1");
	x->size_bytes = size;
	x->logical_block_size = 4096;
	x->writable = size & 1;
}

static void same_identity(const struct rb_identity *a, const struct rb_identity *b)
{
	assert_string_equal(a->path, b->path);
	assert_string_equal(a->kind, b->kind);
	assert_string_equal(a->model, b->model);
	assert_string_equal(a->serial, b->serial);
	assert_string_equal(a->firmware, b->firmware);
	assert_int_equal(a->size_bytes, b->size_bytes);
	assert_int_equal(a->logical_block_size, b->logical_block_size);
	assert_int_equal(a->writable, b->writable);
}

static void test_wire_hello(void **state)
{
	struct rb_kv labels[] = { { "rack", "r7" }, { "row", "b" } };
	struct rb_identity t[2];
	struct rb_msg m, *b;

	(void)state;
	identity(&t[0], "/dev/nvme0n1", 3840755982336ULL);
	identity(&t[1], "/srv/f", 1ULL << 30 | 1);
	rb_msg_init(&m, RB_MSG_HELLO);
	m.hello = (struct rb_msg_hello){ .name = "a1",
					 .hostname = "h1",
					 .kernel = "Linux 6.18",
					 .rb_version = "0.9",
					 .labels = labels,
					 .nlabels = 2,
					 .targets = t,
					 .ntargets = 2,
					 .epoch = 0xfeedbeefULL,
					 .run = "r-1",
					 .spooled = 77 };
	b = round_trip(&m);
	assert_string_equal(b->hello.name, "a1");
	assert_string_equal(b->hello.hostname, "h1");
	assert_string_equal(b->hello.kernel, "Linux 6.18");
	assert_string_equal(b->hello.rb_version, "0.9");
	assert_int_equal(b->hello.nlabels, 2);
	assert_string_equal(b->hello.labels[1].key, "row");
	assert_string_equal(b->hello.labels[1].value, "b");
	assert_int_equal(b->hello.ntargets, 2);
	same_identity(&b->hello.targets[0], &t[0]);
	same_identity(&b->hello.targets[1], &t[1]);
	assert_int_equal(b->hello.epoch, 0xfeedbeefULL);
	assert_string_equal(b->hello.run, "r-1");
	assert_int_equal(b->hello.spooled, 77);
	assert_string_equal(rb_msg_name(b), "hello");
	rb_msg_free(b);
}

static void test_wire_preflight_and_reply(void **state)
{
	const char *drives[] = { "/dev/sda", "vol0" }, *serials[] = { "S1", "" };
	const char *members[] = { "/dev/sdb", "/dev/sdc" }, *mser[] = { "B", "C" };
	struct rb_msg_volume v = { .name = "vol0",
				   .stripe = 131072,
				   .members = members,
				   .nmembers = 2,
				   .serials = mser,
				   .nserials = 2 };
	struct rb_refusal ref[] = { { "/dev/sda", "mounted at /data" } };
	struct rb_msg m, *b;

	(void)state;
	rb_msg_init(&m, RB_MSG_PREFLIGHT);
	m.preflight = (struct rb_msg_preflight){ .drives = drives,
						 .ndrives = 2,
						 .serials = serials,
						 .nserials = 2,
						 .volumes = &v,
						 .nvolumes = 1,
						 .writes = true,
						 .wipe_signatures = true };
	b = round_trip(&m);
	assert_int_equal(b->preflight.ndrives, 2);
	assert_string_equal(b->preflight.drives[1], "vol0");
	assert_string_equal(b->preflight.serials[0], "S1");
	assert_string_equal(b->preflight.serials[1], "");
	assert_true(b->preflight.writes);
	assert_false(b->preflight.destructive);
	assert_true(b->preflight.wipe_signatures);
	assert_int_equal(b->preflight.nvolumes, 1);
	assert_string_equal(b->preflight.volumes[0].name, "vol0");
	assert_int_equal(b->preflight.volumes[0].stripe, 131072);
	assert_int_equal(b->preflight.volumes[0].nmembers, 2);
	assert_string_equal(b->preflight.volumes[0].members[1], "/dev/sdc");
	assert_string_equal(b->preflight.volumes[0].serials[0], "B");
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
	m.preflight_reply.refusals = ref;
	m.preflight_reply.nrefusals = 1;
	b = round_trip(&m);
	assert_int_equal(b->preflight_reply.ndrives, 0);
	assert_int_equal(b->preflight_reply.nrefusals, 1);
	assert_string_equal(b->preflight_reply.refusals[0].subject, "/dev/sda");
	assert_string_equal(b->preflight_reply.refusals[0].message, "mounted at /data");
	rb_msg_free(b);
}

static void test_wire_assign(void **state)
{
	const char *drives[] = { "/dev/sda", "/dev/sdb" };
	struct rb_kv set[] = { { "bs", "4k" }, { "rw", "randread" }, { "iodepth", "32" } };
	uint64_t rates[] = { 1000, 2500 };
	struct rb_msg m, *b;

	(void)state;
	rb_msg_init(&m, RB_MSG_ASSIGN);
	m.assign = (struct rb_msg_assign){ .point = 7,
					   .attempt = 2,
					   .drives = drives,
					   .ndrives = 2,
					   .settings = set,
					   .nsettings = 3,
					   .destructive = true,
					   .drive_rate_iops = rates,
					   .nrates = 2,
					   .purge = "format",
					   .purge_ses = 2,
					   .start_at_ns = -5 };
	b = round_trip(&m);
	assert_int_equal(b->assign.point, 7);
	assert_int_equal(b->assign.attempt, 2);
	assert_int_equal(b->assign.ndrives, 2);
	assert_string_equal(b->assign.drives[1], "/dev/sdb");
	assert_int_equal(b->assign.nsettings, 3);
	assert_string_equal(b->assign.settings[2].key, "iodepth");
	assert_string_equal(b->assign.settings[2].value, "32");
	assert_true(b->assign.destructive);
	assert_false(b->assign.wipe_signatures);
	assert_int_equal(b->assign.nserials, 0);
	assert_int_equal(b->assign.nrates, 2);
	assert_int_equal(b->assign.drive_rate_iops[1], 2500);
	assert_string_equal(b->assign.purge, "format");
	assert_int_equal(b->assign.purge_ses, 2);
	assert_int_equal(b->assign.start_at_ns, -5);
	assert_int_equal(b->assign.nvolumes, 0);
	rb_msg_free(b);
}

static void test_wire_samples(void **state)
{
	uint32_t idx[] = { 3, 200, 4000 };
	uint64_t cnt[] = { 10, 20, 1 };
	struct rb_msg_sample s[2] = {
		{ .point = 1,
		  .attempt = 0,
		  .drive = "/dev/sda",
		  .interval = 9,
		  .direction = 1,
		  .t_ns = 123456789,
		  .ios = 31,
		  .bytes = 31 * 4096,
		  .errors = 1,
		  .lat_sum_ns = 999,
		  .hist = { idx, cnt, 3 } },
		{ .point = 1, .drive = "/dev/sdb", .interval = 9 },
	};
	struct rb_msg m, *b;
	uint32_t point = 99, attempt = 99;

	(void)state;
	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.epoch = 5;
	m.seq = 6;
	m.samples.v = s;
	m.samples.n = 2;
	b = round_trip(&m);
	assert_int_equal(b->samples.n, 2);
	assert_int_equal(b->samples.v[0].point, 1);
	assert_string_equal(b->samples.v[0].drive, "/dev/sda");
	assert_int_equal(b->samples.v[0].interval, 9);
	assert_int_equal(b->samples.v[0].direction, 1);
	assert_int_equal(b->samples.v[0].t_ns, 123456789);
	assert_int_equal(b->samples.v[0].ios, 31);
	assert_int_equal(b->samples.v[0].bytes, 31 * 4096);
	assert_int_equal(b->samples.v[0].errors, 1);
	assert_int_equal(b->samples.v[0].lat_sum_ns, 999);
	assert_int_equal(b->samples.v[0].hist.n, 3);
	assert_int_equal(b->samples.v[0].hist.idx[2], 4000);
	assert_int_equal(b->samples.v[0].hist.cnt[1], 20);
	assert_int_equal(b->samples.v[1].hist.n, 0);
	assert_string_equal(b->samples.v[1].drive, "/dev/sdb");
	assert_true(rb_msg_point(b, &point, &attempt));
	assert_int_equal(point, 1);
	assert_int_equal(attempt, 0);
	rb_msg_free(b);
}

/*
 * A result's measured numbers (common/wire/resultcore.h), each a value of its own: 100,
 * 110, 120, ... in the list's order; a one-byte flag (a bool on the wire) is 1. A number
 * added to the list is carried and compared here without a line of its own; the same
 * values in DriveResult's fields by hand (test_wire_codec_bytes) prove which field carries
 * which.
 */
static void result_core(struct rb_result_core *c)
{
	double v = 100;

#define SET(type, name, wire, unit)                                                                \
	c->name = (type)(sizeof(type) == 1 ? 1 : v);                                               \
	v += 10;
	RB_RESULT_FIELDS(SET)
#undef SET
}

static void same_core(const struct rb_result_core *a, const struct rb_result_core *b)
{
#define SAME(type, name, wire, unit)                                                               \
	if (a->name != b->name)                                                                    \
		fail_msg("result field %s: %g sent, %g received", #name, (double)b->name,           \
			 (double)a->name);
	RB_RESULT_FIELDS(SAME)
#undef SAME
}

static void fill_result(struct rb_msg *m, struct rb_dir_result *d, struct rb_bs_count *bc,
			struct rb_msg_io_error *ie, struct rb_identity *t, struct rb_identity *mem)
{
	static const uint32_t idx[] = { 1, 2 };
	static const uint64_t cnt[] = { 5, 6 };

	d[0] = (struct rb_dir_result){ .direction = 0,
				       .ios = 11,
				       .bytes = 11 * 512,
				       .errors = 1,
				       .lat_sum_ns = 1100,
				       .lat_min_ns = 90,
				       .lat_max_ns = 200,
				       .hist = { idx, cnt, 2 } };
	d[1] = (struct rb_dir_result){ .direction = 1, .ios = 4 };
	bc[0] = (struct rb_bs_count){ .direction = 0, .bs = 512, .ios = 11 };
	ie[0] = (struct rb_msg_io_error){
		.offset = 1 << 20, .length = 4096, .direction = 1, .err = 5, .count = 3
	};
	identity(t, "vol0", 1ULL << 40);
	snprintf(t->kind, sizeof(t->kind), "volume");
	identity(&mem[0], "/dev/sdb", 1ULL << 39);
	identity(&mem[1], "/dev/sdc", (1ULL << 39) + 1);
	rb_msg_init(m, RB_MSG_RESULT);
	m->epoch = 1;
	m->seq = 2;
	m->result = (struct rb_msg_result){
		.point = 3,
		.attempt = 1,
		.drive = "vol0",
		.dirs = d,
		.ndirs = 2,
		.bs_counts = bc,
		.nbs_counts = 1,
		.io_errors = ie,
		.nio_errors = 1,
		.status = RB_STATUS_ERROR,
		.message = "EIO at 1 MiB",
		.uring_features = "0x3fff",
		.trim_method = "uring_cmd",
		.target = t,
		.purge_method = "format",
		.start_mono_ns = 40,
		.members = mem,
		.nmembers = 2,
	};
	result_core(&m->result.core);
}

static void test_wire_result(void **state)
{
	struct rb_dir_result d[2];
	struct rb_bs_count bc[1];
	struct rb_msg_io_error ie[1];
	struct rb_identity t, mem[2];
	struct rb_msg m, *b;

	/* 1.8: a zns point's zone report, each field its own value */
	static const struct rb_msg_zone zones[2] = {
		{ 0, 8 << 20, 7 << 20, 8 << 20, 0xe, 2 },
		{ 8 << 20, 8 << 20, 7 << 20, (8 << 20) + 4096, 0x2, 2 },
	};

	(void)state;
	fill_result(&m, d, bc, ie, &t, mem);
	m.result.zones = zones;
	m.result.nzones = 2;
	m.result.dev_lat = (struct rb_dev_latency){
		.valid = true,
		.threshold_ms = { 5, 10, 20, 40 },
		.cmds = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 1ull << 40 } },
	};
	m.result.ocp_smart = true;
	m.result.ocp_media_bytes = 3.5e12;
	/* 1.10: C0h's other counters, a fallen one (NaN) kept as such */
	m.result.ocp = (struct rb_ocp_counters){ .valid = true,
						 .throttle_events = 2,
						 .pcie_correctable = 1e6,
						 .link_retrains = NAN,
						 .power_state_changes = 9,
						 .throttle_status = 3 };
	/* 1.10: FDP events, each field its own value */
	static const struct rb_msg_fdp_event fe[2] = {
		{ .type = 3, .flags = 1, .pid = 5, .timestamp_ms = 2000 },
		{ .type = 0x80,
		  .flags = 6,
		  .ruhid = 7,
		  .rgid = 9,
		  .nsid = 2,
		  .nlbam = 16,
		  .timestamp_ms = 1ull << 40,
		  .lba_valid = true,
		  .lba = 1ull << 33 },
	};
	m.result.fdp_events = fe;
	m.result.nfdp_events = 2;
	b = round_trip(&m);
	const struct rb_msg_result *r = &b->result;

	assert_int_equal(r->nfdp_events, 2);
	for (int i = 0; i < 2; i++) {
		const struct rb_msg_fdp_event *x = &r->fdp_events[i], *y = &fe[i];

		assert_true(x->type == y->type && x->flags == y->flags && x->pid == y->pid &&
			    x->ruhid == y->ruhid && x->rgid == y->rgid && x->nsid == y->nsid &&
			    x->nlbam == y->nlbam && x->timestamp_ms == y->timestamp_ms &&
			    x->lba_valid == y->lba_valid && x->lba == y->lba);
	}

	assert_int_equal(r->nzones, 2);
	assert_memory_equal(r->zones, zones, sizeof(zones));
	assert_true(r->dev_lat.valid);
	assert_true(r->ocp_smart);
	assert_true(r->ocp_media_bytes == 3.5e12);
	assert_true(r->ocp.valid && r->ocp.throttle_events == 2 &&
		    r->ocp.pcie_correctable == 1e6 && isnan(r->ocp.link_retrains) &&
		    r->ocp.power_state_changes == 9 && r->ocp.throttle_status == 3);
	assert_memory_equal(r->dev_lat.threshold_ms, m.result.dev_lat.threshold_ms,
			    sizeof(r->dev_lat.threshold_ms));
	assert_memory_equal(r->dev_lat.cmds, m.result.dev_lat.cmds, sizeof(r->dev_lat.cmds));

	assert_int_equal(r->point, 3);
	assert_int_equal(r->attempt, 1);
	assert_string_equal(r->drive, "vol0");
	same_core(&r->core, &m.result.core);
	assert_int_equal(r->ndirs, 2);
	assert_int_equal(r->dirs[0].ios, 11);
	assert_int_equal(r->dirs[0].bytes, 11 * 512);
	assert_int_equal(r->dirs[0].errors, 1);
	assert_int_equal(r->dirs[0].lat_sum_ns, 1100);
	assert_int_equal(r->dirs[0].lat_min_ns, 90);
	assert_int_equal(r->dirs[0].lat_max_ns, 200);
	assert_int_equal(r->dirs[0].hist.n, 2);
	assert_int_equal(r->dirs[0].hist.cnt[1], 6);
	assert_int_equal(r->dirs[1].direction, 1);
	assert_int_equal(r->dirs[1].ios, 4);
	assert_int_equal(r->nbs_counts, 1);
	assert_int_equal(r->bs_counts[0].bs, 512);
	assert_int_equal(r->bs_counts[0].ios, 11);
	assert_int_equal(r->nio_errors, 1);
	assert_int_equal(r->io_errors[0].offset, 1 << 20);
	assert_int_equal(r->io_errors[0].length, 4096);
	assert_int_equal(r->io_errors[0].direction, 1);
	assert_int_equal(r->io_errors[0].err, 5);
	assert_int_equal(r->io_errors[0].count, 3);
	assert_int_equal(r->status, RB_STATUS_ERROR);
	assert_string_equal(r->message, "EIO at 1 MiB");
	assert_string_equal(r->uring_features, "0x3fff");
	assert_string_equal(r->trim_method, "uring_cmd");
	assert_non_null(r->target);
	same_identity(r->target, &t);
	assert_string_equal(r->purge_method, "format");
	assert_int_equal(r->start_mono_ns, 40);
	assert_int_equal(r->nmembers, 2);
	same_identity(&r->members[1], &mem[1]);
	rb_msg_free(b);

	/* a status alone: no target at all, not an empty one */
	rb_msg_init(&m, RB_MSG_RESULT);
	m.result.drive = "/dev/sda";
	m.result.status = RB_STATUS_REFUSED;
	b = round_trip(&m);
	assert_int_equal(b->result.status, RB_STATUS_REFUSED);
	assert_null(b->result.target);
	assert_string_equal(b->result.message, "");
	assert_int_equal(b->result.ndirs, 0);
	assert_false(b->result.dev_lat.valid); /* none sent: none read */
	assert_false(b->result.ocp_smart);
	assert_false(b->result.ocp.valid);
	rb_msg_free(b);
}

static void test_wire_health(void **state)
{
	struct rb_msg m, *b;

	(void)state;
	rb_msg_init(&m, RB_MSG_HEALTH);
	m.health = (struct rb_msg_health){
		.point = 2,
		.attempt = 1,
		.drive = "vol0",
		.member = "/dev/sdb",
		.t_ns = 5,
		.when = 2,
		.h.nvme = true,
		.h.kernel = true,
		.h.critical_warning = 4,
		.h.temperature_c = -3,
		.h.available_spare_pct = 97,
		.h.percentage_used = 12,
		.h.data_units_read = 1.5,
		.h.data_units_written = 2.5,
		.h.host_reads = 3.5,
		.h.host_writes = 4.5,
		.h.power_on_hours = 5.5,
		.h.unsafe_shutdowns = 6.5,
		.h.media_errors = 7.5,
		.h.error_log_entries = 8.5,
		.h.kernel_read_ios = 9,
		.h.kernel_write_ios = 10,
		.h.kernel_read_bytes = 11,
		.h.kernel_write_bytes = 12,
		.h.warn_temp_minutes = 13.5,
		.h.crit_temp_minutes = 14.5,
		.h.throttle_transitions = 15,
		.h.throttle_seconds = 16.5,
	};
	b = round_trip(&m);
	assert_int_equal(b->health.t_ns, 5);
	assert_int_equal(b->health.when, 2);
	assert_true(b->health.h.nvme && b->health.h.kernel);
	assert_int_equal(b->health.h.critical_warning, 4);
	assert_int_equal(b->health.h.temperature_c, -3);
	assert_int_equal(b->health.h.available_spare_pct, 97);
	assert_int_equal(b->health.h.percentage_used, 12);
	assert_true(b->health.h.data_units_read == 1.5 && b->health.h.data_units_written == 2.5);
	assert_true(b->health.h.host_reads == 3.5 && b->health.h.host_writes == 4.5);
	assert_true(b->health.h.power_on_hours == 5.5 && b->health.h.unsafe_shutdowns == 6.5);
	assert_true(b->health.h.media_errors == 7.5 && b->health.h.error_log_entries == 8.5);
	assert_int_equal(b->health.h.kernel_read_ios + b->health.h.kernel_write_ios, 19);
	assert_int_equal(b->health.h.kernel_read_bytes + b->health.h.kernel_write_bytes, 23);
	assert_true(b->health.h.warn_temp_minutes == 13.5 && b->health.h.crit_temp_minutes == 14.5);
	assert_true(b->health.h.throttle_transitions == 15 && b->health.h.throttle_seconds == 16.5);
	assert_int_equal(b->health.point, 2);
	assert_int_equal(b->health.attempt, 1);
	assert_string_equal(b->health.drive, "vol0");
	assert_string_equal(b->health.member, "/dev/sdb");
	rb_msg_free(b);
}

/* A piece of evidence: every field, the bytes as sent (zeros and high bytes included). */
static void test_wire_evidence_data(void **state)
{
	(void)state;
	uint8_t data[3000];
	struct rb_msg m, *back;
	char json[1024];
	FILE *f;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	rb_msg_init(&m, RB_MSG_EVIDENCE_DATA);
	m.epoch = 9;
	m.seq = 41;
	m.evidence_data = (struct rb_msg_evidence_data){
		.point = 3,
		.attempt = 2,
		.drive = "/dev/nvme0n1",
		.path = "/var/lib/rackbench/evidence/nvme0n1-X-abc/telemetry-host.bin",
		.sha256 = "00ff",
		.offset = 1u << 20,
		.bytes = (1u << 20) + sizeof(data),
		.data = data,
		.len = sizeof(data),
	};
	back = round_trip(&m);
	assert_int_equal(back->evidence_data.point, 3);
	assert_int_equal(back->evidence_data.attempt, 2);
	assert_string_equal(back->evidence_data.drive, "/dev/nvme0n1");
	assert_string_equal(back->evidence_data.path, m.evidence_data.path);
	assert_string_equal(back->evidence_data.sha256, "00ff");
	assert_int_equal(back->evidence_data.offset, 1u << 20);
	assert_int_equal(back->evidence_data.bytes, (1u << 20) + sizeof(data));
	assert_int_equal(back->evidence_data.len, sizeof(data));
	assert_memory_equal(back->evidence_data.data, data, sizeof(data));
	/* a data message of a point: the journal and the spool dump say which */
	uint32_t pt = 0, at = 0;

	assert_true(rb_msg_point(back, &pt, &at));
	assert_int_equal(pt, 3);
	assert_int_equal(at, 2);
	assert_string_equal(rb_msg_name(back), "evidence-data");
	f = fmemopen(json, sizeof(json), "w");
	rb_msg_json_fields(f, back);
	fclose(f);
	assert_non_null(strstr(json, "\"offset\": 1048576, \"length\": 3000"));
	rb_msg_free(back);
}

/* The coordinator's capture order and the agent's answer, every field. */
static void test_wire_capture(void **state)
{
	(void)state;
	struct rb_msg_evidence ev[2] = { { "telemetry", "/s/evidence/x/telemetry-host.bin", "ab", 2048 },
					 { "smart", "/s/evidence/x/smart.bin", "cd", 512 } };
	struct rb_msg m, *back;
	uint32_t pt = 0, at = 0;

	rb_msg_init(&m, RB_MSG_CAPTURE);
	m.capture = (struct rb_msg_capture){ 4, 1, "/dev/nvme1n1", "its verdict is FAIL" };
	back = round_trip(&m);
	assert_int_equal(back->capture.point, 4);
	assert_int_equal(back->capture.attempt, 1);
	assert_string_equal(back->capture.drive, "/dev/nvme1n1");
	assert_string_equal(back->capture.reason, "its verdict is FAIL");
	assert_false(rb_msg_point(back, &pt, &at)); /* an order, not data of a point */
	rb_msg_free(back);

	rb_msg_init(&m, RB_MSG_CAPTURED);
	m.seq = 7;
	m.captured = (struct rb_msg_captured){ .point = 4, .attempt = 1, .drive = "/dev/nvme1n1",
					       .error = "", .evidence = ev, .nevidence = 2 };
	back = round_trip(&m);
	assert_int_equal(back->captured.nevidence, 2);
	assert_string_equal(back->captured.evidence[1].kind, "smart");
	assert_string_equal(back->captured.evidence[0].path, ev[0].path);
	assert_string_equal(back->captured.evidence[0].sha256, "ab");
	assert_int_equal(back->captured.evidence[0].bytes, 2048);
	assert_string_equal(back->captured.error, "");
	assert_true(rb_msg_point(back, &pt, &at));
	assert_int_equal(pt, 4);
	assert_int_equal(at, 1);
	rb_msg_free(back);
}

static void test_wire_small_messages(void **state)
{
	struct rb_msg m, *b;
	uint32_t point, attempt;

	(void)state;
	rb_msg_init(&m, RB_MSG_WELCOME);
	m.welcome = (struct rb_msg_welcome){ "camp", "run-9" };
	b = round_trip(&m);
	assert_string_equal(b->welcome.campaign, "camp");
	assert_string_equal(b->welcome.run, "run-9");
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_ACK);
	m.ack = (struct rb_msg_ack){ 0xabcdef, 12345 };
	b = round_trip(&m);
	assert_int_equal(b->ack.epoch, 0xabcdef);
	assert_int_equal(b->ack.seq, 12345);
	assert_false(rb_msg_point(b, &point, &attempt));
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.seq = 4;
	m.point_done = (struct rb_msg_point_done){ 6, 2 };
	b = round_trip(&m);
	assert_true(rb_msg_point(b, &point, &attempt));
	assert_int_equal(point, 6);
	assert_int_equal(attempt, 2);
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_STOP);
	m.stop.reason = "steady state reached";
	b = round_trip(&m);
	assert_string_equal(b->stop.reason, "steady state reached");
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_ERROR);
	m.error = (struct rb_msg_error){ 71, "protocol 2.0" };
	b = round_trip(&m);
	assert_int_equal(b->error.code, 71);
	assert_string_equal(b->error.message, "protocol 2.0");
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_HEARTBEAT);
	m.heartbeat = (struct rb_msg_heartbeat){ 77, 3 };
	b = round_trip(&m);
	assert_int_equal(b->heartbeat.epoch, 77);
	assert_int_equal(b->heartbeat.point, 3);
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_TIME_PROBE);
	m.time.t0 = -1;
	b = round_trip(&m);
	assert_int_equal(b->time.t0, -1);
	assert_string_equal(rb_msg_name(b), "time-probe");
	rb_msg_free(b);

	rb_msg_init(&m, RB_MSG_TIME_REPLY);
	m.time = (struct rb_msg_time){ 1, 2, 3 };
	b = round_trip(&m);
	assert_int_equal(b->time.t0 + b->time.t1 * 10 + b->time.t2 * 100, 321);
	rb_msg_free(b);
}

/* The typed codec's bytes are the generated code's for the same message. */
static void same_bytes(const struct rb_msg *m, const Rb__Envelope *e)
{
	size_t n = rb__envelope__get_packed_size(e);
	uint8_t *want = malloc(n + 1), *got;
	size_t len;

	rb__envelope__pack(e, want);
	assert_int_equal(rb_msg_pack(m, &got, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	free(got);
	free(want);
}

static void test_wire_bytes_unchanged(void **state)
{
	struct rb_dir_result d[2];
	struct rb_bs_count bc[1];
	struct rb_msg_io_error ie[1];
	struct rb_identity t, mem[2];
	struct rb_msg m;
	Rb__Envelope e = RB__ENVELOPE__INIT;
	Rb__DriveResult r = RB__DRIVE_RESULT__INIT;
	Rb__DirResult d0 = RB__DIR_RESULT__INIT, d1 = RB__DIR_RESULT__INIT, *dp[] = { &d0, &d1 };
	Rb__BsCount b0 = RB__BS_COUNT__INIT, *bp[] = { &b0 };
	Rb__IoError e0 = RB__IO_ERROR__INIT, *ep[] = { &e0 };
	Rb__TargetInfo ti = RB__TARGET_INFO__INIT, m0 = RB__TARGET_INFO__INIT,
		       m1 = RB__TARGET_INFO__INIT, *mp[] = { &m0, &m1 };
	Rb__TargetInfo *tis[] = { &ti, &m0, &m1 };
	struct rb_identity *ids[] = { &t, &mem[0], &mem[1] };
	uint32_t idx[] = { 1, 2 };
	uint64_t cnt[] = { 5, 6 };

	(void)state;
	fill_result(&m, d, bc, ie, &t, mem);
	for (int i = 0; i < 3; i++) {
		tis[i]->path = ids[i]->path;
		tis[i]->kind = ids[i]->kind;
		tis[i]->size_bytes = ids[i]->size_bytes;
		tis[i]->model = ids[i]->model;
		tis[i]->serial = ids[i]->serial;
		tis[i]->firmware = ids[i]->firmware;
		tis[i]->logical_block_size = ids[i]->logical_block_size;
		tis[i]->writable = ids[i]->writable;
	}
	d0.ios = 11;
	d0.bytes = 11 * 512;
	d0.errors = 1;
	d0.lat_sum_ns = 1100;
	d0.lat_min_ns = 90;
	d0.lat_max_ns = 200;
	d0.n_hist_idx = d0.n_hist_cnt = 2;
	d0.hist_idx = idx;
	d0.hist_cnt = cnt;
	d1.direction = 1;
	d1.ios = 4;
	b0.bs = 512;
	b0.ios = 11;
	e0.offset = 1 << 20;
	e0.length = 4096;
	e0.direction = 1;
	e0.err = 5;
	e0.count = 3;
	r.point = 3;
	r.attempt = 1;
	r.drive = (char *)"vol0";
	/* the numbers of resultcore.h, each in its DriveResult field (result_core's values) */
	r.start_ns = 100;
	r.end_ns = 110;
	r.elapsed_ns = 120;
	r.cpu_usr_pct = 130;
	r.cpu_sys_pct = 140;
	r.verify_checked = 150;
	r.verify_mismatches = 160;
	r.history_since_ns = 170;
	r.purge_ns = 180;
	r.written_since_purge = 190;
	r.fill_passes_since_purge = 200;
	r.replay_ios = 210;
	r.replay_complete = true;
	r.replay_timed = true;
	r.replay_lag_p50_ns = 240;
	r.replay_lag_p99_ns = 250;
	r.replay_lag_max_ns = 260;
	r.zone_reset_ns = 270;
	r.zone_finish_ns = 280;
	r.zones_finished = 290;
	r.n_dirs = 2;
	r.dirs = dp;
	r.n_bs_counts = 1;
	r.bs_counts = bp;
	r.n_io_errors = 1;
	r.io_errors = ep;
	r.status = (char *)"error";
	r.message = (char *)"EIO at 1 MiB";
	r.uring_features = (char *)"0x3fff";
	r.trim_method = (char *)"uring_cmd";
	r.target = &ti;
	r.purge_method = (char *)"format";
	r.start_mono_ns = 40;
	r.n_members = 2;
	r.members = mp;
	e.version_major = RB_PROTO_MAJOR;
	e.version_minor = RB_PROTO_MINOR;
	e.epoch = 1;
	e.seq = 2;
	e.body_case = RB__ENVELOPE__BODY_RESULT;
	e.result = &r;
	same_bytes(&m, &e);

	/* an Assign whose purge is NULL sends no purge field, as the generated code did */
	const char *drives[] = { "/dev/sda" };
	struct rb_kv set[] = { { "bs", "4k" } };
	Rb__Assign as = RB__ASSIGN__INIT;
	Rb__Setting s0 = RB__SETTING__INIT, *sp[] = { &s0 };
	char *dv[] = { (char *)"/dev/sda" };

	rb_msg_init(&m, RB_MSG_ASSIGN);
	m.assign = (struct rb_msg_assign){
		.point = 1, .drives = drives, .ndrives = 1, .settings = set, .nsettings = 1
	};
	s0.key = (char *)"bs";
	s0.value = (char *)"4k";
	as.point = 1;
	as.n_drives = 1;
	as.drives = dv;
	as.n_settings = 1;
	as.settings = sp;
	e.epoch = e.seq = 0;
	e.body_case = RB__ENVELOPE__BODY_ASSIGN;
	e.assign = &as;
	same_bytes(&m, &e);
}

static void test_wire_refuses_other_major(void **state)
{
	struct rb_msg m, *back = NULL;
	uint8_t *buf;
	size_t len;
	char err[256], mine[32];

	(void)state;
	rb_msg_init(&m, RB_MSG_STOP);
	m.major = RB_PROTO_MAJOR + 1;
	m.minor = 7;
	assert_int_equal(rb_msg_pack(&m, &buf, &len), 0);
	assert_int_equal(rb_msg_unpack(buf, len, &back, err, sizeof(err)), -EPROTONOSUPPORT);
	snprintf(mine, sizeof(mine), "%d.%d", RB_PROTO_MAJOR, RB_PROTO_MINOR);
	assert_non_null(strstr(err, "2.7"));
	assert_non_null(strstr(err, mine));
	free(buf);
}

/* A result's status is one of the table's strings: another is refused, naming it. */
static void test_wire_refuses_unknown_status(void **state)
{
	Rb__Envelope e = RB__ENVELOPE__INIT;
	Rb__DriveResult r = RB__DRIVE_RESULT__INIT;
	struct rb_msg *back = NULL;
	uint8_t buf[256];
	size_t len;
	char err[256];
	const char *bad[] = { "fine", "", "OK" };

	(void)state;
	e.version_major = RB_PROTO_MAJOR;
	e.version_minor = RB_PROTO_MINOR;
	e.body_case = RB__ENVELOPE__BODY_RESULT;
	e.result = &r;
	r.drive = (char *)"/dev/sdq";
	r.point = 3;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		r.status = (char *)bad[i];
		len = rb__envelope__pack(&e, buf);
		assert_int_equal(rb_msg_unpack(buf, len, &back, err, sizeof(err)), -EBADMSG);
		assert_null(back);
		assert_non_null(strstr(err, "/dev/sdq"));
		assert_non_null(strstr(err, "point 3"));
	}
	r.status = (char *)"stopped";
	len = rb__envelope__pack(&e, buf);
	assert_int_equal(rb_msg_unpack(buf, len, &back, err, sizeof(err)), 0);
	assert_int_equal(back->result.status, RB_STATUS_STOPPED);
	rb_msg_free(back);
	/* every status's string reads back as itself, and nothing else parses */
	for (int st = 0; st < RB_NSTATUS; st++) {
		enum rb_status got;

		assert_int_equal(rb_status_parse(rb_status_name((enum rb_status)st), &got), 0);
		assert_int_equal(got, st);
	}
	assert_int_equal(rb_status_of("no such"), RB_STATUS_ERROR);
	assert_string_equal(rb_status_name(RB_NSTATUS), "?");
}

static void test_wire_tolerates_unknown_field(void **state)
{
	struct rb_msg m, *back = NULL;
	uint8_t *buf, *more;
	size_t len;
	char err[256];

	(void)state;
	rb_msg_init(&m, RB_MSG_STOP);
	m.minor = 9;
	m.stop.reason = "done";
	assert_int_equal(rb_msg_pack(&m, &buf, &len), 0);
	/* a newer minor adds field 99 (varint 5): an older reader ignores it */
	more = malloc(len + 3);
	memcpy(more, buf, len);
	more[len] = ((99 << 3) & 0x7f) | 0x80;
	more[len + 1] = 99 >> 4;
	more[len + 2] = 5;
	assert_int_equal(rb_msg_unpack(more, len + 3, &back, err, sizeof(err)), 0);
	assert_string_equal(back->stop.reason, "done");
	assert_int_equal(back->minor, 9);
	rb_msg_free(back);
	free(more);
	free(buf);
}

static void test_wire_uneven_histogram_read_as_shorter(void **state)
{
	Rb__Envelope e = RB__ENVELOPE__INIT;
	Rb__SampleBatch sb = RB__SAMPLE_BATCH__INIT;
	Rb__Sample s = RB__SAMPLE__INIT, *sp[] = { &s };
	uint32_t idx[] = { 1, 2, 3 };
	uint64_t cnt[] = { 9, 8 };
	uint8_t buf[256];
	struct rb_msg *back = NULL;
	char err[256];

	(void)state;
	s.n_hist_idx = 3;
	s.hist_idx = idx;
	s.n_hist_cnt = 2;
	s.hist_cnt = cnt;
	sb.n_samples = 1;
	sb.samples = sp;
	e.version_major = RB_PROTO_MAJOR;
	e.body_case = RB__ENVELOPE__BODY_SAMPLES;
	e.samples = &sb;
	assert_true(rb__envelope__get_packed_size(&e) < sizeof(buf));
	size_t n = rb__envelope__pack(&e, buf);

	assert_int_equal(rb_msg_unpack(buf, n, &back, err, sizeof(err)), 0);
	assert_int_equal(back->samples.v[0].hist.n, 2);
	rb_msg_free(back);
}

/*
 * Both decoders' answer for buf: the same return code and, decoded, the same message
 * (packed again to the same bytes). Returns the return code.
 */
static int same_decode(const uint8_t *buf, size_t len)
{
	struct rb_msg *a = NULL, *b = NULL;
	char ea[256], eb[256];
	int ra, rb;

	ra = rb_msg_unpack(buf, len, &a, ea, sizeof(ea));
	rb_wire_generic_only(true);
	rb = rb_msg_unpack(buf, len, &b, eb, sizeof(eb));
	rb_wire_generic_only(false);
	assert_int_equal(ra, rb);
	if (!ra) {
		uint8_t *pa, *pb;
		size_t la, lb;

		assert_int_equal(a->kind, b->kind);
		assert_int_equal(a->major, b->major);
		assert_int_equal(a->minor, b->minor);
		assert_int_equal(rb_msg_pack(a, &pa, &la), 0);
		assert_int_equal(rb_msg_pack(b, &pb, &lb), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(pa, pb, la);
		free(pa);
		free(pb);
		rb_msg_free(a);
		rb_msg_free(b);
	} else {
		assert_string_equal(ea, eb);
	}
	return ra;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Samples are decoded directly, not by protobuf-c: every batch the agents' encoder
 * makes, every prefix of one and thousands of damaged copies get the generic decoder's
 * answer, and the shapes the direct decoder does not take (an unpacked list, a field
 * twice, an unknown field, another major) still decode or fail as before.
 */
static void test_wire_samples_direct_equals_generic(void **state)
{
	enum { N = 40 };
	struct rb_msg_sample s[N];
	uint32_t idx[N][70];
	uint64_t cnt[N][70], seed = 0x9e3779b97f4a7c15ULL;
	char drive[N][32];
	struct rb_msg m;
	uint8_t *buf, *bad;
	size_t len;
	unsigned long direct;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		size_t n = rnd(&seed) % 70;

		for (size_t j = 0; j < n; j++) {
			idx[i][j] = (uint32_t)(j * 37 + rnd(&seed) % 37);
			cnt[i][j] = j % 7 == 6 ? UINT64_MAX - j : rnd(&seed) % 100000;
		}
		if (i % 9 == 8)
			drive[i][0] = '\0'; /* an empty name */
		else
			snprintf(drive[i], sizeof(drive[i]), "/dev/nvme%zun1", i);
		s[i] = (struct rb_msg_sample){ .point = (uint32_t)(i % 3 ? i : UINT32_MAX),
					       .attempt = (uint32_t)(i % 2),
					       .drive = drive[i],
					       .interval = (uint32_t)rnd(&seed),
					       .direction = (uint32_t)(i % 3),
					       .t_ns = i % 5 ? (int64_t)(rnd(&seed) >> 1) : -7,
					       .ios = rnd(&seed),
					       .bytes = i % 4 ? rnd(&seed) : 0,
					       .errors = i % 11 ? 0 : 3,
					       .lat_sum_ns = rnd(&seed),
					       .hist = { idx[i], cnt[i], n },
					       .last = i % 4 == 1 };
	}
	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.epoch = 1ULL << 40;
	m.seq = 77;
	m.samples = (struct rb_msg_samples){ s, N };
	assert_int_equal(rb_msg_pack(&m, &buf, &len), 0);
	direct = rb_wire_direct_decodes();
	assert_int_equal(same_decode(buf, len), 0);
	/* the agents' own encoding is the direct decoder's */
	assert_int_equal(rb_wire_direct_decodes(), direct + 1);
	/* a drive's last interval says so through both */
	for (int generic = 0; generic < 2; generic++) {
		struct rb_msg *back = NULL;
		char err[256];

		rb_wire_generic_only(generic);
		assert_int_equal(rb_msg_unpack(buf, len, &back, err, sizeof(err)), 0);
		rb_wire_generic_only(false);
		for (size_t i = 0; i < N; i++)
			assert_int_equal(back->samples.v[i].last, i % 4 == 1);
		rb_msg_free(back);
	}
	for (size_t k = 0; k < len; k++)
		same_decode(buf, k);
	bad = malloc(len);
	assert_non_null(bad);
	for (int t = 0; t < 6000; t++) {
		memcpy(bad, buf, len);
		for (int j = 0; j < 1 + t % 3; j++)
			bad[rnd(&seed) % len] = (uint8_t)rnd(&seed);
		same_decode(bad, len);
	}
	free(bad);
	free(buf);
}

/*
 * m packed by the direct encoder and by protobuf-c: the same return code and bytes, and
 * the first did take the direct encoder when it packed.
 */
static void same_encode(const struct rb_msg *m)
{
	uint8_t *p = NULL;
	size_t len = 0;
	bool direct = false;
	int r;

	assert_int_equal(rb_wire_same_encode(m, &direct), 0);
	r = rb_msg_pack(m, &p, &len);
	assert_int_equal(direct, r == 0);
	free(p);
}

/* A random value, or one at a varint length's edge one time in four. */
static uint64_t pick(uint64_t *s)
{
	static const uint64_t edge[] = { 0,	     1,
					 127,	     128,
					 16383,	     16384,
					 UINT32_MAX, (uint64_t)UINT32_MAX + 1,
					 INT64_MAX,  (uint64_t)INT64_MAX + 1,
					 UINT64_MAX };
	uint64_t r = rnd(s);

	if (r % 4)
		return rnd(s) >> (r % 64);
	return edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))];
}

/*
 * Samples are encoded directly, not by protobuf-c, to the same bytes: batches of 0 to
 * 200 samples (past the encoder's 64 on its stack) of random fields, each of them 0 in
 * some (proto3 leaves zeros out) and at a varint length's edge in others, no drive, an
 * empty one or one of 200 bytes (a two-byte length), negative times, buckets and counts
 * of 0 and of every varint length; an envelope of no header field; and batches of
 * exactly the message limit (taken by both) and one byte more (refused by both).
 */
static void test_wire_samples_encoder_equals_protobuf_c(void **state)
{
	enum { N = 200, B = 40 };
	struct rb_msg_sample *s = calloc(N, sizeof(*s));
	uint32_t *idx = calloc((size_t)N * B, sizeof(*idx));
	uint64_t *cnt = calloc((size_t)N * B, sizeof(*cnt)), seed = 0x2545f4914f6cdd1dULL;
	char longname[201];
	struct rb_msg m;

	(void)state;
	assert_true(s && idx && cnt);
	memset(longname, 'n', 200);
	longname[200] = '\0';
	for (int t = 0; t < 300; t++) {
		size_t n = t < 3 ? (size_t)t : rnd(&seed) % (t % 10 ? 70 : N + 1);

		for (size_t i = 0; i < n; i++) {
			uint64_t z = rnd(&seed); /* which fields are 0 */
			size_t nb = rnd(&seed) % (B + 1);
			uint32_t *xi = idx + i * B;
			uint64_t *xc = cnt + i * B;

			for (size_t j = 0; j < nb; j++) {
				xi[j] = (uint32_t)pick(&seed);
				xc[j] = pick(&seed);
			}
			s[i] = (struct rb_msg_sample){
				.point = z & 1 ? 0 : (uint32_t)pick(&seed),
				.attempt = z & 2 ? 0 : (uint32_t)(rnd(&seed) % 5),
				.drive = z & 4		 ? NULL
					 : z & 8	 ? ""
					 : z & (1 << 13) ? longname
					 : z & 16	 ? "/dev/nvme0n1"
							 : "d",
				.interval = z & 32 ? 0 : (uint32_t)pick(&seed),
				.direction = z & 64 ? 0 : (uint32_t)(rnd(&seed) % 3),
				.t_ns = z & 128	  ? 0
					: z & 256 ? -(int64_t)(rnd(&seed) >> 2)
						  : (int64_t)pick(&seed),
				.ios = z & 512 ? 0 : pick(&seed),
				.bytes = z & 1024 ? 0 : pick(&seed),
				.errors = z & 2048 ? 0 : rnd(&seed) % 3,
				.lat_sum_ns = z & 4096 ? 0 : pick(&seed),
				.hist = { nb ? xi : NULL, nb ? xc : NULL, nb },
				.last = z & (1 << 14)
			};
		}
		rb_msg_init(&m, RB_MSG_SAMPLES);
		if (t % 7 == 3) {
			m.major = m.minor = 0; /* an envelope of nothing but its body */
		} else {
			m.epoch = rnd(&seed) >> (t % 64);
			m.seq = t % 5 ? rnd(&seed) % 100000 : 0;
		}
		m.samples = (struct rb_msg_samples){ n ? s : NULL, n };
		same_encode(&m);
	}
	free(s);
	free(idx);
	free(cnt);
	{
		/*
		 * One sample of nothing but a drive of L bytes, in an envelope of nothing but
		 * its body: L + 15 bytes (a one-byte key and a four-byte length at each of
		 * three levels), so L = limit - 15 is exactly the limit.
		 */
		size_t l = RB_WIRE_MAX_BYTES - 15;
		char *name = malloc(l + 2);
		struct rb_msg_sample one = { 0 };
		uint8_t *buf = NULL;
		size_t len = 0;

		assert_non_null(name);
		memset(name, 'x', l + 1);
		name[l] = '\0';
		one.drive = name;
		rb_msg_init(&m, RB_MSG_SAMPLES);
		m.major = m.minor = 0;
		m.samples = (struct rb_msg_samples){ &one, 1 };
		same_encode(&m);
		assert_int_equal(rb_msg_pack(&m, &buf, &len), 0);
		assert_int_equal(len, RB_WIRE_MAX_BYTES);
		free(buf);
		name[l] = 'x'; /* one byte more */
		name[l + 1] = '\0';
		same_encode(&m);
		assert_int_equal(rb_msg_pack(&m, &buf, &len), -EMSGSIZE);
		free(name);
	}
	{
		/* one sample past RB_WIRE_MAX_BYTES: 1.7 M buckets of 10-byte counts */
		size_t nb = 1700000;
		uint32_t *bi = calloc(nb, sizeof(*bi));
		uint64_t *bc = malloc(nb * sizeof(*bc));
		struct rb_msg_sample big = { .drive = "d" };
		uint8_t *buf = NULL;
		size_t len;

		assert_true(bi && bc);
		for (size_t j = 0; j < nb; j++)
			bc[j] = UINT64_MAX;
		big.hist = (struct rb_sparse){ bi, bc, nb };
		rb_msg_init(&m, RB_MSG_SAMPLES);
		m.samples = (struct rb_msg_samples){ &big, 1 };
		same_encode(&m);
		assert_int_equal(rb_msg_pack(&m, &buf, &len), -EMSGSIZE);
		free(bi);
		free(bc);
	}
}

/* Shapes protobuf-c takes that the direct decoder leaves to it. */
static void test_wire_samples_other_shapes(void **state)
{
	/* envelope (major 1, seq 3), body 15: one Sample of drive "d", point 2 twice, its
	 * hist_idx unpacked (two entries), hist_cnt packed (two), an unknown field 13 */
	static const uint8_t odd[] = { 0x08, 0x01, 0x20, 0x03, 0x7a, 0x13, 0x0a, 0x11, 0x1a,
				       0x01, 'd',  0x08, 0x02, 0x08, 0x02, 0x58, 0x05, 0x58,
				       0x06, 0x62, 0x02, 0x07, 0x09, 0x68, 0x01 };
	struct rb_msg *b = NULL;
	char err[256];
	unsigned long direct = rb_wire_direct_decodes();

	(void)state;
	assert_int_equal(same_decode(odd, sizeof(odd)), 0);
	assert_int_equal(rb_wire_direct_decodes(), direct);
	assert_int_equal(rb_msg_unpack(odd, sizeof(odd), &b, err, sizeof(err)), 0);
	assert_int_equal(b->samples.n, 1);
	assert_string_equal(b->samples.v[0].drive, "d");
	assert_int_equal(b->samples.v[0].point, 2);
	assert_int_equal(b->samples.v[0].hist.n, 2);
	assert_int_equal(b->samples.v[0].hist.idx[1], 6);
	assert_int_equal(b->samples.v[0].hist.cnt[1], 9);
	rb_msg_free(b);
}

/*
 * A small message of many empty targets: each costs protobuf-c little and the typed
 * identity list much more; together they are held to the decoder's budget, refused as too
 * large, not allocated.
 */
static void test_wire_decode_budget_counts_typed_arrays(void **state)
{
	enum { N = 200000 };
	Rb__Envelope e = RB__ENVELOPE__INIT;
	Rb__Hello h = RB__HELLO__INIT;
	Rb__TargetInfo *ti = calloc(N, sizeof(*ti)), **tp = calloc(N, sizeof(*tp));
	struct rb_msg *back = NULL;
	uint8_t *buf;
	size_t n;
	char err[256];

	(void)state;
	assert_non_null(ti);
	assert_non_null(tp);
	for (size_t i = 0; i < N; i++) {
		rb__target_info__init(&ti[i]);
		tp[i] = &ti[i];
	}
	h.n_targets = N;
	h.targets = tp;
	e.version_major = RB_PROTO_MAJOR;
	e.body_case = RB__ENVELOPE__BODY_HELLO;
	e.hello = &h;
	n = rb__envelope__get_packed_size(&e);
	assert_true(n < RB_WIRE_MAX_BYTES);
	buf = malloc(n);
	assert_non_null(buf);
	rb__envelope__pack(&e, buf);
	/* N identities of 448 bytes are past 64 MiB; the envelope alone is not */
	assert_true((size_t)N * sizeof(struct rb_identity) > RB_WIRE_DECODE_BUDGET);
	assert_int_equal(rb_msg_unpack(buf, n, &back, err, sizeof(err)), -EMSGSIZE);
	assert_non_null(strstr(err, "needs more than"));
	/* a tenth of them fits */
	h.n_targets = N / 10;
	n = rb__envelope__get_packed_size(&e);
	rb__envelope__pack(&e, buf);
	assert_int_equal(rb_msg_unpack(buf, n, &back, err, sizeof(err)), 0);
	assert_int_equal(back->hello.ntargets, N / 10);
	rb_msg_free(back);
	free(buf);
	free(ti);
	free(tp);
}

static void test_wire_rejects_garbage_and_oversize(void **state)
{
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02 };
	struct rb_msg *back = NULL, m;
	uint8_t *buf;
	size_t len;
	char err[256];

	(void)state;
	assert_int_equal(rb_msg_unpack(junk, sizeof(junk), &back, err, sizeof(err)), -EBADMSG);
	assert_int_equal(rb_msg_unpack(junk, RB_WIRE_MAX_BYTES + 1, &back, err, sizeof(err)),
			 -EMSGSIZE);
	/* an envelope with no body */
	assert_int_equal(rb_msg_unpack((const uint8_t *)"\x08\x01", 2, &back, err, sizeof(err)),
			 -EBADMSG);
	/* a message of no kind is not sent */
	rb_msg_init(&m, RB_MSG_NONE);
	assert_int_equal(rb_msg_pack(&m, &buf, &len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_hello),
		cmocka_unit_test(test_wire_preflight_and_reply),
		cmocka_unit_test(test_wire_assign),
		cmocka_unit_test(test_wire_samples),
		cmocka_unit_test(test_wire_result),
		cmocka_unit_test(test_wire_health),
		cmocka_unit_test(test_wire_evidence_data),
		cmocka_unit_test(test_wire_capture),
		cmocka_unit_test(test_wire_small_messages),
		cmocka_unit_test(test_wire_bytes_unchanged),
		cmocka_unit_test(test_wire_refuses_other_major),
		cmocka_unit_test(test_wire_refuses_unknown_status),
		cmocka_unit_test(test_wire_tolerates_unknown_field),
		cmocka_unit_test(test_wire_uneven_histogram_read_as_shorter),
		cmocka_unit_test(test_wire_samples_direct_equals_generic),
		cmocka_unit_test(test_wire_samples_other_shapes),
		cmocka_unit_test(test_wire_samples_encoder_equals_protobuf_c),
		cmocka_unit_test(test_wire_decode_budget_counts_typed_arrays),
		cmocka_unit_test(test_wire_rejects_garbage_and_oversize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
