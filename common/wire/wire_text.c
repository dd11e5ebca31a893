// SPDX-License-Identifier: MIT
/*
 * The messages in words (wire.h): their names, the point a data message is of, and the
 * JSON the dump commands print (`rackbench-agent spool`, `rackbench journal`), and a
 * message's copy. No generated type is needed here: this reads the typed messages only.
 */
#include "wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonout.h"

const char *rb_msg_name(const struct rb_msg *m)
{
	static const char *const names[] = {
		[RB_MSG_NONE] = "unknown",
		[RB_MSG_HELLO] = "hello",
		[RB_MSG_WELCOME] = "welcome",
		[RB_MSG_PREFLIGHT] = "preflight",
		[RB_MSG_PREFLIGHT_REPLY] = "preflight-reply",
		[RB_MSG_ASSIGN] = "assign",
		[RB_MSG_SAMPLES] = "samples",
		[RB_MSG_RESULT] = "result",
		[RB_MSG_POINT_DONE] = "point-done",
		[RB_MSG_STOP] = "stop",
		[RB_MSG_ERROR] = "error",
		[RB_MSG_HEALTH] = "health",
		[RB_MSG_HEARTBEAT] = "heartbeat",
		[RB_MSG_TIME_PROBE] = "time-probe",
		[RB_MSG_TIME_REPLY] = "time-reply",
		[RB_MSG_ACK] = "ack",
		[RB_MSG_EVIDENCE_DATA] = "evidence-data",
		[RB_MSG_CAPTURE] = "capture",
		[RB_MSG_CAPTURED] = "captured",
	};

	return (unsigned)m->kind < sizeof(names) / sizeof(names[0]) ? names[m->kind] : "unknown";
}

bool rb_msg_point(const struct rb_msg *m, uint32_t *ret_point, uint32_t *ret_attempt)
{
	switch (m->kind) {
	case RB_MSG_SAMPLES:
		if (!m->samples.n)
			return false;
		*ret_point = m->samples.v[0].point;
		*ret_attempt = m->samples.v[0].attempt;
		return true;
	case RB_MSG_HEALTH:
		*ret_point = m->health.point;
		*ret_attempt = m->health.attempt;
		return true;
	case RB_MSG_RESULT:
		*ret_point = m->result.point;
		*ret_attempt = m->result.attempt;
		return true;
	case RB_MSG_POINT_DONE:
		*ret_point = m->point_done.point;
		*ret_attempt = m->point_done.attempt;
		return true;
	case RB_MSG_EVIDENCE_DATA:
		*ret_point = m->evidence_data.point;
		*ret_attempt = m->evidence_data.attempt;
		return true;
	case RB_MSG_CAPTURED:
		*ret_point = m->captured.point;
		*ret_attempt = m->captured.attempt;
		return true;
	default:
		return false;
	}
}

void rb_msg_json_fields(FILE *out, const struct rb_msg *m)
{
	fprintf(out, "\"epoch\": %" PRIu64 ", \"seq\": %" PRIu64 ", \"body\": \"%s\"", m->epoch,
		m->seq, rb_msg_name(m));
	switch (m->kind) {
	case RB_MSG_SAMPLES:
		fprintf(out, ", \"samples\": [");
		for (size_t i = 0; i < m->samples.n; i++) {
			const struct rb_msg_sample *x = &m->samples.v[i];

			fprintf(out, "%s{\"drive\": ", i ? ", " : "");
			rb_json_str(out, x->drive);
			fprintf(out,
				", \"point\": %u, \"attempt\": %u, \"interval\": %u, "
				"\"direction\": %u, \"ios\": %" PRIu64 "}",
				x->point, x->attempt, x->interval, x->direction, x->ios);
		}
		fprintf(out, "]");
		break;
	case RB_MSG_RESULT:
		fprintf(out, ", \"drive\": ");
		rb_json_str(out, m->result.drive);
		fprintf(out, ", \"point\": %u, \"attempt\": %u, \"status\": ", m->result.point,
			m->result.attempt);
		rb_json_str(out, rb_status_name(m->result.status));
		break;
	case RB_MSG_POINT_DONE:
		fprintf(out, ", \"point\": %u, \"attempt\": %u", m->point_done.point,
			m->point_done.attempt);
		break;
	case RB_MSG_EVIDENCE_DATA:
		fprintf(out, ", \"drive\": ");
		rb_json_str(out, m->evidence_data.drive);
		fprintf(out, ", \"point\": %u, \"attempt\": %u, \"path\": ", m->evidence_data.point,
			m->evidence_data.attempt);
		rb_json_str(out, m->evidence_data.path);
		fprintf(out, ", \"offset\": %" PRIu64 ", \"length\": %zu", m->evidence_data.offset,
			m->evidence_data.len);
		break;
	case RB_MSG_CAPTURED:
		fprintf(out, ", \"drive\": ");
		rb_json_str(out, m->captured.drive);
		fprintf(out, ", \"point\": %u, \"attempt\": %u, \"files\": %zu", m->captured.point,
			m->captured.attempt, m->captured.nevidence);
		break;
	default:
		break;
	}
}

/* A copy by the wire: packed and unpacked, so it owns every string it holds. */
struct rb_msg *rb_msg_dup(const struct rb_msg *m)
{
	struct rb_msg *c = NULL;
	uint8_t *buf;
	size_t len;
	char err[128];

	if (rb_msg_pack(m, &buf, &len))
		return NULL;
	if (rb_msg_unpack(buf, len, &c, err, sizeof(err)))
		c = NULL;
	free(buf);
	return c;
}
