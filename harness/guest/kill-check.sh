#!/bin/sh
# In the selftest guest (runner mode, harness/selftests --kill-check):
# kill aux_fault.sh in the middle of aux_fault's stress test, then check
# that nothing is left behind: no AUX test process, the test PMU's
# module unloaded, the fault-injection settings and kptr_restrict as
# they were. Twice: as the kselftest runner's timeout does (GNU timeout,
# SIGTERM to the script and to its process group, which mostly arrive
# as one), and with SIGTERM sent back to back, so that signals also
# arrive while the script cleans up (as the timeout's second signal does
# when it does not coincide with the first). Prints "guest:
# kill-check: ok" or "guest: kill-check: FAIL ..." and exits
# accordingly; puts the settings back as it found them.

dbg=/sys/kernel/debug
# Every setting aux_fault writes, and a value it does not write
knobs="fail_page_alloc/probability=0 failslab/probability=0
	fail_page_alloc/task-filter=N failslab/task-filter=N
	fail_page_alloc/interval=3 failslab/interval=3
	fail_page_alloc/times=5 failslab/times=5
	fail_page_alloc/space=0 failslab/space=0
	fail_page_alloc/verbose=1 failslab/verbose=1
	fail_page_alloc/ignore-gfp-wait=Y failslab/ignore-gfp-wait=Y
	fail_page_alloc/ignore-gfp-highmem=Y fail_page_alloc/min-order=1"

state() {
	for k in $knobs; do
		printf '%s=%s ' "${k%%=*}" "$(cat "$dbg/${k%%=*}" 2>/dev/null)"
	done
	printf 'kptr_restrict=%s' "$(cat /proc/sys/kernel/kptr_restrict)"
}

fail() {
	echo "guest: kill-check: FAIL $*"
	exit 1
}

[ -d "$dbg/fail_page_alloc" ] || fail "no fault injection in this kernel"
saved_kptr=$(cat /proc/sys/kernel/kptr_restrict)
saved=
for k in $knobs; do
	saved="$saved ${k%%=*}=$(cat "$dbg/${k%%=*}")"
done
restore() {
	for k in $saved; do
		echo "${k#*=}" > "$dbg/${k%%=*}"
	done
	echo "$saved_kptr" > /proc/sys/kernel/kptr_restrict
}
trap restore EXIT

# Settings that differ from what the tests write, so that a leftover shows
for k in $knobs; do
	echo "${k#*=}" > "$dbg/${k%%=*}" || fail "cannot set ${k%%=*}"
done
echo 2 > /proc/sys/kernel/kptr_restrict
before=$(state)

# Nothing of the killed run ($1) left behind
left_behind() {
	sleep 1
	after=$(state)
	# (killed orphans stay zombies until /init reaps them)
	for s in /proc/[0-9]*/stat; do
		stat=$(cat "$s" 2>/dev/null) || continue
		case "$stat" in
		*"(aux_mmap) Z "* | *"(aux_policy) Z "* | *"(aux_fault) Z "*) ;;
		*"(aux_mmap) "* | *"(aux_policy) "* | *"(aux_fault) "*)
			fail "$1: a test program still running: $stat" ;;
		esac
	done
	[ ! -d /sys/module/aux_test_pmu ] || fail "$1: aux_test_pmu left loaded"
	[ "$before" = "$after" ] ||
		fail "$1: settings changed: before: $before; after: $after"
}

# aux_fault's stress tests, given cycles enough to run for their 30 s
# each: killed 10 s in
export AUX_STRESS_CYCLES=100000000
/usr/bin/timeout -s TERM 10 /kselftest/perf_events/aux_fault.sh -faux_fault
rc=$?
[ "$rc" -eq 124 ] || fail "aux_fault.sh was not killed by the timeout (exit $rc)"
left_behind "timeout"

/kselftest/perf_events/aux_fault.sh -faux_fault &
pid=$!
sleep 10
# back to back until it is gone (at most 3000): the first starts the
# cleanup, the others arrive while it runs
n=0
while [ $n -lt 3000 ] && kill -TERM "$pid" 2>/dev/null; do
	n=$((n + 1))
done
wait "$pid"
rc=$?
[ "$rc" -eq 143 ] || fail "aux_fault.sh did not end on SIGTERM (exit $rc)"
left_behind "$n SIGTERMs"
echo "guest: kill-check: ok ($n SIGTERMs in the second run; $after)"
