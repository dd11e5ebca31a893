// SPDX-License-Identifier: MIT
/*
 * A coordinator build whose campaign key table has one row more (RB_CKEY_TEST_ROW:
 * "test_folder", stored in the results folder) and nothing else changed, for
 * tests/integration/test_campaign_key_row.py:
 *
 *	campaign_key_row options --json    the tables, as `rackbench options --json`
 *	campaign_key_row load FILE         loads FILE; prints its results folder, or the errors
 */
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "diag.h"
#include "cmds.h"

int main(int argc, char **argv)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	if (argc >= 2 && !strcmp(argv[1], "options"))
		return rb_options_cmd(argc - 1, argv + 1);
	if (argc != 3 || strcmp(argv[1], "load")) {
		fprintf(stderr, "usage: campaign_key_row options --json | load FILE\n");
		return 2;
	}
	rb_diags_init(&d);
	if (rb_campaign_load_file(argv[2], &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return 2;
	}
	printf("results %s\n", c->results_dir);
	rb_campaign_free(c);
	rb_diags_release(&d);
	return 0;
}
