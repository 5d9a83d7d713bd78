# shellcheck shell=bash
# shellcheck disable=SC2034
# Building: the kernels' build directories, the architectures, the guest programs and the selftests. Sourced by harness/lib.sh; do not source it alone.

# O= directory of the KUnit kernel for ARCH built from TREE; the selftest
# guest boots the same kernel. It is inside TREE (.kunit-ARCH, ignored by
# the kernel's .gitignore), at the same place in every tree, so that the
# ccache (which hashes paths relative to the build directory) hits across
# trees: a commit of build/before, or a mutant in build/mutant, whose
# sources and config are the test tree's for most files compiles only
# the files that differ.
# KVARIANT (set by a script's --variant flag, not from the environment)
# is debug: the debug kernel (harness/configs/debug.config), in a
# directory of its own; kasan: the same with KASAN (kasan.config); 16k:
# arm64 with 16 KiB pages (16k.config, harness/bench); 64k: with 64 KiB
# pages (64k.config, harness/test --full); posted: the posted
# .kunitconfig files alone (harness/kunit --posted); modules: KUnit and
# the suites as modules (harness/kunit --variant modules).
KVARIANT=

kunit_out() {
	local arch=$1 tree=$2 v=${KVARIANT:+-$KVARIANT}
	printf '%s\n' "$tree/.kunit$v-$arch"
}

# kbuild_configure ARCH TREE OUT [--fresh] [FRAGMENT...]: OUT's .config
# for ARCH (arch_load'ed): ARCH_DEFCONFIG (unless OUT has a .config and
# --fresh is not given), then the build check's options
# (harness/configs/build-check.config and build-check-ARCH.config) and
# the FRAGMENTs, merged with the kernel's merge_config.sh, then
# olddefconfig. Shared by harness/build-check and harness/kmi-layout.
kbuild_configure() {
	local arch=$1 tree=$2 out=$3 fresh=
	shift 3
	if [ "${1:-}" = --fresh ]; then fresh=1; shift; fi
	local mk=(make -C "$tree" O="$out" "${ARCH_MAKE[@]}" -s)
	local frags=("$TOP/harness/configs/build-check.config")

	[ ! -f "$TOP/harness/configs/build-check-$arch.config" ] ||
		frags+=("$TOP/harness/configs/build-check-$arch.config")
	frags+=("$@")
	mkdir -p "$out"
	if [ -n "$fresh" ] || [ ! -f "$out/.config" ]; then
		"${mk[@]}" "$ARCH_DEFCONFIG" >/dev/null
	fi
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "${frags[@]}" >/dev/null)
	"${mk[@]}" olddefconfig >/dev/null
}

# ---- Architectures ----
# arch_load ARCH: the one place that knows an architecture (as kunit.py's
# qemu_configs do). Sets:
#   ARCH_MAKE     make's ARCH= (and CROSS_COMPILE=) arguments, an array
#   ARCH_CROSS    the cross-compiler prefix ("" for the host's)
#   ARCH_SRC      the kernel's arch/ directory
#   ARCH_KUNIT    kunit.py's --arch
#   ARCH_IMAGE    the kernel image in the build directory
#   ARCH_QEMU     QEMU with its machine, CPU and firmware, an array
#   ARCH_CONSOLE  the serial console the guest's kernel writes to
#   ARCH_LIBC     the cross C library's lib/ (the guests' loader and libc)
#   ARCH_LOADER   the dynamic loader's name in it
#   ARCH_DEFCONFIG  the configuration harness/build-check starts from
# x86_64, arm64 and riscv64 boot guests; i386 (no huge vmalloc()
# mappings) and arm-nommu (no MMU) are harness/build-check's only.
arch_load() {
	ARCH_CROSS='' ARCH_IMAGE='' ARCH_CONSOLE='' ARCH_LIBC='' ARCH_LOADER=''
	ARCH_DEFCONFIG=defconfig ARCH_QEMU=()
	case "$1" in
	x86_64)
		ARCH_SRC=x86 ARCH_KUNIT=x86_64
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_CONSOLE=ttyS0
		ARCH_QEMU=(qemu-system-x86_64 -bios qboot.rom) ;;
	arm64)
		ARCH_SRC=arm64 ARCH_KUNIT=arm64 ARCH_CROSS=aarch64-linux-gnu-
		ARCH_IMAGE=arch/arm64/boot/Image.gz ARCH_CONSOLE=ttyAMA0
		ARCH_LIBC=/usr/aarch64-linux-gnu/lib ARCH_LOADER=ld-linux-aarch64.so.1
		# -cpu takes its properties after commas
		# shellcheck disable=SC2054
		ARCH_QEMU=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on) ;;
	riscv64)
		# the kernel's ARCH=riscv
		ARCH_SRC=riscv ARCH_KUNIT=riscv ARCH_CROSS=riscv64-linux-gnu-
		ARCH_IMAGE=arch/riscv/boot/Image ARCH_CONSOLE=ttyS0
		ARCH_LOADER=ld-linux-riscv64-lp64d.so.1	# trixie's (debian_riscv64)
		ARCH_QEMU=(qemu-system-riscv64 -machine virt -cpu rv64
			   -bios /usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin) ;;
	i386) ARCH_SRC=x86 ARCH_KUNIT='' ;;
	arm-nommu)
		ARCH_SRC=arm ARCH_KUNIT='' ARCH_CROSS=arm-linux-gnueabi-
		ARCH_DEFCONFIG=mps2_defconfig ;;
	*) die "unknown arch $1" ;;
	esac
	ARCH_MAKE=("ARCH=$ARCH_SRC")
	[ "$1" != x86_64 ] || ARCH_MAKE=(ARCH=x86_64)
	[ "$1" != i386 ] || ARCH_MAKE=(ARCH=i386)
	[ -z "$ARCH_CROSS" ] || ARCH_MAKE+=("CROSS_COMPILE=$ARCH_CROSS")
}

# guest_make ARCH OUT PROG...: build the guest's static programs
# (harness/guest/Makefile: init, auxfuzz, bench, fragment) for ARCH into OUT
guest_make() {
	local arch=$1 out=$2
	shift 2
	arch_load "$arch"
	make -s -C "$TOP/harness/guest" OUT="$out" CROSS_COMPILE="$ARCH_CROSS" "$@"
}

# selftests_build ARCH TREE OUT: the perf_events selftests, static, built
# against the headers of TREE's kernel for ARCH, into OUT
selftests_build() {
	local arch=$1 tree=$2 out=$3
	arch_load "$arch"
	mkdir -p "$out"
	make -C "$tree/tools/testing/selftests/perf_events" -s "${ARCH_MAKE[@]}" \
		OUTPUT="$out" KHDR_INCLUDES="-isystem $(kunit_out "$arch" "$tree")/usr/include" \
		LDFLAGS=-static
}
