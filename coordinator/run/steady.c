// SPDX-License-Identifier: MIT
#include "steady.h"

#include <math.h>
#include <string.h>

void rb_steady_window(const double *y, size_t n, struct rb_steady *out)
{
	double sum = 0, sxy2 = 0, suu, dn = (double)n;

	memset(out, 0, sizeof(*out));
	if (n < 2)
		return;
	out->min = out->max = y[0];
	for (size_t i = 0; i < n; i++) {
		sum += y[i];
		out->min = fmin(out->min, y[i]);
		out->max = fmax(out->max, y[i]);
		/* u = 2 x (i - mean(i)): an integer for every n */
		sxy2 += (2.0 * (double)i - (dn - 1)) * y[i];
	}
	suu = dn * (dn * dn - 1) / 3; /* sum of u^2 */
	out->avg = sum / dn;
	out->slope = 2 * sxy2 / suu;
	/* (max - min) <= 0.2 x sum / n */
	out->range_ok = 5 * dn * (out->max - out->min) <= sum;
	/* |slope| (n - 1) <= 0.1 x sum / n, slope = 2 sxy2 / suu */
	out->slope_ok = 20 * dn * (dn - 1) * fabs(sxy2) <= suu * sum;
	out->steady = out->range_ok && out->slope_ok && sum > 0;
}

long rb_steady_find(const double *y, size_t nrounds, size_t window, struct rb_steady *out)
{
	memset(out, 0, sizeof(*out));
	if (window < 2)
		window = 2;
	for (size_t end = window; end <= nrounds; end++) {
		rb_steady_window(y + end - window, window, out);
		if (out->steady)
			return (long)end - 1;
	}
	return -1;
}
