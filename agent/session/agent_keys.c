// SPDX-License-Identifier: MIT
/*
 * The agent.yaml key table (agent_keys.h). A row per key; the loader, its errors, the
 * daemon's flags, `rackbench-agent options --json`, the manual page and
 * docs/agent-keys.md all read it.
 */
#include "agent_keys.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define AT(field) offsetof(struct rb_agent_cfg, field)

const struct rb_akey rb_akeys[] = {
	/* in the order the "known:" list, --help and the reference give them */
	{ "coordinator", RB_AK_STRING, "",
	  "the coordinator to connect to: tcp://HOST:PORT (or ipc://PATH); required", "coordinator",
	  "ENDPOINT", AT(coordinator), NULL, NULL },
	{ "name", RB_AK_STRING, "the host's name",
	  "this agent's name in campaigns (a target's agent:) and in its key's line of the "
	  "coordinator's allow-list",
	  "name", "NAME", AT(name), NULL, NULL },
	{ "labels", RB_AK_MAPPING, "",
	  "labels a campaign's group of agents can select on (a target's agents: labels:): "
	  "{KEY: VALUE} in agent.yaml, KEY=VALUE as a flag",
	  "label", "K=V", -1, rb_agent_cfg_read_labels, rb_agent_cfg_add_label },
	{ "targets", RB_AK_LIST, "", "the block devices and files this agent offers campaigns",
	  "target", "PATH", -1, rb_agent_cfg_read_targets, rb_agent_cfg_add_target },
	{ "allow", RB_AK_LIST, "",
	  "the targets writes and trims may reach, each one of targets: the agent's key of the "
	  "two a write needs; the campaign's destructive is the other",
	  "allow", "PATH", -1, rb_agent_cfg_read_allow, rb_agent_cfg_add_allow },
	{ "state_dir", RB_AK_STRING,
	  "$RB_STATE_DIR, else ~/.local/state/rackbench, as root /var/lib/rackbench",
	  "rackbench's own files: the spool, the files it creates (and its record of them), its "
	  "mounts",
	  "state-dir", "DIR", AT(state_dir), NULL, NULL },
	{ "key", RB_AK_STRING, "",
	  "this agent's CURVE key pair file ('rackbench-agent keygen DIR')", "key", "FILE", AT(key),
	  NULL, NULL },
	{ "coordinator_key", RB_AK_STRING, "", "the coordinator's public key (.pub): pinned",
	  "coordinator-key", "FILE", AT(coordinator_key), NULL, NULL },
	{ "insecure", RB_AK_BOOL, "false",
	  "run without keys: no authentication, no encryption; else key and coordinator_key are "
	  "required",
	  "insecure", NULL, AT(insecure), NULL, NULL },
	{ "spool_max", RB_AK_SIZE, "4g",
	  "the spool's cap, at least 64k: a point whose unacknowledged data reaches it is "
	  "stopped and reported, never dropped",
	  "spool-max", "SIZE", AT(spool_max), NULL, NULL },
	{ "commands", RB_AK_MAPPING, "",
	  "the commands exec phases may run here, NAME: {argv, params, timeout, output}: a "
	  "campaign names one and fills its declared params, never a command line; {dir} in argv "
	  "is the drive's filesystem (docs/campaigns.md, Applications)",
	  NULL, NULL, -1, rb_agent_cfg_read_commands, NULL },
	{ "serials", RB_AK_MAPPING, "",
	  "PATH: SERIAL for targets that report none (a file, a loop device, a disk behind a "
	  "controller that hides it): the target's key in results indexes and the fleet's "
	  "database, as a drive's own serial is; 1 to 63 printable characters without blanks; "
	  "a PATH that is a link (/dev/disk/by-id/...) holds for the device it names",
	  NULL, NULL, -1, rb_agent_cfg_read_serials, NULL },
	{ "slots", RB_AK_MAPPING, "",
	  "PATH: SLOT, where each target sits as the rack's people name it (\"bay 7\"; 1 to 31 "
	  "printable characters): a drive's slot in every table that shows one (inventory "
	  "included) is this, else its PCI slot's name; a PATH that is a link holds for the "
	  "device it names",
	  NULL, NULL, -1, rb_agent_cfg_read_slots, NULL },
};

const size_t rb_nakeys = sizeof(rb_akeys) / sizeof(rb_akeys[0]);

_Static_assert(sizeof(rb_akeys) / sizeof(rb_akeys[0]) <= RB_AKEY_MAX,
	       "raise RB_AKEY_MAX for the table's rows");
/* a bool key is stored as a bool, a string or a size as a char * (agent_cfg.c) */
_Static_assert(sizeof(((struct rb_agent_cfg *)0)->insecure) == sizeof(bool),
	       "insecure is stored as a bool");

const struct rb_akey *rb_akey_find(const char *name)
{
	for (size_t i = 0; name && i < rb_nakeys; i++)
		if (!strcmp(rb_akeys[i].name, name))
			return &rb_akeys[i];
	return NULL;
}

const char *rb_akey_known(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < rb_nakeys && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", rb_akeys[i].name);
	return buf;
}

const char *rb_akey_type_name(enum rb_akey_type type)
{
	static const char *const names[] = {
		[RB_AK_STRING] = "string", [RB_AK_BOOL] = "bool",	[RB_AK_SIZE] = "size",
		[RB_AK_LIST] = "list",	   [RB_AK_MAPPING] = "mapping",
	};

	return (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}
