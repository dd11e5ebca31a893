// SPDX-License-Identifier: MIT
/* libFuzzer target: FLEET.yaml's decoder (`rackbench fleet --fleet`) on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_fleet *f = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_fleet_load("fuzz.yaml", (const char *)data, size, &f, &d) == 0) {
		/* a loaded fleet has racks, each named, reachable somewhere, with a key */
		if (!f->nracks)
			__builtin_trap();
		for (size_t i = 0; i < f->nracks; i++)
			if (!f->racks[i].name || !f->racks[i].endpoint ||
			    strlen(f->racks[i].pub) != 40)
				__builtin_trap();
		rb_fleet_free(f);
	} else if (!d.n) {
		/* every refusal says why */
		__builtin_trap();
	}
	rb_diags_release(&d);
	return 0;
}
