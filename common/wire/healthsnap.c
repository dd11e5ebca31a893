/* SPDX-License-Identifier: MIT */
/* A drive's health snapshot: what both programs say of it alike (healthsnap.h). */
#include "healthsnap.h"

#include <stdio.h>

bool rb_link_short(double speed, double max_speed, double width, double max_width, char *why,
		   size_t len)
{
	bool slow = speed > 0 && max_speed > 0 && speed + 1e-9 < max_speed;
	bool narrow = width > 0 && max_width > 0 && width < max_width;

	if (why && len)
		why[0] = '\0';
	if (why && slow && narrow)
		snprintf(why, len, "x%.0f of x%.0f at %g GT/s of %g GT/s", width, max_width, speed,
			 max_speed);
	else if (why && slow)
		snprintf(why, len, "%g GT/s of %g GT/s", speed, max_speed);
	else if (why && narrow)
		snprintf(why, len, "x%.0f of x%.0f", width, max_width);
	return slow || narrow;
}
