// SPDX-License-Identifier: MIT
/*
 * The campaign key table (campaign_keys.h). A row per key; the loader, its error texts,
 * `rackbench options --json`, the JSON schema and docs/campaign-keys.md all read it.
 */
#include "campaign_keys.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"

#define ROOT_AT(field) offsetof(struct rb_campaign, field)

/* a choice is stored as an int (campaign.c) */
_Static_assert(sizeof(((struct rb_campaign *)0)->on_agent_lost) == sizeof(int),
	       "on_agent_lost is stored as an int");
_Static_assert(sizeof(((struct rb_campaign *)0)->on_refusal) == sizeof(int),
	       "on_refusal is stored as an int");
#define RULE_AT(field) offsetof(struct rb_verdict_rules, field)

static const char *const lost_choices[] = { "wait", "continue", "abort", NULL };
static const char *const refusal_choices[] = { "stop", "skip", NULL };
static const char *const method_choices[] = { "format",	    "sanitize", "sanitize-crypto",
					      "deallocate", "discard",	"zero",
					      NULL };
static const char *const ses_choices[] = { "user", "crypto", NULL };
static const char *const fs_choices[] = { "ext4", "xfs", NULL };
static const char *const metric_choices[] = { "iops", "mbps", "mean_latency", NULL };
static const char *const domain_choices[] = { "rack", "host", NULL };

const struct rb_ckey rb_ckeys[] = {
	/* the root, in the order its "known:" list gives them */
	{ "name", RB_CK_ROOT, RB_CK_STRING, NULL, "the file's name",
	  "names the run and its results file", ROOT_AT(name) },
	{ "listen", RB_CK_ROOT, RB_CK_STRING, NULL, "tcp://*:7470",
	  "the endpoint the coordinator binds: tcp://HOST:PORT or ipc://PATH", -1 },
	{ "insecure", RB_CK_ROOT, RB_CK_BOOL, NULL, "false",
	  "run without keys (warned, and recorded in the results)", ROOT_AT(insecure) },
	{ "key", RB_CK_ROOT, RB_CK_STRING, NULL, "",
	  "the coordinator's CURVE key pair file (rackbench keygen)", ROOT_AT(key) },
	{ "agent_keys", RB_CK_ROOT, RB_CK_STRING, NULL, "",
	  "the agents allowed: lines 'AGENT-NAME PUBLIC-KEY'; reloaded on SIGHUP",
	  ROOT_AT(agent_keys) },
	{ "destructive", RB_CK_ROOT, RB_CK_BOOL, NULL, "false",
	  "the run's key for writes and trims (the agent's --allow is the other)",
	  ROOT_AT(destructive) },
	{ "wipe_signatures", RB_CK_ROOT, RB_CK_BOOL, NULL, "false",
	  "let writes overwrite filesystem, RAID, LVM and swap signatures and partition tables",
	  ROOT_AT(wipe_signatures) },
	{ "results", RB_CK_ROOT, RB_CK_STRING, NULL, ".", "the folder of the HDF5 file",
	  ROOT_AT(results_dir) },
	{ "results_db", RB_CK_ROOT, RB_CK_STRING, NULL, "the service's --results-db",
	  "the fleet's PostgreSQL database the run's file is exported into when it ends: a libpq "
	  "URI or key=value string without a password (~/.pgpass, PGPASSFILE or PGPASSWORD hold "
	  "it); a database away then is caught up later (docs/fleet-db.md)",
	  ROOT_AT(results_db) },
	{ "wait", RB_CK_ROOT, RB_CK_DURATION, NULL, "60s", "how long to wait for the agents",
	  ROOT_AT(wait_ns) },
	{ "on_agent_lost", RB_CK_ROOT, RB_CK_ENUM, lost_choices, "wait",
	  "an agent silent for 5 s mid-point: wait for it (up to lost_wait; a restarted agent runs "
	  "the point again as a new attempt), continue without it (its drives' rows say 'lost', "
	  "exit 4), or abort",
	  ROOT_AT(on_agent_lost) },
	{ "lost_wait", RB_CK_ROOT, RB_CK_DURATION, NULL, "60s", "how long to wait for a lost agent",
	  ROOT_AT(lost_wait_ns) },
	{ "on_refusal", RB_CK_ROOT, RB_CK_ENUM, refusal_choices, "stop",
	  "a drive the safety guard refuses (mounted, held, not allowed): stop before anything "
	  "is written, or skip it -- its rows say 'refused' with every reason, its verdict "
	  "INCOMPLETE, exit 4 -- and run the rest",
	  ROOT_AT(on_refusal) },
	{ "verdict", RB_CK_ROOT, RB_CK_MAPPING, NULL, "",
	  "rules that judge each drive PASS, FAIL or INCOMPLETE when the run ends (the verdicts "
	  "table; exit 5 when one fails); a preset may bring its own",
	  -1 },
	{ "defaults", RB_CK_ROOT, RB_CK_WORKLOAD, NULL, "", "workload keys every phase starts from",
	  -1 },
	{ "targets", RB_CK_ROOT, RB_CK_LIST, NULL, "", "the agents and their drives (required)",
	  -1 },
	{ "lock", RB_CK_ROOT, RB_CK_STRING, NULL, "",
	  "a file from 'rackbench plan --lock': each drive must report the serial recorded there",
	  -1 },
	{ "preset", RB_CK_ROOT, RB_CK_STRING, NULL, "",
	  "a review's procedure as this campaign's phases (rackbench presets; docs/presets.md)",
	  -1 },
	{ "overrides", RB_CK_ROOT, RB_CK_MAPPING, NULL, "",
	  "adjusts a preset: workload keys for every point (runtime: time-based points only; "
	  "passes, io_size: size-based ones only), and idle",
	  -1 },
	{ "phases", RB_CK_ROOT, RB_CK_LIST, NULL, "", "what is measured, in order (or a preset)",
	  -1 },
	{ "fleet_verdict", RB_CK_ROOT, RB_CK_MAPPING, NULL, "",
	  "the fleet's verdicts over the campaign's every drive in results_db (rackbench judge: "
	  "fail_slow, cluster_hold, firmware), judged by rackbench fleet run once every rack has "
	  "ended; true: with the defaults; needs results_db (docs/fleet-db.md)",
	  -1 },
#ifdef RB_CKEY_TEST_ROW
	/* a test build's one added row (tests/tools/campaign_key_row.c): nothing else names it */
	{ "test_folder", RB_CK_ROOT, RB_CK_STRING, NULL, "",
	  "a test build's key: the results folder", ROOT_AT(results_dir) },
#endif

	{ "agent", RB_CK_TARGET, RB_CK_STRING, NULL, "", "the agent by name", -1 },
	{ "agents", RB_CK_TARGET, RB_CK_MAPPING, NULL, "",
	  "a group of agents chosen when they connect: the first count (by name) whose name "
	  "matches the glob and that carry every label; each with the target's drives or select",
	  -1 },
	{ "drives", RB_CK_TARGET, RB_CK_LIST, NULL, "",
	  "the agent's drives: paths, {path, serial}, or striped volumes", -1 },
	{ "select", RB_CK_TARGET, RB_CK_MAPPING, NULL, "",
	  "the agent's drives matching model and firmware (substrings) and serial, chosen when it "
	  "connects: exactly count of them",
	  -1 },
	{ "filesystem", RB_CK_TARGET, RB_CK_MAPPING, NULL, "",
	  "a filesystem made on each of the target's drives (a drive's own 'filesystem' wins): "
	  "ext4, xfs or {type, mkfs_options, mount_options}",
	  -1 },

	{ "name", RB_CK_AGENTS, RB_CK_STRING, NULL, "*", "a glob of agent names: jbof-*", -1 },
	{ "labels", RB_CK_AGENTS, RB_CK_MAPPING, NULL, "",
	  "labels the agents must carry (rackbench-agent --label K=V)", -1 },
	{ "count", RB_CK_AGENTS, RB_CK_STRING, NULL, "",
	  "how many agents the group takes: N (the first N by name), 'all' (every match that "
	  "connects, at least one) or '>= N'",
	  -1 },

	{ "model", RB_CK_SELECT, RB_CK_STRING, NULL, "", "a substring of the drive's model", -1 },
	{ "serial", RB_CK_SELECT, RB_CK_STRING, NULL, "", "the drive's serial", -1 },
	{ "firmware", RB_CK_SELECT, RB_CK_STRING, NULL, "", "a substring of the drive's firmware",
	  -1 },
	{ "count", RB_CK_SELECT, RB_CK_STRING, NULL, "",
	  "how many drives must match: N (exactly), 'all' (every match, at least one) or '>= N' "
	  "(every match, at least N)",
	  -1 },

	{ "path", RB_CK_DRIVE, RB_CK_STRING, NULL, "", "the drive's path on its agent", -1 },
	{ "serial", RB_CK_DRIVE, RB_CK_STRING, NULL, "",
	  "identity pin: the drive must report this serial", -1 },
	{ "alias", RB_CK_DRIVE, RB_CK_STRING, NULL, "",
	  "the name reports give the drive (\"Kingston DC3000ME #1\"), stored with the results; "
	  "unique in the campaign, at most 63 characters",
	  -1 },

	{ "filesystem", RB_CK_DRIVE, RB_CK_MAPPING, NULL, "",
	  "make this filesystem on the drive (a destructive write: both keys of the guard), "
	  "mount it under the agent's state folder for each point, the point's workload on a "
	  "file of 'size' there; ext4, xfs or {type, mkfs_options, mount_options}",
	  -1 },

	{ "volume", RB_CK_VOLUME, RB_CK_STRING, NULL, "", "the volume's name (no '/')", -1 },
	{ "members", RB_CK_VOLUME, RB_CK_LIST, NULL, "",
	  "its drives in stripe order, each checked by the guard", -1 },
	{ "stripe", RB_CK_VOLUME, RB_CK_SIZE, NULL, "128k",
	  "the unit: unit c is unit c / n of member c % n; a multiple of 512 (a workload's "
	  "'stripe' overrides it); an IO across units goes as parts",
	  -1 },

	{ "command", RB_CK_EXEC, RB_CK_STRING, NULL, "",
	  "the name of a command on every agent's allow-list (agent.yaml 'commands')", -1 },
	{ "params", RB_CK_EXEC, RB_CK_MAPPING, NULL, "",
	  "values of the command's declared parameters (words; the agent refuses others)", -1 },

	{ "type", RB_CK_FS, RB_CK_ENUM, fs_choices, "", "the filesystem", -1 },
	{ "mkfs_options", RB_CK_FS, RB_CK_STRING, NULL, "",
	  "words given to mkfs (-E nodiscard); none may name a device or a path", -1 },
	{ "mount_options", RB_CK_FS, RB_CK_STRING, NULL, "",
	  "as mount -o takes them (noatime,discard); none may name a device or a path", -1 },

	{ "name", RB_CK_PHASE, RB_CK_STRING, NULL, "phase N", "the phase's name", -1 },
	{ "workload", RB_CK_PHASE, RB_CK_WORKLOAD, NULL, "", "workload keys over the defaults",
	  -1 },
	{ "matrix", RB_CK_PHASE, RB_CK_MAPPING, NULL, "",
	  "workload keys with lists of values: a point per combination", -1 },
	{ "curve", RB_CK_PHASE, RB_CK_LIST, NULL, "",
	  "vdbench-style curve: an unthrottled run, then each percentage of each drive's own "
	  "maximum IOPS",
	  -1 },
	{ "steady_state", RB_CK_PHASE, RB_CK_MAPPING, NULL, "",
	  "SNIA PTS steady state: rounds over the matrix until the tracking point is steady over "
	  "a window",
	  -1 },
	{ "idle", RB_CK_PHASE, RB_CK_DURATION, NULL, "0", "idle time after each point", -1 },
	{ "repeat", RB_CK_PHASE, RB_CK_UINT, NULL, "1",
	  "run the phase's matrix this many times, as a block", -1 },
	{ "exec", RB_CK_PHASE, RB_CK_MAPPING, NULL, "",
	  "run a command of each agent's allow-list (agent.yaml 'commands') on each drive, all "
	  "agents at one instant, the drives sampled from the kernel's counters meanwhile; "
	  "nothing else in the phase but a workload's interval",
	  -1 },
	{ "purge", RB_CK_PHASE, RB_CK_MAPPING, NULL, "",
	  "return the drives to a known state (rackbench-agent purge); nothing else in the phase",
	  -1 },
	{ "verdict", RB_CK_PHASE, RB_CK_MAPPING, NULL, "",
	  "the phase's own performance rules (min_model_pct, max_p99, max_p99_9, cliff_pct, "
	  "cliff_window) over the root's",
	  -1 },
	{ "drives", RB_CK_PHASE, RB_CK_LIST, NULL, "all",
	  "the campaign drives this phase measures (paths or volume names, on every agent that "
	  "has them); volumes sharing a drive go in different phases",
	  -1 },

	{ "method", RB_CK_PURGE, RB_CK_ENUM, method_choices, "", "how the drives are purged", -1 },
	{ "ses", RB_CK_PURGE, RB_CK_ENUM, ses_choices, "",
	  "a Format's secure erase: user data or crypto", -1 },

	{ "max_rounds", RB_CK_STEADY, RB_CK_UINT, NULL, "25", "rounds at most", -1 },
	{ "window", RB_CK_STEADY, RB_CK_UINT, NULL, "5", "rounds (or intervals) judged", -1 },
	{ "track", RB_CK_STEADY, RB_CK_MAPPING, NULL, "",
	  "matrix keys and the tracking point's values", -1 },
	{ "metric", RB_CK_STEADY, RB_CK_ENUM, metric_choices, "iops", "what must be steady", -1 },
	{ "rolling", RB_CK_STEADY, RB_CK_BOOL, NULL, "false",
	  "judge each point over windows of its own intervals and stop it once steady", -1 },

	/* health: judged over the whole run, at the root only (SMART; NVMe drives) */
	{ "max_temp_c", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "fail a drive whose composite temperature went above this (degC)", RULE_AT(max_temp_c) },
	{ "critical_warning", RB_CK_VERDICT, RB_CK_BOOL, NULL, "",
	  "fail a drive that raised any critical-warning bit (spare, temperature, reliability, "
	  "read-only, backup), naming the bits",
	  RULE_AT(critical_warning) },
	{ "max_media_errors", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new media and data integrity errors allowed over the run", RULE_AT(max_media_errors) },
	{ "max_error_log_entries", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new error-log entries allowed over the run", RULE_AT(max_error_log_entries) },
	{ "max_unsafe_shutdowns", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new unsafe shutdowns allowed over the run", RULE_AT(max_unsafe_shutdowns) },
	{ "max_warn_temp_minutes", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new minutes above the drive's warning temperature (WCTEMP) allowed over the run",
	  RULE_AT(max_warn_temp_minutes) },
	{ "max_throttle_seconds", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new seconds of thermal throttling (both levels) allowed over the run",
	  RULE_AT(max_throttle_seconds) },
	{ "max_throttle_transitions", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new entries into thermal throttling allowed over the run",
	  RULE_AT(max_throttle_transitions) },
	{ "pcie_downtrained", RB_CK_VERDICT, RB_CK_BOOL, NULL, "",
	  "fail a drive whose PCIe link trained below the most both ends can do (x2 for x4, "
	  "Gen4 for Gen5), naming its slot",
	  RULE_AT(pcie_downtrained) },
	{ "max_pcie_correctable_per_hour", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "new PCIe correctable errors (AER) an hour allowed over the run",
	  RULE_AT(max_pcie_correctable_per_hour) },
	{ "min_spare_pct", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "fail a drive whose available spare fell below this (%)", RULE_AT(min_spare_pct) },
	{ "max_wear_pct", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "how far percentage used may rise over the run (points)", RULE_AT(max_wear_pct) },
	/* performance: per point; a phase's verdict may set its own */
	{ "min_model_pct", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "fail a drive below this share (%) of the median IOPS of its model's drives at the same "
	  "point (three drives of the model or more)",
	  RULE_AT(min_model_pct) },
	{ "max_p99", RB_CK_VERDICT, RB_CK_DURATION, NULL, "",
	  "fail a drive whose p99 latency (per direction, from the merged histogram) is above "
	  "this",
	  RULE_AT(max_p99_ns) },
	{ "max_p99_9", RB_CK_VERDICT, RB_CK_DURATION, NULL, "", "the same for p99.9",
	  RULE_AT(max_p99_9_ns) },
	{ "cliff_pct", RB_CK_VERDICT, RB_CK_UINT, NULL, "",
	  "fail a drive whose throughput in a window of intervals fell this far (%) below an "
	  "earlier window's, naming the interval where it began",
	  RULE_AT(cliff_pct) },
	{ "cliff_window", RB_CK_VERDICT, RB_CK_UINT, NULL, "5",
	  "sample intervals per window of the cliff rule", RULE_AT(cliff_window) },

	/* the fleet's verdicts: rackbench judge's flags of the same names */
	{ "margin", RB_CK_FLEETV, RB_CK_NUMBER, NULL, "2",
	  "fail_slow: a point is slow when the drive's p99 is beyond this factor (above 1) times "
	  "its peers' at its load, and beyond their noise",
	  -1 },
	{ "min_points", RB_CK_FLEETV, RB_CK_UINT, NULL, "2",
	  "fail_slow: slow in this many points or more is QUARANTINE (FAIL when an earlier run "
	  "was QUARANTINE too)",
	  -1 },
	{ "cluster", RB_CK_FLEETV, RB_CK_UINT, NULL, "3",
	  "cluster_hold: this many failed drives or more put their rack (or host) on HOLD", -1 },
	{ "domain", RB_CK_FLEETV, RB_CK_ENUM, domain_choices, "rack",
	  "cluster_hold's domain: the agents' rack label or the host", -1 },
	{ "wait", RB_CK_FLEETV, RB_CK_DURATION, NULL, "60s",
	  "how long fleet run waits for each ended rack's run to reach results_db before it "
	  "judges without it (named)",
	  -1 },
};

const size_t rb_nckeys = sizeof(rb_ckeys) / sizeof(rb_ckeys[0]);

const struct rb_ckey *rb_ckey_find(enum rb_ckey_where where, const char *name)
{
	for (size_t i = 0; name && i < rb_nckeys; i++)
		if (rb_ckeys[i].where == where && !strcmp(rb_ckeys[i].name, name))
			return &rb_ckeys[i];
	return NULL;
}

const char *rb_ckey_known(enum rb_ckey_where where, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < rb_nckeys && n < len; i++)
		if (rb_ckeys[i].where == where)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      rb_ckeys[i].name);
	return buf;
}

const char *rb_ckey_where_name(enum rb_ckey_where where)
{
	static const char *const names[RB_CK_NWHERE] = {
		[RB_CK_ROOT] = "a campaign",	  [RB_CK_TARGET] = "a target",
		[RB_CK_AGENTS] = "agents",	  [RB_CK_SELECT] = "select",
		[RB_CK_DRIVE] = "a drive",	  [RB_CK_VOLUME] = "a volume",
		[RB_CK_PHASE] = "a phase",	  [RB_CK_PURGE] = "purge",
		[RB_CK_STEADY] = "steady_state",  [RB_CK_VERDICT] = "verdict",
		[RB_CK_FS] = "a filesystem",	  [RB_CK_EXEC] = "exec",
		[RB_CK_FLEETV] = "fleet_verdict",
	};

	return where < RB_CK_NWHERE ? names[where] : "?";
}

const char *rb_ckey_where_id(enum rb_ckey_where where)
{
	static const char *const ids[RB_CK_NWHERE] = {
		[RB_CK_ROOT] = "root",
		[RB_CK_TARGET] = "target",
		[RB_CK_AGENTS] = "agents",
		[RB_CK_SELECT] = "select",
		[RB_CK_DRIVE] = "drive",
		[RB_CK_VOLUME] = "volume",
		[RB_CK_PHASE] = "phase",
		[RB_CK_PURGE] = "purge",
		[RB_CK_STEADY] = "steady_state",
		[RB_CK_VERDICT] = "verdict",
		[RB_CK_FS] = "filesystem",
		[RB_CK_EXEC] = "exec",
		[RB_CK_FLEETV] = "fleet_verdict",
	};

	return where < RB_CK_NWHERE ? ids[where] : "?";
}

const char *rb_ckey_type_name(enum rb_ckey_type type)
{
	static const char *const names[] = {
		[RB_CK_STRING] = "string",   [RB_CK_BOOL] = "bool", [RB_CK_DURATION] = "duration",
		[RB_CK_UINT] = "uint",	     [RB_CK_SIZE] = "size", [RB_CK_ENUM] = "enum",
		[RB_CK_MAPPING] = "mapping", [RB_CK_LIST] = "list", [RB_CK_WORKLOAD] = "workload",
		[RB_CK_NUMBER] = "number",
	};

	return (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

int rb_ckey_choice(const struct rb_ckey *k, const char *s)
{
	for (int i = 0; s && k->choices && k->choices[i]; i++)
		if (!strcmp(k->choices[i], s))
			return i;
	return -1;
}

const char *rb_ckey_choices_text(const struct rb_ckey *k, char *buf, size_t len)
{
	size_t n = 0, cnt = 0;

	buf[0] = '\0';
	while (k->choices && k->choices[cnt])
		cnt++;
	for (size_t i = 0; i < cnt && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      !i	     ? ""
				      : i + 1 == cnt ? " or "
						     : ", ",
				      k->choices[i]);
	return buf;
}
