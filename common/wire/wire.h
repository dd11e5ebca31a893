/* SPDX-License-Identifier: MIT */
/*
 * The wire codec: the messages between coordinator and agents as plain C structs, and
 * their encoding as rb.Envelope (proto/rackbench.proto). This is the one module that
 * knows protobuf-c; nothing else sees a generated type.
 *
 * A message to send is a struct rb_msg filled on the stack: strings and arrays are
 * borrowed for the call (a NULL string is sent as ""). A message received comes from
 * rb_msg_unpack() and is released with rb_msg_free(): its strings and arrays live as
 * long as it does. Unpacking enforces a maximum size before decoding, decodes with a
 * size-bounded allocator, and checks the protocol version (a different major is
 * refused with both versions named).
 */
#ifndef RB_WIRE_H
#define RB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "healthsnap.h"
#include "resultcore.h"
#include "status.h"

#define RB_PROTO_MAJOR 1
#define RB_PROTO_MINOR 10
#define RB_WIRE_MAX_BYTES (16u << 20)
/* memory the decoder may use for one message */
#define RB_WIRE_DECODE_BUDGET (64u << 20)
_Static_assert(RB_WIRE_MAX_BYTES <= RB_WIRE_DECODE_BUDGET,
	       "a message the wire takes must fit what its decoding may use");

/*
 * A drive as someone saw it: the agent's offer (Hello), the drive as opened for a point
 * (DriveResult), the coordinator's record of an agent's targets, the results file's
 * `drives` and `members` rows. Text is cut to these sizes on receipt.
 */
struct rb_identity {
	char path[256];
	char kind[16]; /* "block", "file", "volume", "missing" */
	char model[64];
	char serial[64];
	char firmware[32];
	uint64_t size_bytes;
	uint32_t logical_block_size;
	bool writable; /* the agent's key: on its --allow list */
};

/* A key and its value: a label, or one workload setting in its text form ("bs" = "4k"). */
struct rb_kv {
	const char *key;
	const char *value;
};

struct rb_msg_hello {
	const char *name, *hostname, *kernel, *rb_version;
	const struct rb_kv *labels;
	size_t nlabels;
	const struct rb_identity *targets;
	size_t ntargets;
	uint64_t epoch;	  /* random per agent process start */
	const char *run;  /* the run its spool belongs to ("" none) */
	uint64_t spooled; /* the number of the last message in that spool */
};

struct rb_msg_welcome {
	const char *campaign;
	const char *run; /* this run's identity: names the agents' spool files */
};

/* The journal holds every data message of (epoch) up to seq. */
struct rb_msg_ack {
	uint64_t epoch, seq;
};

/* Several drives of an agent measured as one striped volume. */
struct rb_msg_volume {
	const char *name;
	uint64_t stripe;	    /* bytes: unit c is unit c / n of member c % n */
	const char *const *members; /* in stripe order */
	size_t nmembers;
	const char *const *serials; /* identity pins, parallel to members ("" none) */
	size_t nserials;
};

/* A filesystem the agent makes on a drive (fsspec.h); type "" none. */
struct rb_msg_fs {
	const char *type, *mkfs_options, *mount_options;
};

/* 1.6: a command of the agent's allow-list and the values of its declared parameters. */
struct rb_msg_exec {
	const char *command;
	const struct rb_kv *params;
	size_t nparams;
};

/* 1.6: how an exec point's command ended on a drive, what its parser read. */
struct rb_msg_exec_result {
	const char *command;
	int32_t exit_code; /* -N: killed by signal N */
	bool timed_out;
	uint64_t duration_ns;
	const char *stdout_tail, *stderr_tail, *parser;
	const struct rb_kv *metrics;
	size_t nmetrics;
};

struct rb_msg_preflight {
	const char *const *drives;
	size_t ndrives;
	const char *const *serials; /* identity pins, parallel to drives ("" none) */
	size_t nserials;
	const struct rb_msg_volume *volumes; /* the drives above that are volumes */
	size_t nvolumes;
	bool writes;	  /* some point of the campaign writes */
	bool destructive; /* the campaign's key */
	bool wipe_signatures;
	const struct rb_msg_fs *filesystems; /* 1.6: parallel to drives, or none */
	size_t nfilesystems;
	const char *const *commands; /* 1.6: the exec phases' commands */
	size_t ncommands;
};

/* A refusal: the drive (subject) and why. */
struct rb_refusal {
	const char *subject;
	const char *message;
};

struct rb_msg_preflight_reply {
	const char *const *drives;
	size_t ndrives;
	const struct rb_refusal *refusals;
	size_t nrefusals;
};

struct rb_msg_assign {
	uint32_t point, attempt;
	const char *const *drives;
	size_t ndrives;
	const struct rb_kv *settings;
	size_t nsettings;
	bool destructive, wipe_signatures;
	const char *const *serials; /* identity pins, parallel to drives ("" none) */
	size_t nserials;
	/* per-drive IOPS limits, parallel to drives, over the settings' rate_iops */
	const uint64_t *drive_rate_iops;
	size_t nrates;
	const char *purge;   /* a purge point's method instead of IO; "" none */
	uint32_t purge_ses;  /* format: 1 user data erase, 2 crypto erase */
	int64_t start_at_ns; /* the agent's CLOCK_MONOTONIC instant to start; 0 at once */
	const struct rb_msg_volume *volumes;
	size_t nvolumes;
	const struct rb_msg_fs *filesystems; /* 1.6: parallel to drives, or none */
	size_t nfilesystems;
	const struct rb_msg_exec *exec; /* 1.6: an exec point's command; NULL none */
};

/* A latency histogram as a sparse delta: bucket indexes and their counts. */
struct rb_sparse {
	const uint32_t *idx;
	const uint64_t *cnt;
	size_t n;
};

/* One drive, one direction, one interval. */
struct rb_msg_sample {
	uint32_t point, attempt;
	const char *drive;
	uint32_t interval;
	uint32_t direction; /* 0 read, 1 write, 2 trim */
	int64_t t_ns;	    /* end of interval, agent wall clock */
	uint64_t ios, bytes, errors, lat_sum_ns;
	struct rb_sparse hist;
	bool last; /* the drive's last interval of the point: its measurement ended (1.7) */
};

struct rb_msg_samples {
	const struct rb_msg_sample *v;
	size_t n;
};

struct rb_msg_io_error {
	uint64_t offset;
	uint32_t length, direction;
	int32_t err;	/* positive errno */
	uint64_t count; /* times this same failure happened */
};

/* A file of a drive's evidence on the agent's host (1.7). */
struct rb_msg_evidence {
	const char *kind, *path, *sha256;
	uint64_t bytes;
};

/* 1.9: a piece of a file of a drive's evidence, sent before its result (data). */
struct rb_msg_evidence_data {
	uint32_t point, attempt;
	const char *drive, *path, *sha256; /* path as rb_msg_evidence's; the whole file's digest */
	uint64_t offset, bytes;		   /* of data in the file; the whole file's size */
	const uint8_t *data;
	size_t len; /* RB_EVIDENCE_CHUNK at most */
};
/* 1.9: the coordinator's order to capture a drive's evidence after the verdicts, and the
 * agent's answer (data, after the files' EvidenceData). */
struct rb_msg_capture {
	uint32_t point, attempt;
	const char *drive, *reason;
};
struct rb_msg_captured {
	uint32_t point, attempt;
	const char *drive, *error; /* error: why nothing was kept; "" when some was */
	const struct rb_msg_evidence *evidence;
	size_t nevidence;
};
/* The most of a file one EvidenceData carries, and the largest file of evidence. */
#define RB_EVIDENCE_CHUNK (1u << 20)
#define RB_EVIDENCE_FILE_MAX (64u << 20)

/* 1.8: one zone of a zoned namespace, the kernel's report in bytes (BLK_ZONE_COND_*,
 * BLK_ZONE_TYPE_* numbers). */
struct rb_msg_zone {
	uint64_t start_bytes, len_bytes, capacity_bytes, wp_bytes;
	uint32_t cond, type;
};

struct rb_bs_count {
	uint32_t direction;
	uint64_t bs, ios;
};

struct rb_dir_result {
	uint32_t direction;
	uint64_t ios, bytes, errors;
	uint64_t lat_sum_ns, lat_min_ns, lat_max_ns;
	struct rb_sparse hist;
};

/* 1.6, rw checkpoint: one checkpoint (direction 1) or its restore (0) on a drive. */
struct rb_msg_checkpoint {
	uint32_t index, direction;
	uint64_t bytes;
	int64_t start_ns;     /* the writers' common start, ns since the UTC epoch */
	uint64_t duration_ns; /* its slowest writer's */
	uint32_t slowest_writer, errors;
	uint64_t fs_bytes;			  /* the kept checkpoints' blocks, after */
	const uint64_t *writer_ns, *writer_bytes; /* each writer's */
	size_t nwriters;
};

/* 1.9: an OCP drive's own latency buckets over a point (Latency Monitor, C3h): bucket b
 * from threshold_ms[b] to threshold_ms[b + 1], the last without an end. */
struct rb_dev_latency {
	bool valid; /* read before and after the point, its counters not restarted */
	uint32_t threshold_ms[4];
	uint64_t cmds[3][4]; /* [read, write, trim][bucket] */
};

/* 1.10: an OCP drive's C0h counters over a point: each a rise, NaN when it fell (reset
 * or wrapped); throttle_status the drive's at the point's end (0 none, 1-3 a level). */
struct rb_ocp_counters {
	bool valid; /* read before and after the point */
	double throttle_events, pcie_correctable, link_retrains, power_state_changes;
	uint8_t throttle_status;
};

/* 1.10: an FDP event the drive logged during a point (its log's fields, agent/drive's
 * rb_fdp_event). */
struct rb_msg_fdp_event {
	uint8_t type, flags, ruhid;
	uint16_t pid, rgid, nlbam;
	uint32_t nsid;
	uint64_t timestamp_ms;
	bool lba_valid;
	uint64_t lba;
};

struct rb_msg_result {
	uint32_t point, attempt;
	const char *drive;
	struct rb_result_core core; /* the numbers the agent measured (resultcore.h) */
	const struct rb_dir_result *dirs;
	size_t ndirs;
	const struct rb_bs_count *bs_counts;
	size_t nbs_counts;
	const struct rb_msg_io_error *io_errors;
	size_t nio_errors;
	enum rb_status status; /* the wire keeps its string (status.h) */
	const char *message;
	const char *uring_features;
	const char *trim_method; /* 1.7: how its trims went ("" none) */
	/* 1.7: FDP statistics over the point (fdp: read): bytes the host wrote and the
	 * media wrote, the drive's endurance groups' */
	bool fdp;
	double fdp_host_bytes, fdp_media_bytes;
	const struct rb_msg_evidence *evidence; /* 1.7: kept for the vendor on IO errors */
	size_t nevidence;
	const struct rb_msg_zone *zones; /* 1.8: a zns point's zone report after it */
	size_t nzones;
	const struct rb_identity *target;  /* identity as opened for this point; NULL none */
	const char *purge_method;	   /* the drive's last purge (agent/drive/history.h) */
	int64_t start_mono_ns;		   /* when its jobs started, the agent's CLOCK_MONOTONIC */
	const struct rb_identity *members; /* a volume's members as opened */
	size_t nmembers;
	const struct rb_msg_checkpoint *checkpoints; /* 1.6, rw checkpoint */
	size_t ncheckpoints;
	const struct rb_msg_exec_result *exec; /* 1.6, an exec point's; NULL none */
	struct rb_dev_latency dev_lat;	       /* 1.9 */
	/* 1.9: OCP C0h over the point (ocp_smart: read): the bytes the media wrote */
	bool ocp_smart;
	double ocp_media_bytes;
	struct rb_ocp_counters ocp;		   /* 1.10 */
	const struct rb_msg_fdp_event *fdp_events; /* 1.10 */
	size_t nfdp_events;
};

/* A drive's health: before (0), during (1), after (2) a point. */
struct rb_msg_health {
	uint32_t point, attempt;
	const char *drive;
	const char *member; /* a volume's member this is of; "": the drive itself */
	int64_t t_ns;
	uint32_t when;
	struct rb_health_snap h; /* common/wire/healthsnap.h */
};

struct rb_msg_heartbeat {
	uint64_t epoch;
	uint32_t point;
};

/* Clock offset (common/wire/clocksync.h): t0 the coordinator's, t1 and t2 the agent's. */
struct rb_msg_time {
	int64_t t0, t1, t2;
};

struct rb_msg_point_done {
	uint32_t point, attempt;
};

struct rb_msg_stop {
	const char *reason;
};

struct rb_msg_error {
	int32_t code;
	const char *message;
};

enum rb_msg_kind {
	RB_MSG_NONE,
	RB_MSG_HELLO,
	RB_MSG_WELCOME,
	RB_MSG_PREFLIGHT,
	RB_MSG_PREFLIGHT_REPLY,
	RB_MSG_ASSIGN,
	RB_MSG_SAMPLES,
	RB_MSG_RESULT,
	RB_MSG_POINT_DONE,
	RB_MSG_STOP,
	RB_MSG_ERROR,
	RB_MSG_HEALTH,
	RB_MSG_HEARTBEAT,
	RB_MSG_TIME_PROBE,
	RB_MSG_TIME_REPLY,
	RB_MSG_ACK,
	RB_MSG_EVIDENCE_DATA,
	RB_MSG_CAPTURE,
	RB_MSG_CAPTURED,
};

struct rb_wire_priv;

struct rb_msg {
	uint32_t major, minor; /* received: the sender's version; sent: rb_msg_init's (ours) */
	/* data messages of an agent (samples, health, results, point done) are numbered per
	 * agent process (epoch) from 1 and spooled until acknowledged (agent/session/spool.h) */
	uint64_t epoch, seq;
	enum rb_msg_kind kind;
	union {
		struct rb_msg_hello hello;
		struct rb_msg_welcome welcome;
		struct rb_msg_preflight preflight;
		struct rb_msg_preflight_reply preflight_reply;
		struct rb_msg_assign assign;
		struct rb_msg_samples samples;
		struct rb_msg_result result;
		struct rb_msg_point_done point_done;
		struct rb_msg_stop stop;
		struct rb_msg_error error;
		struct rb_msg_health health;
		struct rb_msg_heartbeat heartbeat;
		struct rb_msg_time time; /* TIME_PROBE (t0) and TIME_REPLY */
		struct rb_msg_ack ack;
		struct rb_msg_evidence_data evidence_data;
		struct rb_msg_capture capture;
		struct rb_msg_captured captured;
	};
	struct rb_wire_priv *priv; /* received: what its strings and arrays live in */
};

/* An empty message of kind with this side's protocol version. */
void rb_msg_init(struct rb_msg *m, enum rb_msg_kind kind);
/* Packs m into a new buffer the caller frees. Returns 0 or -ENOMEM / -EMSGSIZE. */
int rb_msg_pack(const struct rb_msg *m, uint8_t **ret_buf, size_t *ret_len);
/*
 * Decodes buf. Returns 0 and a message to release with rb_msg_free(), or -EMSGSIZE
 * (too large, or needing more than RB_WIRE_DECODE_BUDGET in all: protobuf-c's structs and
 * the typed arrays made from them), -EBADMSG (not a valid envelope, or no body), -EPROTONOSUPPORT (another
 * major version), -ENOMEM; err says which. A histogram whose two lists differ in length
 * is read as long as the shorter.
 */
int rb_msg_unpack(const uint8_t *buf, size_t len, struct rb_msg **ret, char *err, size_t errlen);
/*
 * Tests: this thread's rb_msg_unpack() and rb_msg_pack() take every message through
 * protobuf-c, also the samples they otherwise decode and encode directly (the reference
 * the direct codec must equal).
 */
void rb_wire_generic_only(bool on);
/* Tests: how many messages this thread's rb_msg_unpack() decoded directly ... */
unsigned long rb_wire_direct_decodes(void);
/* ... and rb_msg_pack() encoded directly. */
unsigned long rb_wire_direct_encodes(void);
/*
 * Tests and the fuzzer: m packed as the programs pack it and again through protobuf-c
 * only. 0: the same answer, when packed the same bytes, and the second did not take the
 * direct encoder; -1 otherwise. *ret_direct (may be NULL): whether the direct encoder
 * packed it the first time.
 */
int rb_wire_same_encode(const struct rb_msg *m, bool *ret_direct);
void rb_msg_free(struct rb_msg *m);
/* A copy that lives on its own (pack and unpack), of the same version; NULL: no memory. */
struct rb_msg *rb_msg_dup(const struct rb_msg *m);
/* Name of the kind, for messages ("hello", "samples", ...). */
const char *rb_msg_name(const struct rb_msg *m);
/* The point and attempt a data message is of (samples: its first sample's); false: none. */
bool rb_msg_point(const struct rb_msg *m, uint32_t *ret_point, uint32_t *ret_attempt);
/* The message as JSON object members (epoch, seq, body, and for samples each sample's
 * key; for results and PointDone the point): `rackbench-agent spool`, `rackbench journal`. */
void rb_msg_json_fields(FILE *out, const struct rb_msg *m);
/* Copies s into dst (size n), cut to fit; NULL as "". */
void rb_wire_strcpy(char *dst, size_t n, const char *s);

#endif
