// SPDX-License-Identifier: MIT
/* libFuzzer target: the wire decoder on arbitrary bytes, and the histogram blobs it carries. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hist.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rb_hist h;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Rb__Envelope *e = NULL;
	char err[256];

	if (rb_wire_unpack(data, size, &e, err, sizeof(err)) != 0)
		return 0;
	if (e->body_case == RB__ENVELOPE__BODY_SAMPLES) {
		for (size_t i = 0; i < e->samples->n_samples; i++) {
			const Rb__Sample *s = e->samples->samples[i];
			size_t n = s->n_hist_idx < s->n_hist_cnt ? s->n_hist_idx : s->n_hist_cnt;

			rb_hist_clear(&h);
			if (rb_hist_add_sparse(&h, s->hist_idx, s->hist_cnt, n) == 0)
				(void)rb_hist_percentile(&h, 99.0);
		}
	}
	/* re-encoding what was decoded must work */
	uint8_t *buf;
	size_t len;

	if (rb_wire_pack(e, &buf, &len) == 0)
		free(buf);
	rb_wire_free(e);
	return 0;
}
