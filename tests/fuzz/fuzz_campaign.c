// SPDX-License-Identifier: MIT
/* libFuzzer target: the campaign loader on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "campaign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_campaign_load("fuzz.yaml", (const char *)data, size, &c, &d) == 0) {
		/* a loaded campaign is internally consistent */
		if (!c->npoints || !c->ndrives || !c->nagents)
			__builtin_trap();
		rb_campaign_free(c);
	} else if (!d.n) {
		/* every refusal says why */
		__builtin_trap();
	}
	rb_diags_release(&d);
	return 0;
}
