// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the wire decoder on arbitrary bytes into the typed messages, the
 * histogram lists they carry, and a message decoded, packed again and decoded again
 * says the same (the codec loses nothing it accepted). Samples decoded directly (not
 * by protobuf-c) must get protobuf-c's answer: the same code, the same message; and
 * encoded directly, protobuf-c's bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rb_hist h;

static void hist(const struct rb_sparse *x)
{
	rb_hist_clear(&h);
	if (rb_hist_add_sparse(&h, x->idx, x->cnt, x->n) == 0)
		(void)rb_hist_percentile(&h, 99.0);
}

/* Two decoded messages are one: packed again, the same bytes. */
static void same(const struct rb_msg *a, const struct rb_msg *b)
{
	uint8_t *pa = NULL, *pb = NULL;
	size_t la = 0, lb = 0;
	int ra = rb_msg_pack(a, &pa, &la), rb = rb_msg_pack(b, &pb, &lb);

	if (ra != rb || a->kind != b->kind || a->major != b->major || a->minor != b->minor ||
	    (!ra && (la != lb || memcmp(pa, pb, la))))
		abort();
	free(pa);
	free(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_msg *m = NULL, *again = NULL;
	uint8_t *buf;
	size_t len;
	char err[256];

	int r = rb_msg_unpack(data, size, &m, err, sizeof(err));

	rb_wire_generic_only(true);
	if (rb_msg_unpack(data, size, &again, err, sizeof(err)) != r)
		abort();
	rb_wire_generic_only(false);
	if (r != 0)
		return 0;
	same(m, again);
	/* packed directly and by protobuf-c: the same answer and bytes */
	if (rb_wire_same_encode(m, NULL))
		abort();
	rb_msg_free(again);
	again = NULL;
	if (m->kind == RB_MSG_SAMPLES)
		for (size_t i = 0; i < m->samples.n; i++)
			hist(&m->samples.v[i].hist);
	if (m->kind == RB_MSG_RESULT)
		for (size_t i = 0; i < m->result.ndirs; i++)
			hist(&m->result.dirs[i].hist);
	/* re-encoding what was decoded must work, and decode to the same message */
	if (rb_msg_pack(m, &buf, &len) == 0) {
		if (rb_msg_unpack(buf, len, &again, err, sizeof(err)) != 0)
			abort();
		if (again->kind != m->kind || again->seq != m->seq || again->epoch != m->epoch)
			abort();
		if (m->kind == RB_MSG_SAMPLES &&
		    (again->samples.n != m->samples.n ||
		     (m->samples.n && strcmp(again->samples.v[0].drive, m->samples.v[0].drive))))
			abort();
		rb_msg_free(again);
		free(buf);
	}
	rb_msg_free(m);
	return 0;
}
