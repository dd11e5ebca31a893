/* SPDX-License-Identifier: MIT */
/* Arrays that grow by doubling (grow.h). */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int rb_grow(void *pv, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap;
	void *v;

	if (need <= c)
		return 0;
	if (!c)
		c = first ? first : 1;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&v, pv, sizeof(v));
	v = realloc(v, c * size);
	if (!v)
		return -ENOMEM;
	memcpy(pv, &v, sizeof(v));
	*cap = c;
	return 0;
}
