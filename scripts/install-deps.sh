#!/bin/sh
# Installs the Debian 12 packages rackbench needs (as root), running apt-get only when
# something is missing. Usage: install-deps.sh [demo]
#   demo   what building rackbench and running `rackbench demo` needs: BUILD and RUNTIME
#   (none) that, and what the tests need: TEST too
# A package a change adds goes into one of the three lists, by what needs it.
set -eu
# building: the compiler, CMake, and the libraries' headers (which bring the libraries;
# libnvme's pkg-config file requires openssl's)
BUILD="build-essential cmake pkg-config libzmq3-dev libprotobuf-c-dev protobuf-c-compiler
liburing-dev libnvme-dev libjson-c-dev libssl-dev libhdf5-dev libyaml-dev libblkid-dev
libsqlite3-dev libdeflate-dev libmicrohttpd-dev libpq-dev"
# running the programs beyond their libraries: nothing for the demo
RUNTIME=""
# the tests: unit tests and their tools, the integration tests' real components (fio,
# Prometheus, MariaDB, PostgreSQL, QEMU, podman, Chromium, Ansible, Slurm and munge...),
# the fuzzers and sanitizers
TEST="clang clang-format libcmocka-dev hdf5-tools prometheus python3 python3-h5py python3-numpy
python3-pandas python3-jsonschema python3-yaml postgresql-15 python3-venv python3-pip
python3-setuptools python3-wheel util-linux util-linux-extra mount fdisk e2fsprogs mariadb-server sysbench systemd
fio blktrace libclang-rt-14-dev procps libfuse3-dev fuse3 chromium tmux qemu-system-x86
linux-image-amd64 busybox-static cpio file debootstrap lintian python3-kubernetes ansible-core
ansible-lint yamllint python3-apt podman runc golang-github-containers-common man-db
universal-ctags slurm-wlm munge"
case "${1:-}" in
demo) PKGS="$BUILD $RUNTIME" ;;
"") PKGS="$BUILD $RUNTIME $TEST"
	# kubectl (kustomize) from Debian unless one is installed already (another kubectl
	# package would conflict with it)
	command -v kubectl >/dev/null || PKGS="$PKGS kubernetes-client" ;;
*)
	echo "usage: install-deps.sh [demo]" >&2
	exit 2
	;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
