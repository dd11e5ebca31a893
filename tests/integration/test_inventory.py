# SPDX-License-Identifier: MIT
"""rackbench-agent inventory --json on loop devices and files: a clean allow-listed loop
device would be writable, the same with an ext4 signature would not (reason named), the
disk behind / is never writable and says why, files follow the state-folder rule; each
shows its slot as every table does (agent.yaml's `slots:`, a link to the device matching
it, else its PCI slot, else none). The real root disk is only ever looked at this way, never through a write path."""
import json
import os
import shutil
import subprocess

from rbtest import AGENT, Tmp, check, run, skip

if os.geteuid() != 0:
    skip("needs root for loop devices")

with Tmp() as tmp:
    img = os.path.join(tmp, "d.img")
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    dev = subprocess.run(["losetup", "--find", "--show", img], capture_output=True,
                         text=True).stdout.strip()
    check(dev.startswith("/dev/loop"), "loop device")
    try:
        own = os.path.join(tmp, "state", "own.dat")
        os.mkdir(os.path.join(tmp, "state"))
        user = os.path.join(tmp, "user.dat")
        open(user, "w").close()
        cfg = os.path.join(tmp, "agent.yaml")
        # the loop device's slot named in agent.yaml by a link to it, the file's by its path
        link = os.path.join(tmp, "by-id-disk")
        os.symlink(dev, link)
        with open(cfg, "w") as f:
            f.write(f"state_dir: {tmp}/state\ntargets: [{own}, {user}]\n"
                    f"slots: {{{link}: bay 7, {own}: bay 9}}\n")

        def inventory(*extra):
            r = run([AGENT, "inventory", "--json", "--allow", dev, "--config", cfg] + list(extra))
            check(r.returncode == 0, f"inventory: {r.returncode} {r.stderr}")
            return json.loads(r.stdout)

        doc = inventory()
        devs = {d["path"]: d for d in doc["devices"]}
        check(dev in devs, f"{dev} listed")
        d = devs[dev]
        check(d["size_bytes"] == 32 << 20 and d["logical_block_size"] > 0, "identity fields")
        # its model is "loop", as every other command says it; its file apart
        check(d["model"] == "loop" and d["backing_file"] == img,
              f"a loop device's model and file: {d['model']!r} {d.get('backing_file')!r}")
        check(d["write_allowed"] and d["reasons"] == [], f"clean loop device: {d['reasons']}")
        # a slot as every table says it: agent.yaml's (here through a link), else none
        check(d["slot"] == "bay 7", f"the loop device's slot from agent.yaml: {d['slot']!r}")
        # the disk behind /: never writable, reasons given
        roots = [x for x in doc["devices"] if any("/" in r and ("mounted at /" in r or "behind /" in r)
                                                  for r in x["reasons"])]
        check(roots and not any(x["write_allowed"] for x in roots), "the root disk is refused")
        targets = {t["path"]: t for t in doc["targets"]}
        check(targets[own]["write_allowed"], "a file rackbench would create is writable")
        check(targets[own]["slot"] == "bay 9" and targets[user]["slot"] is None,
              f"the targets' slots: {targets[own]['slot']!r} {targets[user]['slot']!r}")
        check(not targets[user]["write_allowed"] and
              "not created by rackbench" in targets[user]["reasons"][0], "a user's file is not")
        # a config file with more targets and allows than the command line has words:
        # every one listed (their lists are added to the flags')
        many = [os.path.join(tmp, "state", f"m{i}.dat") for i in range(40)]
        big = os.path.join(tmp, "big.yaml")
        with open(big, "w") as f:
            f.write(f"state_dir: {tmp}/state\ntargets: [{', '.join(many)}]\n"
                    f"allow: [{', '.join(many)}]\n")
        r = run([AGENT, "inventory", "--json", "--config", big])
        check(r.returncode == 0, f"inventory with a large config: {r.returncode} {r.stderr}")
        check(sorted(t["path"] for t in json.loads(r.stdout)["targets"]) == sorted(many),
              "every target of the config file listed")
        # a signature changes the verdict, and says so
        check(subprocess.run(["mkfs.ext4", "-q", "-F", dev]).returncode == 0, "mkfs")
        d = {x["path"]: x for x in inventory()["devices"]}[dev]
        check(not d["write_allowed"] and any("ext4 signature" in r for r in d["reasons"]),
              f"ext4: {d['reasons']}")
        # not on the allow-list
        r = run([AGENT, "inventory", "--json"])
        d = {x["path"]: x for x in json.loads(r.stdout)["devices"]}[dev]
        check("not on the agent's --allow list" in d["reasons"], "allow-list reason")
        r = run([AGENT, "inventory"])
        check(dev in r.stdout and "WRITE" in r.stdout, "text table")
        check(f" over {img}" in r.stdout, "the text names the loop's file on a line of its own")
        d = {x["path"]: x for x in json.loads(run([AGENT, "inventory", "--json"]).stdout)
             ["devices"]}[dev]
        check(d["slot"] is None, f"without agent.yaml a loop device has no slot: {d['slot']!r}")
        r = run([AGENT, "inventory", "--config", cfg])
        check(" in slot bay 7\n" in r.stdout and " in slot bay 9\n" in r.stdout,
              f"the text names each slot on a line of its own: {r.stdout}")
        r = run([AGENT, "inventory", "--root", os.path.join(tmp, "nowhere")])
        check(r.returncode == 1 and "cannot read" in r.stderr, "a missing --root is an error")
    finally:
        subprocess.run(["losetup", "-d", dev])
print("ok")
