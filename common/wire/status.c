/* SPDX-License-Identifier: MIT */
/* How a drive's point ended: the enum's string table (status.h). */
#include "status.h"

#include <errno.h>
#include <string.h>

static const char *const names[RB_NSTATUS] = {
	[RB_STATUS_OK] = "ok",		 [RB_STATUS_ERROR] = "error",
	[RB_STATUS_REFUSED] = "refused", [RB_STATUS_STOPPED] = "stopped",
	[RB_STATUS_LOST] = "lost",
};

const char *rb_status_name(enum rb_status s)
{
	return (unsigned)s < RB_NSTATUS ? names[s] : "?";
}

int rb_status_parse(const char *s, enum rb_status *ret)
{
	for (unsigned i = 0; s && i < RB_NSTATUS; i++)
		if (!strcmp(s, names[i])) {
			if (ret)
				*ret = (enum rb_status)i;
			return 0;
		}
	return -EINVAL;
}

enum rb_status rb_status_of(const char *s)
{
	enum rb_status st = RB_STATUS_ERROR;

	rb_status_parse(s, &st);
	return st;
}
