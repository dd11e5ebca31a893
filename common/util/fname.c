// SPDX-License-Identifier: MIT
#include "fname.h"

#include <string.h>

/* Bytes at s that spell a character to replace (0: keep the byte). */
static size_t unsafe_at(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f || *s == '/')
		return 1;
	/* C1 controls: U+0080..U+009F, UTF-8 C2 80..C2 9F */
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	/* U+202A..U+202E (embeddings, overrides), U+2066..U+2069 (isolates): E2 80 AA..AE,
	 * E2 81 A6..A9 -- a name that reorders what a terminal shows after it */
	if (s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae)
		return 3;
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)
		return 3;
	return 0;
}

/* Length of the UTF-8 sequence a lead byte starts (1 for ASCII and stray bytes). */
static size_t seq_len(unsigned char c)
{
	if (c >= 0xf0 && c < 0xf8)
		return 4;
	if (c >= 0xe0)
		return c < 0xf0 ? 3 : 1;
	if (c >= 0xc0)
		return 2;
	return 1;
}

char *rb_fname_sanitize(const char *name, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)(name ? name : "");
	size_t n = 0, max = len - 1 < RB_FNAME_MAX ? len - 1 : RB_FNAME_MAX;

	while (*s && n < max) {
		size_t u = unsafe_at(s), k;

		if (u || ((*s == '.' || *s == '-') && n == 0) ||
		    (*s == '.' && n > 0 && buf[n - 1] == '.')) {
			buf[n++] = '_';
			s += u ? u : 1;
			continue;
		}
		k = seq_len(*s);
		for (size_t i = 1; i < k; i++)
			if ((s[i] & 0xc0) != 0x80)
				k = 1; /* not a whole sequence: the byte alone */
		if (n + k > max)
			break;
		memcpy(buf + n, s, k);
		n += k;
		s += k;
	}
	if (!n)
		buf[n++] = '_';
	buf[n] = '\0';
	return buf;
}

bool rb_fname_is_safe(const char *name)
{
	char buf[RB_FNAME_MAX + 1];

	return name && !strcmp(rb_fname_sanitize(name, buf, sizeof(buf)), name);
}

bool rb_plain_word(const char *s, const char *extra)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

bool rb_plain_value(const char *s)
{
	return rb_plain_word(s, RB_WORD_VALUE) && *s != '-' && *s != '.';
}
