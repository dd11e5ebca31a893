# SPDX-License-Identifier: MIT
"""The README's first command on a fresh Debian 12 root: a copy of the package stage's
clean root (debootstrap --variant=minbase), this tree's files in /src, and
`./scripts/demo.sh` run there as root. It installs what building and running the demo
needs and nothing the tests need (none of chromium, qemu-system-x86, linux-image-amd64,
podman, mariadb-server, sysbench, prometheus, lintian, ansible-core, ansible-lint,
debootstrap, nor any other package of install-deps.sh's TEST list), builds, and prints
the demo's table."""
import os
import re
import shutil
import subprocess

from rbtest import DEBIAN_BASE, PKG_DIR, SRC, check, debian_root, need

need("debootstrap, chroot and mounts (run the package stage as root)", ("debootstrap",))
ROOT = os.path.join(os.path.dirname(PKG_DIR), "pkg-demo")
# what the demo never needs (the issue that split the lists named them)
HEAVY = {"chromium", "qemu-system-x86", "linux-image-amd64", "podman", "mariadb-server",
         "sysbench", "prometheus", "lintian", "ansible-core", "ansible-lint", "debootstrap"}


def sh(*args, timeout=1200):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        print(r.stdout[-3000:], r.stderr[-3000:])
    return r


def installed(root):
    """The packages installed in a root."""
    listed = sh("chroot", root, "dpkg-query", "-W", "-f", "${Package} ${Status}\\n").stdout
    return {x.split()[0] for x in listed.splitlines() if x.endswith("install ok installed")}


def test_only():
    """The packages install-deps.sh lists for the tests alone."""
    with open(os.path.join(SRC, "scripts", "install-deps.sh")) as f:
        text = f.read()
    return set(re.search(r'^TEST="([^"]*)"', text, re.M).group(1).split()) - {"python3"}


debian_root(ROOT)
mounts = []
try:
    for fs, where, opts in (("proc", "proc", []), ("sysfs", "sys", []), ("/dev", "dev", ["--bind"])):
        target = os.path.join(ROOT, where)
        sh("mount", *(opts + ([fs, target] if opts else ["-t", fs, fs, target])))
        mounts.append(target)
    # this tree's files, as a checkout has them (no build folders)
    files = subprocess.run(["git", "-C", SRC, "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.split(b"\0")
    src = os.path.join(ROOT, "src")
    for rel in (f.decode() for f in files if f):
        if os.path.isfile(os.path.join(SRC, rel)):
            os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
            shutil.copy2(os.path.join(SRC, rel), os.path.join(src, rel))
    r = sh("chroot", ROOT, "sh", "-c", "cd /src && ./scripts/demo.sh --out /tmp/demo")
    print(r.stdout[-2500:], r.stderr[-1500:])
    check(r.returncode == 0, f"demo.sh on a fresh root: exit {r.returncode}")
    check(re.search(r"^point\s+drive\s+IOPS\s+MB/s", r.stdout, re.M),
          "the demo's table on stdout")
    # what demo.sh added to the clean root (minbase has mount, util-linux... already):
    # none it asked for is the tests' (a build package may depend on one: procps), and
    # none of the tests' heavy ones came at all
    added = installed(ROOT) - installed(DEBIAN_BASE)
    asked = set(sh("chroot", ROOT, "apt-mark", "showmanual").stdout.split()) & added
    extra = sorted(asked & test_only())
    check(not extra, f"demo.sh asked for packages only the tests need: {extra}")
    heavy = sorted(added & HEAVY)
    check(not heavy, f"demo.sh installed the tests' packages: {heavy}")
    print(f"ok: demo.sh asked for {len(asked)} packages and added {len(added)}, none of "
          "the tests' own")
finally:
    for m in reversed(mounts):
        subprocess.run(["umount", "-l", m])
    # never through a mount still there (the host's /dev)
    if not any(os.path.ismount(m) for m in mounts):
        shutil.rmtree(ROOT, ignore_errors=True)
