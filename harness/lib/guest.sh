# shellcheck shell=bash
# shellcheck disable=SC2034
# The QEMU guests: their kernel arguments, root directories, boot and verdicts. Sourced by harness/lib.sh; do not source it alone.

# Kernel arguments of every TCG guest (kunit.py's too): 4 vCPUs emulated
# on a shared 2-core host go without CPU time for seconds, more than the
# RCU stall detector's 21 s and the soft-lockup detector's 20 s at worst,
# and a report about the emulator would fail the run. Both detectors stay
# on with their longest limits (RCU: 300 s; soft lockup, which only the
# debug kernels have: twice watchdog_thresh, 120 s), so that a CPU the
# kernel or a test itself keeps busy for minutes, say with interrupts
# off, is still reported.
TCG_KERNEL_ARGS="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"

# A kernel log line that fails a run, the one definition every guest and
# KUnit run uses (the benchmark's too): a warning, BUG, oops, panic,
# KASAN, UBSAN, lockdep or hung-task report, a page allocation failure,
# or any stack trace (grep -E)
KERNEL_REPORT_RE='WARNING:|BUG:|KASAN:|UBSAN:|Oops|Unable to handle kernel|general protection fault|Call trace:|Call Trace:|Kernel panic|possible recursive locking|circular locking|inconsistent lock state|lock inversion|unsafe locking scenario|INFO: task .* blocked|page allocation failure'

# kernel_reports LOG: whether LOG has a kernel report; if so, print the
# first ones with the lines that follow them, to stderr
kernel_reports() {
	grep -Eq "$KERNEL_REPORT_RE" "$1" || return 1
	grep -E -A25 "$KERNEL_REPORT_RE" "$1" | head -60 >&2
}

# debian_arm64 PKG: Debian's arm64 package PKG, fetched once with
# apt-get download (which needs arm64 among dpkg's architectures:
# harness/deps adds it) and unpacked under build/; prints where.
debian_arm64() {
	local pkg=$1 d=$BUILD/debian-arm64/$1
	if [ ! -e "$d/.done" ]; then
		dpkg --print-foreign-architectures | grep -qx arm64 ||
			die "arm64 is not among dpkg's architectures: run harness/deps"
		rm -rf "$d" && mkdir -p "$d"
		(cd "$d" && apt-get download -q "$pkg:arm64" >/dev/null &&
			dpkg-deb -x "${pkg}"_*_arm64.deb . && touch .done) ||
			die "cannot fetch Debian's $pkg:arm64 (apt-get's message above)"
	fi
	printf '%s\n' "$d"
}

# debian_riscv64 PKG: Debian's riscv64 package PKG, fetched once and
# unpacked under build/; prints where. Bookworm has no riscv64 port
# (trixie, Debian 13, is the first release with one), so it comes from
# trixie's pool, checked as apt would: the suite's InRelease against
# debian-archive-keyring (which has trixie's keys), the package index
# and the package against the hashes it signs.
DEBIAN_RISCV64_SUITE=trixie
debian_riscv64() {
	local pkg=$1 d=$BUILD/debian-riscv64 url=http://deb.debian.org/debian
	local idx=main/binary-riscv64/Packages.xz sum file
	local get=/usr/lib/apt/apt-helper
	if [ ! -e "$d/Packages" ]; then
		rm -rf "$d" && mkdir -p "$d"
		"$get" -q download-file "$url/dists/$DEBIAN_RISCV64_SUITE/InRelease" \
			"$d/InRelease" >/dev/null 2>&1 &&
			gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg \
				--output "$d/Release" "$d/InRelease" 2>/dev/null ||
			die "cannot fetch or verify $DEBIAN_RISCV64_SUITE's InRelease"
		sum=$(awk -v f="$idx" '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
			s && $3 == f { print $1 }' "$d/Release")
		[ -n "$sum" ] && "$get" -q download-file "$url/dists/$DEBIAN_RISCV64_SUITE/$idx" \
			"$d/Packages.xz" "SHA256:$sum" >/dev/null 2>&1 &&
			xz -d "$d/Packages.xz" || die "cannot fetch $DEBIAN_RISCV64_SUITE's $idx"
	fi
	if [ ! -e "$d/$pkg/.done" ]; then
		read -r file sum < <(awk -v p="$pkg" '/^Package:/ { s = $2 == p }
			s && /^Filename:/ { f = $2 } s && /^SHA256:/ { print f, $2; exit }' \
			"$d/Packages")
		rm -rf "${d:?}/$pkg" && mkdir -p "$d/$pkg"
		[ -n "${sum:-}" ] && "$get" -q download-file "$url/$file" "$d/$pkg.deb" \
			"SHA256:$sum" >/dev/null 2>&1 && dpkg-deb -x "$d/$pkg.deb" "$d/$pkg" &&
			touch "$d/$pkg/.done" || die "cannot fetch Debian's $pkg:riscv64"
	fi
	printf '%s\n' "$d/$pkg"
}

# guest_pkg ARCH PKG: where Debian's package PKG for ARCH is: / for the
# host's own (x86_64: harness/deps installs it), else unpacked under
# build/ (debian_arm64, debian_riscv64)
guest_pkg() {
	case "$1" in
	x86_64) printf '/\n' ;;
	arm64) debian_arm64 "$2" ;;
	riscv64) debian_riscv64 "$2" ;;
	*) die "no guest packages for $1" ;;
	esac
}

# guest_binary ARCH ROOT BIN DEST: a dynamically linked program of ARCH
# into the guest's ROOT at DEST, with what it loads: on x86_64 the host's
# libraries (ldd), elsewhere the loader and libc.so.6 of the
# architecture's C library (arm64: the cross toolchain's; riscv64:
# trixie's, as its other packages are) in /lib
guest_binary() {
	local arch=$1 root=$2 bin=$3 dest=$4 lib libdir
	arch_load "$arch"
	mkdir -p "$root$(dirname "$dest")"
	cp "$bin" "$root$dest"
	if [ "$arch" = x86_64 ]; then
		for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
		return
	fi
	libdir=$ARCH_LIBC
	[ "$arch" != riscv64 ] || libdir=$(guest_pkg riscv64 libc6)/usr/lib/riscv64-linux-gnu
	mkdir -p "$root/lib"
	cp -L "$libdir/$ARCH_LOADER" "$libdir/libc.so.6" "$root/lib/"
}

# Seconds the debug guests fuzz (harness/selftests --fuzz): 0, none;
# else guest_root adds trinity and auxfuzz to the root.
FUZZ_SECS=0

# guest_root ARCH TREE ROOT: bring the kernel of TREE for ARCH (built by
# kunit.py) and its modules up to date, then start the guest's root
# directory ROOT: /init (guest/init.c), the test AUX PMU module and an
# empty /tests for the programs /init runs.
guest_root() {
	local arch=$1 tree=$2 root=$3 out pkg
	out=$(kunit_out "$arch" "$tree")
	[ -f "$out/.config" ] || die "no kernel in $out; run harness/kunit $arch first"
	arch_load "$arch"
	make -C "$tree" O="$out" "${ARCH_MAKE[@]}" -s -j"$JOBS" all headers
	rm -rf "$root" && mkdir -p "$root/tests" "$root/proc" "$root/sys" "$root/dev"
	cp "$out/kernel/events/aux_test_pmu.ko" "$root/"
	guest_make "$arch" "$root" init
	# The trinity fuzzer (harness/debug): Debian's, the host's on
	# x86_64; and ours, aimed at the AUX buffers (guest/auxfuzz.c)
	if [ "$FUZZ_SECS" != 0 ]; then
		pkg=$(guest_pkg "$arch" trinity)
		guest_binary "$arch" "$root" "$pkg/usr/bin/trinity" /trinity/trinity
		guest_make "$arch" "$root" auxfuzz
	fi
}

# Seconds a guest may run before QEMU is stopped (harness/selftests
# --timeout)
GUEST_TIMEOUT=1500
# Seconds a guest's kernel may take to start /init. Past them the boot
# is taken for a stalled one (a TCG boot of 2026-12-07 hung after its
# IOMMU setup for 25 minutes, until GUEST_TIMEOUT): guest_boot stops it
# and boots once more. Boots reach /init in under a minute here, the
# debug kernels' (KASAN) in a few.
GUEST_BOOT_TIMEOUT=300

# guest_watch_boot PID RAW: wait while QEMU (PID) runs and its console
# (RAW) has not shown the kernel starting /init; fails if that took
# GUEST_BOOT_TIMEOUT seconds
guest_watch_boot() {
	local pid=$1 raw=$2 waited=0
	while kill -0 "$pid" 2>/dev/null; do
		! grep -q 'Run /init as init process' "$raw" 2>/dev/null || return 0
		[ "$waited" -lt "$GUEST_BOOT_TIMEOUT" ] || return 1
		sleep 2
		waited=$((waited + 2))
	done
}

# guest_boot ARCH TREE ROOT LOG [KERNEL ARGS...]: pack ROOT as the
# initramfs and boot the kernel of TREE for ARCH under QEMU (TCG, 4 vCPUs,
# 1 GiB) until /init reboots (QEMU, with -no-reboot, then exits); the
# serial console goes to LOG.
# Returns QEMU's status; 124 when the guest ran past GUEST_TIMEOUT
# seconds, which also ends LOG with "harness: guest timed out after N s"
# (guest_verdicts reports it as a timeout). A guest whose kernel has not
# started /init after GUEST_BOOT_TIMEOUT seconds is stopped and booted
# once more, its log kept as LOG.1; if the second boot stalls too, LOG
# ends with "harness: guest did not start /init" and the status is 125.
# QEMU runs under timeout
# --foreground, in the script's process group, so that an interrupt
# reaches it; an exiting or interrupted script stops it (on_exit).
guest_boot() {
	local arch=$1 tree=$2 root=$3 log=$4 out cmdline pid rc=0 try stalled
	shift 4
	out=$(kunit_out "$arch" "$tree")
	arch_load "$arch"
	[ -n "$ARCH_IMAGE" ] || die "no guests for $arch"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$root.cpio.gz" ||
		die "cannot pack $root"
	# kunit.enable=0: the KUnit suites run in harness/kunit, not here.
	cmdline="console=$ARCH_CONSOLE kunit.enable=0 panic=-1 oops=panic rdinit=/init"
	cmdline+=" $TCG_KERNEL_ARGS $*"
	rm -f "$log.1"
	for try in 1 2; do
		# In the background, so that a signal to this script is handled
		# at once (bash runs traps only between foreground commands)
		timeout --foreground "$GUEST_TIMEOUT" "${ARCH_QEMU[@]}" -nodefaults \
			-nographic -no-reboot -m 1024 -smp 4 -serial stdio \
			-kernel "$out/$ARCH_IMAGE" -append "$cmdline" \
			-initrd "$root.cpio.gz" < /dev/null > "$log.raw" &
		pid=$!
		on_exit stop_pid "$pid"
		stalled=
		guest_watch_boot "$pid" "$log.raw" || { stalled=1; stop_pid "$pid"; }
		rc=0
		wait "$pid" || rc=$?
		exit_pop
		tr -d '\r' < "$log.raw" > "$log"
		rm -f "$log.raw"
		[ -n "$stalled" ] || break
		if [ "$try" = 1 ]; then
			mv -f "$log" "$log.1"
			log "$arch guest did not start /init in $GUEST_BOOT_TIMEOUT s: booting once more (first log: $log.1)"
		else
			echo "harness: guest did not start /init in $GUEST_BOOT_TIMEOUT s, twice" >> "$log"
			log "$arch guest did not start /init in $GUEST_BOOT_TIMEOUT s, twice: $log"
			rc=125
		fi
	done
	if [ "$rc" = 124 ]; then
		echo "harness: guest timed out after $GUEST_TIMEOUT s" >> "$log"
		log "$arch guest timed out after $GUEST_TIMEOUT s: $log"
	fi
	return "$rc"
}

# guest_verdicts [--allow-oom] [--allow-alloc-warnings] LOG: what fails
# every guest run, whatever it ran: a timeout (guest_boot), a boot that
# stalled twice before /init (guest_boot), a guest that did not finish ("guest: done N", guest/init.c) or whose programs
# failed (N > 0), a kernel report. Prints
# "TIMEOUT: ..." or "FAIL: ..." lines, and returns 1 if there was any.
# With --allow-oom (the benchmark, whose fragmented and pressure states
# may bring the OOM killer: it counts the kills, and its report judges
# them), the OOM killer's own report (from "invoked oom-killer" to "Out
# of memory: Killed process") is not a kernel report; with
# --allow-alloc-warnings (the benchmark's base kernel, whose AUX page
# array is a kcalloc() that warns when fragmented memory has no block
# for it: what the series changes, counted as a failed mmap()), nor is
# a page allocation failure's report (to its "pages reserved" line).
guest_verdicts() {
	local log bad=0 allow_oom='' allow_alloc=''
	while :; do
		case "$1" in
		--allow-oom) allow_oom=1; shift ;;
		--allow-alloc-warnings) allow_alloc=1; shift ;;
		*) break ;;
		esac
	done
	log=$1
	if grep -q '^harness: guest timed out' "$log"; then
		printf 'TIMEOUT: %s\n' "$(grep '^harness: guest timed out' "$log")" >&2
		bad=1
	elif grep -q '^harness: guest did not start /init' "$log"; then
		printf 'FAIL: %s (%s)\n' "$(grep '^harness: guest did not start' "$log" | cut -c10-)" "$log" >&2
		bad=1
	elif ! grep -q '^guest: done ' "$log"; then
		printf 'FAIL: the guest did not finish (%s)\n' "$log" >&2
		bad=1
	elif ! grep -q '^guest: done 0$' "$log"; then
		printf 'FAIL: %s of the guest'"'"'s programs failed (%s)\n' \
			"$(sed -n 's/^guest: done //p' "$log" | head -1)" "$log" >&2
		bad=1
	fi
	if [ -n "$allow_oom$allow_alloc" ]; then
		# a report ends at its last line, or at the guest's own output
		awk -v oom="$allow_oom" -v alloc="$allow_alloc" '
		     skip && /^(bench|guest): / { skip = "" }
		     oom && /invoked oom-killer/ { skip = "oom" }
		     alloc && /page allocation failure: / { skip = "alloc" }
		     !skip { print }
		     skip == "oom" && /Out of memory: Killed process/ { skip = "" }
		     skip == "alloc" && / pages reserved$/ { skip = "" }' \
			"$log" > "$log.allowed"
		log=$log.allowed
	fi
	if kernel_reports "$log"; then
		printf 'FAIL: the kernel log has a report, above (%s)\n' "$1" >&2
		bad=1
	fi
	[ -z "$allow_oom$allow_alloc" ] || rm -f "$log"
	return "$bad"
}
