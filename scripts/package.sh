#!/bin/bash
# Builds the Debian packages (rackbench-agent, rackbench, python3-rackbench) into
# build-pkg/ with CPack and checks each with lintian. Usage: scripts/package.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build-pkg}
cmake -S . -B "$OUT" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$OUT" -j"$(nproc)" --target rackbench rackbench-agent changelog_agent \
	changelog_coordinator changelog_python >/dev/null
rm -f "$OUT"/*.deb
(cd "$OUT" && cpack -G DEB >/dev/null)
ls "$OUT"/*.deb
if command -v lintian >/dev/null; then
	# the profile's errors fail the build; its tags are listed, with the overrides
	# in packaging/lintian-overrides explained there
	lintian --fail-on error --suppress-tags-from-file packaging/lintian-overrides \
		"$OUT"/*.deb
fi
