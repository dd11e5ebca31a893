# SPDX-License-Identifier: MIT
"""The Debian packages, built by scripts/package.sh (lintian: no error), installed into a
clean Debian 12 root made with `debootstrap --variant=minbase` (dependencies from Debian's
archive, as `apt-get install ./PKG.deb` finds them): from the installed files `rackbench
demo` runs and `rackbench-agent --help` answers; postinst made the agent's key pair and
state folder and enabled (not started) the units; purge leaves no file behind that the
packages made (the root's file list before and after)."""
import glob
import os
import shutil
import subprocess

from rbtest import PKG_DIR, SRC, check, debian_root, need

need("debootstrap, chroot and mounts (run the package stage as root)",
     ("debootstrap", "dpkg-deb", "lintian"))

OUT = PKG_DIR
ROOT = os.path.join(os.path.dirname(PKG_DIR), "pkg-root")


def sh(*args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        print(r.stdout[-3000:], r.stderr[-3000:])
    return r


def inroot(*args):
    return sh("chroot", ROOT, *args)


def files():
    out = set()
    for d, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        if rel.split("/")[0] in ("proc", "sys", "dev", "tmp", "run", "var") and rel != "var":
            if not rel.startswith(("var/lib/rackbench", "var/lib/systemd")):
                continue
        for n in names:
            out.add(os.path.join(rel, n))
    return out


r = sh(os.path.join(SRC, "scripts", "package.sh"), OUT)
check(r.returncode == 0, f"package.sh (lintian errors fail it): {r.returncode}")
print(r.stdout[-2000:])
debs = sorted(glob.glob(os.path.join(OUT, "*.deb")))
names = sorted(os.path.basename(d).split("_")[0] for d in debs)
check(names == ["python3-rackbench", "rackbench", "rackbench-agent"], f"packages: {names}")
info = sh("dpkg-deb", "-f", [d for d in debs if "/rackbench-agent_" in d][0], "Depends").stdout
check("libzmq5" in info and "liburing2" in info and "libnvme1" in info,
      f"the agent's dependencies come from its libraries: {info}")
conf = sh("dpkg-deb", "--ctrl-tarfile", [d for d in debs if "/rackbench-agent_" in d][0])
debian_root(ROOT)
mounts = []
try:
    for fs, where, opts in (("proc", "proc", []), ("sysfs", "sys", []), ("/dev", "dev", ["--bind"])):
        target = os.path.join(ROOT, where)
        sh("mount", *(opts + ([fs, target] if opts else ["-t", fs, fs, target])))
        mounts.append(target)
    os.makedirs(os.path.join(ROOT, "tmp", "debs"), exist_ok=True)
    for d in debs:
        shutil.copy(d, os.path.join(ROOT, "tmp", "debs"))
    before = files()
    r = inroot("sh", "-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install "
               "-y -qq --no-install-recommends /tmp/debs/*.deb")
    check(r.returncode == 0, "installing the packages in the clean root")
    r = inroot("rackbench-agent", "--help")
    check(r.returncode == 0 and "usage: rackbench-agent" in r.stdout, "rackbench-agent --help")
    for p in ("/etc/rackbench/agent.key", "/etc/rackbench/agent.pub",
              "/etc/rackbench/coordinator.key", "/etc/rackbench/agents.allow",
              "/etc/rackbench/agent.yaml", "/var/lib/rackbench"):
        check(os.path.exists(ROOT + p), f"postinst did not make {p}")
    check(oct(os.stat(ROOT + "/var/lib/rackbench").st_mode & 0o777) in ("0o700", "0o750"),
          "the state folder is private")
    wants = glob.glob(os.path.join(ROOT, "etc/systemd/system/multi-user.target.wants/*"))
    enabled = {os.path.basename(w) for w in wants}
    check({"rackbench-agent.service", "rackbench.service"} <= enabled, f"enabled units: {wants}")
    r = inroot("sh", "-c", "cd /tmp && rackbench demo --out /tmp/demo")
    print(r.stderr[-1500:])
    check(r.returncode == 0, f"rackbench demo from the installed files: {r.returncode}")
    check(glob.glob(os.path.join(ROOT, "tmp/demo/demo-*.h5")), "the demo's results file")
    r = inroot("python3", "-c", "import rackbench_h5")
    check(r.returncode == 0, f"the python module is importable: {r.stderr[-300:]}")
    r = inroot("sh", "-c", "DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "
               "rackbench rackbench-agent python3-rackbench")
    check(r.returncode == 0, "purge")
    left = sorted(p for p in files() - before
                  if not p.startswith(("tmp/", "var/lib/apt", "var/lib/dpkg", "var/cache",
                                       "var/log", "usr/lib/python3/dist-packages/__pycache__"))
                  and "/__pycache__/" not in p)
    # the dependencies apt pulled in stay: only files of the three packages count
    ours = [p for p in left if "rackbench" in p]
    check(not ours, f"purge left: {ours}")
finally:
    for m in reversed(mounts):
        subprocess.run(["umount", "-l", m])
print("ok")
