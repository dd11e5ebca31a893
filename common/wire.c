// SPDX-License-Identifier: MIT
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <inttypes.h>

#include "jsonout.h"

static __thread size_t decode_left;

static void *bounded_alloc(void *data, size_t size)
{
	(void)data;
	if (size > decode_left)
		return NULL;
	decode_left -= size;
	return malloc(size);
}

static void plain_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static ProtobufCAllocator bounded = { bounded_alloc, plain_free, NULL };

/* test hooks: speak as another version, or add a field this version does not know */
static uint32_t major_ = RB_PROTO_MAJOR, minor_ = RB_PROTO_MINOR;
static bool extra_field;

__attribute__((constructor)) static void wire_test_hooks(void)
{
	const char *ma = getenv("RB_TEST_PROTO_MAJOR"), *mi = getenv("RB_TEST_PROTO_MINOR");

	if (ma)
		major_ = (uint32_t)strtoul(ma, NULL, 10);
	if (mi)
		minor_ = (uint32_t)strtoul(mi, NULL, 10);
	extra_field = getenv("RB_TEST_WIRE_EXTRA_FIELD") != NULL;
}

void rb_wire_init(Rb__Envelope *e)
{
	rb__envelope__init(e);
	e->version_major = major_;
	e->version_minor = minor_;
}

int rb_wire_pack(const Rb__Envelope *e, uint8_t **ret_buf, size_t *ret_len)
{
	size_t n = rb__envelope__get_packed_size(e);
	uint8_t *buf;

	if (n > RB_WIRE_MAX_BYTES)
		return -EMSGSIZE;
	buf = malloc(n + 3);
	if (!buf)
		return -ENOMEM;
	rb__envelope__pack(e, buf);
	if (extra_field) {
		/* field 99, varint 5: what a newer minor version might add */
		buf[n++] = 0x98;
		buf[n++] = 0x06;
		buf[n++] = 0x05;
	}
	*ret_buf = buf;
	*ret_len = n;
	return 0;
}

int rb_wire_unpack(const uint8_t *buf, size_t len, Rb__Envelope **ret, char *err, size_t errlen)
{
	Rb__Envelope *e;

	if (len > RB_WIRE_MAX_BYTES) {
		snprintf(err, errlen, "message of %zu bytes exceeds the %u byte limit", len,
			 RB_WIRE_MAX_BYTES);
		return -EMSGSIZE;
	}
	decode_left = RB_WIRE_DECODE_BUDGET;
	e = rb__envelope__unpack(&bounded, len, buf);
	if (!e) {
		snprintf(err, errlen, "malformed message (%zu bytes) is not a rackbench envelope",
			 len);
		return -EBADMSG;
	}
	if (e->version_major != RB_PROTO_MAJOR) {
		snprintf(err, errlen,
			 "protocol version %u.%u is not compatible with this side's %u.%u",
			 e->version_major, e->version_minor, RB_PROTO_MAJOR, RB_PROTO_MINOR);
		rb_wire_free(e);
		return -EPROTONOSUPPORT;
	}
	if (e->body_case == RB__ENVELOPE__BODY__NOT_SET) {
		snprintf(err, errlen, "message has no body this version understands");
		rb_wire_free(e);
		return -EBADMSG;
	}
	*ret = e;
	return 0;
}

void rb_wire_free(Rb__Envelope *e)
{
	if (e)
		rb__envelope__free_unpacked(e, &bounded);
}

const char *rb_wire_body_name(const Rb__Envelope *e)
{
	switch (e->body_case) {
	case RB__ENVELOPE__BODY_HELLO:
		return "hello";
	case RB__ENVELOPE__BODY_WELCOME:
		return "welcome";
	case RB__ENVELOPE__BODY_PREFLIGHT:
		return "preflight";
	case RB__ENVELOPE__BODY_PREFLIGHT_REPLY:
		return "preflight-reply";
	case RB__ENVELOPE__BODY_ASSIGN:
		return "assign";
	case RB__ENVELOPE__BODY_SAMPLES:
		return "samples";
	case RB__ENVELOPE__BODY_RESULT:
		return "result";
	case RB__ENVELOPE__BODY_POINT_DONE:
		return "point-done";
	case RB__ENVELOPE__BODY_STOP:
		return "stop";
	case RB__ENVELOPE__BODY_ERROR:
		return "error";
	case RB__ENVELOPE__BODY_HEALTH:
		return "health";
	case RB__ENVELOPE__BODY_HEARTBEAT:
		return "heartbeat";
	default:
		return "unknown";
	}
}

void rb_wire_json_fields(FILE *out, const Rb__Envelope *e)
{
	fprintf(out, "\"epoch\": %" PRIu64 ", \"seq\": %" PRIu64 ", \"body\": \"%s\"", e->epoch,
		e->seq, rb_wire_body_name(e));
	switch (e->body_case) {
	case RB__ENVELOPE__BODY_SAMPLES:
		fprintf(out, ", \"samples\": [");
		for (size_t i = 0; i < e->samples->n_samples; i++) {
			const Rb__Sample *x = e->samples->samples[i];

			fprintf(out, "%s{\"drive\": ", i ? ", " : "");
			rb_json_str(out, x->drive);
			fprintf(out, ", \"point\": %u, \"attempt\": %u, \"interval\": %u, "
				     "\"direction\": %u, \"ios\": %" PRIu64 "}",
				x->point, x->attempt, x->interval, x->direction, x->ios);
		}
		fprintf(out, "]");
		break;
	case RB__ENVELOPE__BODY_RESULT:
		fprintf(out, ", \"drive\": ");
		rb_json_str(out, e->result->drive);
		fprintf(out, ", \"point\": %u, \"attempt\": %u, \"status\": ", e->result->point,
			e->result->attempt);
		rb_json_str(out, e->result->status);
		break;
	case RB__ENVELOPE__BODY_POINT_DONE:
		fprintf(out, ", \"point\": %u, \"attempt\": %u", e->point_done->point,
			e->point_done->attempt);
		break;
	default:
		break;
	}
}
