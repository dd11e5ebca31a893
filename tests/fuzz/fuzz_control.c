// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the control socket's text (`rackbench serve` requests, and the
 * replies its clients read): every field looked up as the service and clients do, into
 * buffers large and small; the service's check that every field fits (a field it passes
 * fits the buffer the service reads it into).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "id",	"file", "path",	   "results", "events",
					    "state",	"log",	"exit",	   "point",   "points",
					    "campaign", "",	"results=" };
	char *msg = malloc(size + 1);
	char small[8], big[4096], why[256], id[RB_RUN_ID_MAX];

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	msg[size] = '\0';
	/* what the service lets through, it reads whole: no id cut to "no id" */
	if (!rb_control_fields_fit(msg, why, sizeof(why)) && strstr(msg, "\nid=") &&
	    !rb_control_field(msg, "id", id, sizeof(id)) &&
	    rb_control_field(msg, "id", big, sizeof(big)))
		abort();
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
