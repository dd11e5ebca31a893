// SPDX-License-Identifier: MIT
/* `keygen DIR [NAME]`: a CURVE key pair written, for either program. */
#include "cmd_keygen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exitcode.h"
#include "keys.h"
#include "log.h"

static const char *dir, *name;

static const struct rb_popt keygen_opts[] = {
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg keygen_args[] = {
	{ "DIR", &dir, 0 },
	{ "NAME", &name, RB_PARG_OPTIONAL },
	{ NULL, NULL, 0 },
};

void rb_keygen_spec(struct rb_popt_cmd *ret, const char *prog)
{
	static char names[2][64];
	char *n = names[strcmp(prog, "rackbench") != 0];

	snprintf(n, sizeof(names[0]), "%s keygen", prog);
	*ret = (struct rb_popt_cmd){
		.name = n,
		.summary = "a CURVE key pair: DIR/NAME.key and DIR/NAME.pub",
		.desc = "Writes a CURVE key pair: DIR/NAME.key (both keys, mode 0600) and\n"
			"DIR/NAME.pub (the public key, for the other side). NAME defaults to the\n"
			"program's side: coordinator or agent.",
		.opts = keygen_opts,
		.args = keygen_args,
	};
}

int rb_keygen_cmd(int argc, char **argv, const char *prog, const char *default_name)
{
	struct rb_popt_cmd spec;
	struct rb_keypair k;
	int r;

	dir = name = NULL;
	rb_keygen_spec(&spec, prog);
	r = rb_parseopt(&spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (!name)
		name = default_name;
	r = rb_keys_generate(&k);
	if (r) {
		rb_err("cannot make a key pair: %s",
		       r == -ENOTSUP ? "this libzmq has no CURVE" : strerror(-r));
		return RB_EXIT_FAILED;
	}
	r = rb_keys_write(dir, name, &k);
	if (r) {
		rb_err("cannot write %s/%s.key: %s", dir, name,
		       r == -EEXIST ? "it exists (not overwritten)" : strerror(-r));
		return RB_EXIT_FAILED;
	}
	printf("%s/%s.key (secret, 0600) and %s/%s.pub\npublic-key = %s\n", dir, name, dir, name,
	       k.pub);
	return RB_EXIT_OK;
}
