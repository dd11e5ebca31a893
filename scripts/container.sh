#!/bin/bash
# Builds the container image (agent and coordinator) offline with podman, FROM scratch:
# the files of the Debian packages (dpkg -x), the shared libraries their programs load
# (ldd, this machine's: Debian 12's) and busybox for /bin/sh.
# Usage: scripts/container.sh [DEB-DIR [TAG]]   (default build-pkg, rackbench:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=${1:-build-pkg}
TAG=${2:-rackbench:latest}
for tool in podman dpkg ldd busybox; do
	command -v "$tool" >/dev/null || { echo "container.sh: needs $tool" >&2; exit 1; }
done
# busybox's libraries are not collected: it must be the static build
if ldd "$(command -v busybox)" >/dev/null 2>&1; then
	echo "container.sh: busybox is not static (install busybox-static)" >&2
	exit 1
fi
newest() { ls "$DEBS"/"$1"_*.deb 2>/dev/null | sort -V | tail -1; }
if [ -z "$(newest rackbench)" ] || [ -z "$(newest rackbench-agent)" ]; then
	scripts/package.sh "$DEBS" >/dev/null
fi
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
for pkg in rackbench rackbench-agent; do
	dpkg -x "$(newest "$pkg")" "$ROOT"
done
# every library the programs load, at the path the loader looks for it
for bin in "$ROOT"/usr/bin/rackbench "$ROOT"/usr/bin/rackbench-agent; do
	ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done
mkdir -p "$ROOT/bin" "$ROOT/tmp" "$ROOT/etc/rackbench" "$ROOT/var/lib/rackbench" \
	"$ROOT/run/rackbench"
chmod 1777 "$ROOT/tmp"
chmod 0700 "$ROOT/var/lib/rackbench"
cp /bin/busybox "$ROOT/bin/busybox"
for applet in sh sed mkdir test cat kill; do
	ln -s busybox "$ROOT/bin/$applet"
done
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"
echo "root:x:0:" >"$ROOT/etc/group"
podman build --quiet -f deploy/container/Containerfile -t "$TAG" "$ROOT" >/dev/null
echo "$TAG"
