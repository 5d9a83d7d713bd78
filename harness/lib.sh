# shellcheck shell=bash
# The settings below are read by the scripts that source this file:
# shellcheck disable=SC2034
# Common settings for the harness scripts. Source it; do not run it.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}

# The base the series applies to, and everything that follows from it.
# This is the one place that resolves a base; every script takes it from
# BASE (mainline unless said otherwise):
#   mainline  Linux 7.1.5, the tarball BASE_TARBALL, else
#             ../shared/base/linux-7.1.5.tar.xz beside the project; the
#             series sent upstream: patches/
#   6.12      Debian's linux-source-6.12 (the newest 6.12.y Debian ships),
#             the backport for Android's GKI kernels: patches/6.12/
# BASE_SUFFIX tells the per-base directories under build/ apart.
BASE=${BASE:-mainline}
case "$BASE" in
mainline)
	BASE_VERSION=7.1.5
	BASE_PKG=
	BASE_TOPDIR=linux-$BASE_VERSION	# what the tarball unpacks to
	if [ -z "${BASE_TARBALL:-}" ]; then
		BASE_TARBALL=$(cd "$TOP/.." && pwd)/shared/base/linux-$BASE_VERSION.tar.xz
		[ -f "$BASE_TARBALL" ] || BASE_TARBALL=
	fi
	PATCHES=$TOP/patches
	SUBJECT_PREFIX="PATCH v4"
	# The commit of the v7.1.5 release in linux-stable: what the tarball
	# holds, and the base-commit the cover letters name.
	BASE_COMMIT=155b42bec9cbb6b8cdc47dd9bd09503a81fbe493
	BASE_SUFFIX=
	;;
6.12)
	BASE_PKG=linux-source-6.12
	BASE_TOPDIR=$BASE_PKG
	BASE_TARBALL=/usr/src/$BASE_PKG.tar.xz
	PATCHES=$TOP/patches/6.12
	SUBJECT_PREFIX="PATCH 6.12.y v4"
	BASE_COMMIT=	# Debian's source package: no upstream commit names it
	BASE_SUFFIX=-6.12
	;;
*)
	printf 'error: unknown BASE=%s (mainline or 6.12)\n' "$BASE" >&2
	exit 1 ;;
esac
export BASE
TREE=${TREE:-$BUILD/linux$BASE_SUFFIX}	# the developer's tree: edit and commit here
TESTTREE=$BUILD/test$BASE_SUFFIX		# worktree the test command checks out

# ccache wrappers for gcc and aarch64-linux-gnu-gcc, and
# Debian's python3 (with python3-ply for checkpatch) before any other.
export PATH=/usr/lib/ccache:/usr/bin:$PATH
# The ccache lives where ccache keeps it by default (~/.cache/ccache),
# outside the clone, so that a machine that built the series before is
# warm, as a CI cache would be; CCACHE_DIR overrides it. Paths under the
# clone are hashed relative to it, so that a clone in another folder (CI's)
# hits what this one built.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
JOBS=${JOBS:-$(nproc)}

# Commits are made with the identity the machine's git configures; only
# fall back to a neutral one when none is configured at all.
git_identity() {
	git config user.name >/dev/null 2>&1 ||
		export GIT_AUTHOR_NAME=harness GIT_COMMITTER_NAME=harness
	git config user.email >/dev/null 2>&1 ||
		export GIT_AUTHOR_EMAIL=harness@localhost GIT_COMMITTER_EMAIL=harness@localhost
	return 0
}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian version of the installed base package, e.g. 6.12.118-1~deb12u1
base_pkg_version() {
	dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null
}

# Tag of the base commit: base/v7.1.5 for mainline; for 6.12, one per
# Debian package version, e.g. base/6.12.118-1_deb12u1
base_tag() {
	local v
	if [ -z "$BASE_PKG" ]; then
		printf 'base/v%s\n' "$BASE_VERSION"
		return
	fi
	v=$(base_pkg_version) || die "$BASE_PKG is not installed (run harness/deps)"
	printf 'base/%s\n' "$(printf '%s' "$v" | tr '~:' '_.')"
}

# One line saying what the base is, for logs and reports
base_describe() {
	if [ -z "$BASE_PKG" ]; then
		printf 'Linux %s (%s)\n' "$BASE_VERSION" "${BASE_TARBALL:-no tarball}"
	else
		printf '%s %s\n' "$BASE_PKG" "$(base_pkg_version)"
	fi
}

# The base tarball, or stop and say where to get it
base_tarball() {
	[ -n "$BASE_TARBALL" ] && [ -f "$BASE_TARBALL" ] && { printf '%s\n' "$BASE_TARBALL"; return; }
	[ -z "$BASE_PKG" ] || die "$BASE_TARBALL is missing: run harness/deps (it installs $BASE_PKG)"
	die "no Linux $BASE_VERSION tarball: download linux-$BASE_VERSION.tar.xz from
https://cdn.kernel.org/pub/linux/kernel/v${BASE_VERSION%%.*}.x/ and run with BASE_TARBALL=/path/to/linux-$BASE_VERSION.tar.xz
(in this project's environment it is ../shared/base/linux-$BASE_VERSION.tar.xz)"
}

# The series of the base, in the order they apply, one per line:
# DIRECTORY PREFIX. With a file "order", PATCHES holds one directory per
# series, listed there in order with its subject prefix ("-": applied by
# the harness, never posted); without one, PATCHES itself is the one
# series (the 6.12 backport).
series_dirs() {
	local d prefix
	if [ ! -f "$PATCHES/order" ]; then
		printf '%s %s\n' "$PATCHES" "$SUBJECT_PREFIX"
		return
	fi
	while read -r d prefix; do
		case "$d" in ''|'#'*) continue ;; esac
		[ -n "$prefix" ] || die "$PATCHES/order: no subject prefix for $d"
		printf '%s %s\n' "$PATCHES/$d" "$prefix"
	done < "$PATCHES/order"
}

# The patches of all series, in order, as absolute paths
series_files() {
	local d p dirs
	mapfile -t dirs < <(series_dirs | cut -d' ' -f1)
	[ "${#dirs[@]}" -gt 0 ] || die "$PATCHES/order lists no series"
	for d in "${dirs[@]}"; do
		[ -f "$d/series" ] || die "missing $d/series"
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			[ -f "$d/$p" ] || die "$d/series lists missing file $p"
			printf '%s\n' "$d/$p"
		done < "$d/series"
	done
}

# Patch-ids of the series files, in order (whitespace counts)
series_patch_ids() {
	local f
	series_files | while read -r f; do
		git patch-id --verbatim < "$f" | awk '{print $1}'
	done
}

# Patch-ids of the commits base..HEAD of a tree, in order (whitespace counts)
tree_patch_ids() {
	local tree=$1 base=$2 c
	git -C "$tree" rev-list --reverse "$base..HEAD" | while read -r c; do
		git -C "$tree" show --format= "$c" | git patch-id --verbatim | awk '{print $1}'
	done
}

# Copy the first N lines of stdin (all of them when N is empty); reads
# everything, so the writer never gets SIGPIPE.
first_n() {
	awk -v n="${1:-}" 'n == "" || NR <= n + 0'
}

# git am the series (or its first N patches) on top of a tree's HEAD
apply_series() {
	local tree=$1 n=${2:-}
	local files
	mapfile -t files < <(series_files | first_n "$n")
	[ "${#files[@]}" -gt 0 ] || return 0
	git_identity
	if ! git -C "$tree" am --quiet --keep-cr --whitespace=error-all "${files[@]}"; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		die "the series in $PATCHES does not apply to $(base_tag)"
	fi
}

# O= directory of the KUnit kernel for ARCH built from TREE; the selftest
# guest boots the same kernel. It is inside TREE (.kunit-ARCH, ignored by
# the kernel's .gitignore), at the same place in every tree, so that the
# ccache (which hashes paths relative to the build directory) hits across
# trees: a commit of build/before, or a mutant in build/mutant, whose
# sources and config are the test tree's for most files compiles only
# the files that differ.
# KVARIANT=debug: the debug kernel (harness/configs/debug.config), in a
# directory of its own; KVARIANT=kasan: the same with KASAN (kasan.config);
# KVARIANT=16k: arm64 with 16 KiB pages (16k.config, harness/bench);
# KVARIANT=64k: with 64 KiB pages (64k.config, harness/test --full).
kunit_out() {
	local arch=$1 tree=$2 v=${KVARIANT:+-$KVARIANT}
	printf '%s\n' "$tree/.kunit$v-$arch"
}

# Kernel arguments of every TCG guest (kunit.py's too): 4 vCPUs emulated
# on a shared 2-core host go without CPU time for seconds, more than the
# RCU stall detector's 21 s and the soft-lockup detector's 20 s at worst,
# and a report about the emulator would fail the run. Both detectors stay
# on with their longest limits (RCU: 300 s; soft lockup, which only the
# debug kernels have: twice watchdog_thresh, 120 s), so that a CPU the
# kernel or a test itself keeps busy for minutes, say with interrupts
# off, is still reported.
TCG_KERNEL_ARGS="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"

# A kernel log line that fails a run: a warning, BUG, oops, panic, KASAN,
# lockdep or hung-task report, or any stack trace (grep -E)
KERNEL_REPORT_RE='WARNING:|BUG:|KASAN:|Oops|Call trace:|Call Trace:|Kernel panic|possible recursive locking|circular locking|inconsistent lock state|lock inversion|unsafe locking scenario|INFO: task .* blocked'

# kernel_reports LOG: whether LOG has a kernel report; if so, print the
# first ones with the lines that follow them, to stderr
kernel_reports() {
	grep -Eq "$KERNEL_REPORT_RE" "$1" || return 1
	grep -E -A25 "$KERNEL_REPORT_RE" "$1" | head -60 >&2
}

# selftests_build ARCH TREE OUT: the perf_events selftests, static, built
# against the headers of TREE's kernel for ARCH, into OUT
selftests_build() {
	local arch=$1 tree=$2 out=$3 mk
	read -r -a mk <<< "$(arch_make_args "$arch")"
	mkdir -p "$out"
	make -C "$tree/tools/testing/selftests/perf_events" -s "${mk[@]}" \
		OUTPUT="$out" KHDR_INCLUDES="-isystem $(kunit_out "$arch" "$tree")/usr/include" \
		LDFLAGS=-static
}

# Config lines (CONFIG_X=y) of the given fragments, comments dropped
config_lines() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@"
}

# make arguments for building for ARCH (i386 and arm-nommu only for
# harness/build-check: an architecture without huge vmalloc() mappings,
# and one without an MMU, where perf builds too)
arch_make_args() {
	case "$1" in
	x86_64) echo ARCH=x86_64 ;;
	arm64) echo ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- ;;
	riscv64) echo ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- ;;
	i386) echo ARCH=i386 ;;
	arm-nommu) echo ARCH=arm CROSS_COMPILE=arm-linux-gnueabi- ;;
	*) die "unknown arch $1" ;;
	esac
}

# The config fragments of KVARIANT, if any
variant_configs() {
	case "${KVARIANT:-}" in
	'') ;;
	debug) echo "$TOP/harness/configs/debug.config" ;;
	kasan) echo "$TOP/harness/configs/debug.config $TOP/harness/configs/kasan.config" ;;
	16k) echo "$TOP/harness/configs/16k.config" ;;
	64k) echo "$TOP/harness/configs/64k.config" ;;
	posted) ;;
	*) die "unknown KVARIANT $KVARIANT" ;;
	esac
}

# kunit.py's --arch for ARCH (riscv64 is the kernel's ARCH=riscv)
kunit_arch() {
	case "$1" in
	riscv64) echo riscv ;;
	*) echo "$1" ;;
	esac
}

# Arguments of kunit.py (run or build) for ARCH and TREE, one per line:
# the series' KUnit suites plus what the guests booting the same kernel
# need (harness/configs/guest.config, the perf_events selftests' config).
# With KUNIT_CONFIG_TREE set, the perf events' .kunitconfig and selftest
# config are that tree's (the test tree's) instead of TREE's own: the
# benchmark's "before" kernel and harness/bisect-fragmented's earlier
# commits (TREE at or after the test patches) then have the test
# kernel's config, so a comparison has the same config on both sides
# and only what the commit changes is compiled again (config changes
# would rebuild much of the kernel: fault injection, for one).
kunit_args() {
	local arch=$1 tree=$2 opt ct=${KUNIT_CONFIG_TREE:-$2}
	# kunit.py names riscv64 by its kernel's ARCH
	printf '%s\n' --arch="$(kunit_arch "$arch")" --build_dir="$(kunit_out "$arch" "$tree")" \
		--jobs="$JOBS" --kunitconfig="$ct/kernel/events/.kunitconfig"
	# mm's suite for huge vmap() mappings (series mm-vmap), where the
	# tree has it: from its posted .kunitconfig (before that file, the
	# option alone)
	if grep -q '^config VMAP_HUGE_KUNIT_TEST' "$tree/mm/Kconfig"; then
		if [ -f "$ct/mm/tests/.kunitconfig" ]; then
			printf '%s\n' --kunitconfig="$ct/mm/tests/.kunitconfig"
		else
			printf '%s\n' --kconfig_add=CONFIG_VMAP_HUGE_KUNIT_TEST=y
		fi
	fi
	# KVARIANT=posted (harness/kunit --posted): the posted .kunitconfig
	# files alone, as upstream CI runs them: no guest, no extra option
	if [ "${KVARIANT:-}" = posted ]; then
		case "$arch" in
		arm64) printf '%s\n' --cross_compile=aarch64-linux-gnu-
		       [ ! -f "$tree/drivers/hwtracing/coresight/.kunitconfig" ] ||
				printf '%s\n' --kunitconfig=drivers/hwtracing/coresight/.kunitconfig ;;
		riscv64) printf '%s\n' --cross_compile=riscv64-linux-gnu- ;;
		esac
		return
	fi
	# variant_configs prints one file name a word, to be split
	# shellcheck disable=SC2046
	while read -r opt; do
		printf '%s\n' --kconfig_add="$opt"
	done < <(config_lines "$TOP/harness/configs/guest.config" \
		"$ct/tools/testing/selftests/perf_events/config" \
		$(variant_configs))
	case "$arch" in
	x86_64) ;;
	arm64)
		printf '%s\n' --cross_compile=aarch64-linux-gnu-
		# CoreSight's suite (the perf sink checks of cs_etm), where
		# the tree has its .kunitconfig
		[ ! -f "$tree/drivers/hwtracing/coresight/.kunitconfig" ] ||
			printf '%s\n' --kunitconfig=drivers/hwtracing/coresight/.kunitconfig
		# A pageblock smaller than a PMD block (with THP, which the
		# guests have, they are the same size unless this limit says
		# otherwise), so that
		# an AUX order taken from pageblock_order fails (mainline; 6.12
		# has no such option)
		! grep -q '^config PAGE_BLOCK_MAX_ORDER' "$tree/mm/Kconfig" ||
			printf '%s\n' --kconfig_add=CONFIG_PAGE_BLOCK_MAX_ORDER=7
		;;
	riscv64) printf '%s\n' --cross_compile=riscv64-linux-gnu- ;;
	*) die "unknown arch $arch" ;;
	esac
}

# C compiler for static guest programs of ARCH
guest_cc() {
	case "$1" in
	x86_64) echo gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	riscv64) echo riscv64-linux-gnu-gcc ;;
	*) die "unknown arch $1" ;;
	esac
}

# Debian's arm64 trinity (for arm64 debug guests; it needs only libc,
# which the cross toolchain's libc6-arm64-cross has): fetched once with
# apt-get download, which needs arm64 among dpkg's architectures, and
# unpacked under build/. Prints the binary's path.
trinity_arm64() {
	printf '%s\n' "$(debian_arm64 trinity)/usr/bin/trinity"
}

# debian_arm64 PKG: Debian's arm64 package PKG, fetched once with
# apt-get download (which needs arm64 among dpkg's architectures) and
# unpacked under build/; prints where.
debian_arm64() {
	local pkg=$1 d=$BUILD/debian-arm64/$1
	if [ ! -e "$d/.done" ]; then
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			dpkg --add-architecture arm64 && apt-get update -q >/dev/null ||
				die "cannot add arm64 to dpkg's architectures"
		fi
		rm -rf "$d" && mkdir -p "$d"
		(cd "$d" && apt-get download -q "$pkg:arm64" >/dev/null 2>&1 &&
			dpkg-deb -x "${pkg}"_*_arm64.deb . && touch .done) ||
			die "cannot fetch Debian's $pkg:arm64"
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

# runner_root ARCH TREE ROOT: what the kselftest runner needs in the
# guest's initramfs ROOT: the perf_events selftests installed as
# run_kselftest.sh expects them (/kselftest), a shell and its tools
# (Debian's static busybox), GNU timeout (which the runner needs for
# its --foreground), and the kernel's modules for modprobe.
runner_root() {
	local arch=$1 tree=$2 root=$3 out mk bb a lib
	out=$(kunit_out "$arch" "$tree")
	read -r -a mk <<< "$(arch_make_args "$arch")"
	make -C "$tree/tools/testing/selftests" -s "${mk[@]}" TARGETS=perf_events \
		KHDR_INCLUDES="-isystem $out/usr/include" LDFLAGS=-static \
		O="$root.kselftest-build" INSTALL_PATH="$root/kselftest" install >/dev/null
	make -C "$tree" O="$out" "${mk[@]}" -s INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_STRIP=1 modules_install >/dev/null
	mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/tmp"
	case "$arch" in
	x86_64)
		bb=/bin/busybox
		cp /usr/bin/timeout "$root/usr/bin/"
		for lib in $(ldd /usr/bin/timeout | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done ;;
	arm64)
		bb=$(debian_arm64 busybox-static)/bin/busybox
		lib=$(debian_arm64 coreutils)
		cp "$lib/usr/bin/timeout" "$root/usr/bin/"
		mkdir -p "$root/lib"
		cp -L /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 \
			/usr/aarch64-linux-gnu/lib/libc.so.6 "$root/lib/" ;;
	riscv64)
		# trixie's, with trixie's C library for timeout
		bb=$(debian_riscv64 busybox-static)/usr/bin/busybox
		lib=$(debian_riscv64 coreutils)
		cp "$lib/usr/bin/timeout" "$root/usr/bin/"
		lib=$(debian_riscv64 libc6)/usr/lib/riscv64-linux-gnu
		mkdir -p "$root/lib"
		cp -L "$lib/ld-linux-riscv64-lp64d.so.1" "$lib/libc.so.6" "$root/lib/" ;;
	esac
	cp "$bb" "$root/bin/busybox"
	# every applet the host's busybox has (the same Debian version; for
	# riscv64 an older one), where a system has it, but not over GNU
	# timeout
	for a in $(busybox --list-full); do
		[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
	done
}

# guest_root ARCH TREE ROOT: bring the kernel of TREE for ARCH (built by
# kunit.py) and its modules up to date, then start the guest's root
# directory ROOT: /init (guest/init.c), the test AUX PMU module and an
# empty /tests for the programs /init runs.
guest_root() {
	local arch=$1 tree=$2 root=$3 out mk
	out=$(kunit_out "$arch" "$tree")
	[ -f "$out/.config" ] || die "no kernel in $out; run harness/kunit $arch first"
	read -r -a mk <<< "$(arch_make_args "$arch")"
	make -C "$tree" O="$out" "${mk[@]}" -s -j"$JOBS" all headers
	rm -rf "$root" && mkdir -p "$root/tests" "$root/proc" "$root/sys" "$root/dev"
	cp "$out/kernel/events/aux_test_pmu.ko" "$root/"
	"$(guest_cc "$arch")" -static -O2 -Wall -o "$root/init" "$TOP/harness/guest/init.c"
	# The trinity fuzzer (harness/debug), with its loader and libraries:
	# on x86_64 the host's binary, on arm64 Debian's arm64 one.
	if [ "${TRINITY_SECS:-0}" != 0 ]; then
		local bin lib
		mkdir -p "$root/trinity"
		case "$arch" in
		x86_64)
			bin=$(command -v trinity) || die "no trinity: apt-get install trinity"
			cp "$bin" "$root/trinity/"
			for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
				mkdir -p "$root$(dirname "$lib")"
				cp -L "$lib" "$root$lib"
			done ;;
		arm64)
			cp "$(trinity_arm64)" "$root/trinity/"
			mkdir -p "$root/lib"
			cp -L /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 \
				/usr/aarch64-linux-gnu/lib/libc.so.6 "$root/lib/" ;;
		esac
		# and ours, aimed at the AUX buffers (guest/auxfuzz.c)
		"$(guest_cc "$arch")" -static -O2 -Wall -o "$root/auxfuzz" \
			"$TOP/harness/guest/auxfuzz.c"
	fi
}

# guest_boot ARCH TREE ROOT LOG [KERNEL ARGS...]: pack ROOT as the
# initramfs and boot the kernel of TREE for ARCH under QEMU (TCG, 4 vCPUs,
# 1 GiB) until /init reboots; the serial console goes to LOG.
guest_boot() {
	local arch=$1 tree=$2 root=$3 log=$4 out kernel cmdline
	local -a qemu
	shift 4
	out=$(kunit_out "$arch" "$tree")
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$root.cpio.gz"
	# kunit.enable=0: the KUnit suites run in harness/kunit, not here.
	cmdline="kunit.enable=0 panic=-1 oops=panic rdinit=/init $TCG_KERNEL_ARGS $*"
	case "$arch" in
	x86_64)
		qemu=(qemu-system-x86_64 -bios qboot.rom -append "console=ttyS0 $cmdline")
		kernel=$out/arch/x86/boot/bzImage ;;
	arm64)
		# -cpu takes its properties after commas
		# shellcheck disable=SC2054
		qemu=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on
		      -append "console=ttyAMA0 $cmdline")
		kernel=$out/arch/arm64/boot/Image.gz ;;
	riscv64)
		qemu=(qemu-system-riscv64 -machine virt -cpu rv64
		      -bios /usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin
		      -append "console=ttyS0 $cmdline")
		kernel=$out/arch/riscv/boot/Image ;;
	*) die "unknown arch $arch" ;;
	esac
	timeout "${GUEST_TIMEOUT:-1500}" "${qemu[@]}" -nodefaults -nographic -no-reboot \
		-m 1024 -smp 4 -serial stdio -kernel "$kernel" \
		-initrd "$root.cpio.gz" < /dev/null | tr -d '\r' > "$log" || true
}
