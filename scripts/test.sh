#!/bin/bash
# Installs what is missing, builds, and runs every test stage with a time budget each.
# Each stage's time is printed; a stage that overruns its budget by half fails. At the
# end every skipped test is listed with its reason; under CI (CI=true) a skip fails the
# run unless it is for what the machine cannot have (real NVMe, GPU, device-mapper/MD).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=$(nproc)
export RB_SKIP_LOG=$ROOT/build/skipped.txt
declare -A BUDGET=([deps]=600 [build]=300 [unit]=60 [integration]=360 [root]=360
	[package]=550 [sanitize]=660 [tsan]=600 [fuzz]=240 [qemu]=120 [faults]=240 [compat]=300 [browser]=0
	[slow]=0)
FAILED=0
STAGES=()

# Loop devices the tests made (over files in an rbtest- folder) that a test killed
# mid-way left attached: detached once its stage has ended, when no test runs.
sweep_loops() {
	[ "$(id -u)" = 0 ] && command -v losetup >/dev/null || return 0
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk '$2 ~ /\/rbtest-/ {print $1}' |
		while read -r dev; do
			echo "stage left $dev attached: detaching it"
			losetup -d "$dev"
		done
}

stage() { # name command...
	local name=$1 budget=${BUDGET[$1]} start end took rc
	shift
	echo "=== stage $name (budget ${budget}s)"
	start=$(date +%s)
	# a hung stage is stopped at three times its budget
	# functions run in a child bash so that timeout can stop them
	timeout $((budget * 3 + 30)) bash -c '"$@"' bash "$@"
	rc=$?
	sweep_loops
	end=$(date +%s)
	took=$((end - start))
	if [ $rc -ne 0 ]; then
		STAGES+=("$name: FAILED (exit $rc) in ${took}s")
		FAILED=1
	elif [ $((took * 2)) -gt $((budget * 3)) ]; then
		STAGES+=("$name: FAILED: ${took}s overran its ${budget}s budget by more than half")
		FAILED=1
	else
		STAGES+=("$name: ok in ${took}s (budget ${budget}s)")
	fi
	echo "=== stage $name: ${took}s, exit $rc"
	return 0
}

ctest_label() { # build-dir label [label-to-leave-out]
	local out
	out=$(mktemp)
	(cd "$1" && ctest -L "^$2\$" ${3:+-LE "^($3)\$"} --output-on-failure -j"$JOBS" --timeout 300) \
		2>&1 | tee "$out"
	local rc=${PIPESTATUS[0]}
	local line total failed skipped
	line=$(grep -E '^[0-9]+% tests passed' "$out" | tail -1)
	if [ -n "$line" ]; then
		total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
		failed=$(sed -E 's/.*, ([0-9]+) tests failed.*/\1/' <<<"$line")
		skipped=$(grep -c '\*\*\*Skipped' "$out" || true)
		echo "$((total - failed - skipped)) $failed $skipped" >>"$ROOT/build/counts.txt"
	elif grep -q 'No tests were found' "$out"; then
		echo "(no $2 tests yet)"
	fi
	rm -f "$out"
	return "$rc"
}

configure_build() { # dir extra-cmake-args...
	local dir=$1
	shift
	cmake -S . -B "$dir" -DRB_WERROR=ON "$@" >/dev/null && cmake --build "$dir" -j"$JOBS"
}

# ASan and UBSan over the unit and integration tests, in a build that also counts lines
# (gcov): the daemons' lines the unit tests reach are read between the two runs and held
# to their floors (scripts/coverage.py), so coverage needs no build and run of its own.
run_sanitized() {
	configure_build build-asan -DRB_SANITIZE=ON -DRB_COVERAGE=ON -DCMAKE_BUILD_TYPE=Debug ||
		return 1
	find build-asan -name '*.gcda' -delete
	# leaks from libzmq's and HDF5's global state at exit are not ours
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		LSAN_OPTIONS=suppressions=$ROOT/tests/lsan.supp \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		bash -c 'ctest_label build-asan unit nosan &&
			/usr/bin/python3 scripts/coverage.py build-asan --no-build &&
			ctest_label build-asan integration nosan'
}

# ThreadSanitizer over the unit and integration tests: engine jobs, the HDF5 writer, the
# ZAP handler and purge threads share memory with the main loops. Suppressed are only
# reports inside libraries not built with TSan (tests/tsan.supp says which and why).
run_tsan() {
	configure_build build-tsan -DRB_TSAN=ON -DCMAKE_BUILD_TYPE=Debug || return 1
	TSAN_OPTIONS="halt_on_error=1 suppressions=$ROOT/tests/tsan.supp" \
		bash -c 'ctest_label build-tsan unit nosan && ctest_label build-tsan integration "nosan|notsan"'
}

# One libFuzzer target for its seconds from its corpus; its log's tail is printed once
# every target has run. A crash or leak leaves a line in build-fuzz/failed.txt.
fuzz_one() { # target seconds
	local t=$1 secs=$2 corpus=$ROOT/build-fuzz/corpus-$1
	mkdir -p "$corpus"
	cp "$ROOT"/tests/fuzz/corpus/$t/* "$corpus"/ 2>/dev/null
	ASAN_OPTIONS=detect_leaks=1 "$ROOT/build-fuzz/tests/$t" -max_total_time="$secs" \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$ROOT/build-fuzz/$t-" "$corpus" >"$ROOT/build-fuzz/$t.log" 2>&1 ||
		echo "$t: crash or leak (exit $?); artifacts in build-fuzz/, log build-fuzz/$t.log" \
			>>"$ROOT/build-fuzz/failed.txt"
}

# The targets run one per core at a time, each for the same seconds as alone.
run_fuzz() {
	if ! command -v clang >/dev/null; then
		echo "clang missing: cannot build libFuzzer targets"
		return 1
	fi
	CC=clang configure_build build-fuzz -DRB_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug || return 1
	# seconds per target (.ci/run sets them so that the whole run stays under 30 min)
	local secs=${RB_FUZZ_SECONDS:-20} t
	local targets=${RB_FUZZ_TARGETS:-fuzz_campaign fuzz_wire fuzz_journal fuzz_control fuzz_fiojob fuzz_results fuzz_trace fuzz_execout fuzz_nvme_logs fuzz_fleet}
	rm -f "$ROOT/build-fuzz/failed.txt"
	for t in $targets; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
			wait -n
		done
		echo "--- $t for ${secs}s"
		fuzz_one "$t" "$secs" &
	done
	wait
	for t in $targets; do
		echo "--- $t"
		tail -12 "$ROOT/build-fuzz/$t.log"
	done
	if [ -s "$ROOT/build-fuzz/failed.txt" ]; then
		cat "$ROOT/build-fuzz/failed.txt"
		return 1
	fi
}

# The integration tests mostly wait on their processes and sockets (a 2-core machine
# was 35% busy at -j2): one more at once than the cores. Those that time what they
# check take two places each (tests/CMakeLists.txt).
run_integration() {
	JOBS=$((JOBS + 1)) ctest_label build integration
}

export ROOT JOBS
export -f ctest_label configure_build run_sanitized run_tsan fuzz_one run_fuzz run_integration
rm -f "$RB_SKIP_LOG" build/counts.txt
mkdir -p build
stage deps ./scripts/install-deps.sh
stage build configure_build build
stage unit ctest_label build unit
stage integration run_integration
if [ "$(id -u)" = 0 ]; then
	stage root ctest_label build root
else
	echo "root stage: not root, its tests skip" | tee -a "$RB_SKIP_LOG"
	stage root ctest_label build root
fi
# an NVMe controller (QEMU's) in a small VM: the libnvme paths against a device
stage qemu ctest_label build qemu
# the Debian packages, lintian, installed into a clean root (debootstrap) and run there
stage package ctest_label build package
# the fault matrix: full folders, damaged journal and spool, resume races, impostors
stage faults ctest_label build faults
# today's programs with those of an earlier commit, built from the repository's history
# (a checkout without that history cannot run it, and says so)
base=$(sed -n 's/^BASE = "\([0-9a-f]*\)"$/\1/p' tests/integration/test_compat.py)
if git cat-file -e "$base^{commit}" 2>/dev/null; then
	stage compat ctest_label build compat
else
	echo "compat stage: not run: this checkout lacks commit $base to build from"
fi
if [ "${RB_SKIP_SLOW_STAGES:-0}" != 1 ]; then
	stage sanitize run_sanitized
	stage tsan run_tsan
	stage fuzz run_fuzz
fi

echo
echo "=== stages"
printf '  %s\n' "${STAGES[@]}"
if [ -s "$RB_SKIP_LOG" ]; then
	echo "=== skipped tests and why"
	sed 's/^/  /' "$RB_SKIP_LOG"
	if [ "${CI:-}" = true ] && grep -qvE 'needs (real NVMe|a GPU|device-mapper|MD)' "$RB_SKIP_LOG"; then
		echo "CI: a test skipped for something this machine can have: that is a failure"
		FAILED=1
	fi
else
	echo "=== no test skipped"
fi
read -r P F S < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' build/counts.txt 2>/dev/null || echo "0 0 0")
echo "total: $P passed, $F failed, $S skipped"
exit $FAILED
