#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the seccomp profile for the agent's container: a container runtime's default
profile (Debian's containers-common: /usr/share/containers/seccomp.json) with the three
io_uring system calls allowed, which the default refuses (ENOSYS), so the agent's engine
cannot start under it. Nothing else is added.

Usage: seccomp-agent.py [BASE-PROFILE] > seccomp-agent.json
       podman run --security-opt seccomp=seccomp-agent.json ..."""
import json
import sys

CALLS = ["io_uring_setup", "io_uring_enter", "io_uring_register"]


def main(argv):
    base = argv[0] if argv else "/usr/share/containers/seccomp.json"
    try:
        prof = json.load(open(base))
    except (OSError, ValueError) as e:
        sys.exit(f"seccomp-agent: cannot read the base profile {base}: {e}")
    if not isinstance(prof.get("syscalls"), list):
        sys.exit(f"seccomp-agent: {base} has no syscalls list")
    allowed = {n for r in prof["syscalls"] if r.get("action") == "SCMP_ACT_ALLOW"
               and not r.get("args") and not r.get("includes") and not r.get("excludes")
               for n in r.get("names", [])}
    missing = [c for c in CALLS if c not in allowed]
    if missing:
        prof["syscalls"].append({"names": missing, "action": "SCMP_ACT_ALLOW", "args": [],
                                 "comment": "rackbench-agent: its io_uring engine"})
    json.dump(prof, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
