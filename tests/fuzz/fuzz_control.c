// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the control socket's text (`rackbench serve` requests, and the
 * replies its clients read): every field looked up as the service and clients do, into
 * buffers large and small.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "id",	"file", "path",	  "results", "events",
					    "state",	"log",	"exit",	  "point",   "points",
					    "campaign", "",	"results=" };
	char *msg = malloc(size + 1);
	char small[8], big[4096];

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	msg[size] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = rb_control_field(msg, keys[i], big, sizeof(big));

		if (v && strlen(v) >= sizeof(big))
			abort();
		v = rb_control_field(msg, keys[i], small, sizeof(small));
		if (v && strlen(v) >= sizeof(small))
			abort();
	}
	free(msg);
	return 0;
}
