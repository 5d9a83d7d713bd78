# shellcheck shell=bash
# shellcheck disable=SC2034
# The base and its series: which base, its tag, the series files in order, applying them. Sourced by harness/lib.sh; do not source it alone.

# ---- The base ----
# base_load [BASE]: resolve a base (default: $BASE, else mainline) and
# set everything that follows from it. Scripts call it; sourcing this
# file loads none, and a script that works on both bases loads each in
# turn.
#   mainline  Linux 7.1.5, the tarball ../shared/base/linux-7.1.5.tar.xz
#             beside the project, else build/linux-7.1.5.tar.xz; the
#             series sent upstream: patches/
#   6.12      Debian's linux-source-6.12 (the newest 6.12.y Debian ships),
#             the backport for Android's GKI kernels: patches/6.12/
# BASE_SUFFIX tells the per-base directories under build/ apart. TREE is
# the developer's tree (edit and commit there), TESTTREE the one the
# test command checks out.
# The Debian package of the 6.12 base (harness/deps installs it always)
BACKPORT_PKG=linux-source-6.12
base_load() {
	BASE=${1:-${BASE:-mainline}}
	case "$BASE" in
	mainline)
		BASE_VERSION=7.1.5
		BASE_PKG=
		BASE_TOPDIR=linux-$BASE_VERSION	# what the tarball unpacks to
		BASE_TARBALL=$(cd "$TOP/.." && pwd)/shared/base/linux-$BASE_VERSION.tar.xz
		[ -f "$BASE_TARBALL" ] || BASE_TARBALL=$BUILD/linux-$BASE_VERSION.tar.xz
		PATCHES=$TOP/patches
		SUBJECT_PREFIX="PATCH v4"
		# The commit of the v7.1.5 release in linux-stable: what the
		# tarball holds, and the base-commit the cover letters name.
		BASE_COMMIT=155b42bec9cbb6b8cdc47dd9bd09503a81fbe493
		BASE_SUFFIX=
		;;
	6.12)
		BASE_VERSION=
		BASE_PKG=$BACKPORT_PKG
		BASE_TOPDIR=$BASE_PKG
		BASE_TARBALL=/usr/src/$BASE_PKG.tar.xz
		PATCHES=$TOP/patches/6.12
		SUBJECT_PREFIX="PATCH 6.12.y v4"
		BASE_COMMIT=	# Debian's source package: no upstream commit names it
		BASE_SUFFIX=-6.12
		;;
	*)
		die "unknown BASE=$BASE (mainline or 6.12)" ;;
	esac
	export BASE
	TREE=$BUILD/linux$BASE_SUFFIX
	TESTTREE=$BUILD/test$BASE_SUFFIX
	[ "$SERIES_CHECK" = 0 ] || series_check
}
# harness/export, which rewrites the series files, sets it to 0
SERIES_CHECK=1

# series_check: stop, in the calling shell, if PATCHES' series files are
# not all there. series_dirs and series_files run in pipes and <(...),
# where their die ends only a subshell; checked here first, they cannot
# fail there.
series_check() {
	local files

	files=$(series_dirs) || exit 1
	files=$(series_files) || exit 1
	[ -n "$files" ] || die "$PATCHES holds no patch"
}

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
		printf 'Linux %s (%s)\n' "$BASE_VERSION" \
			"$([ -f "$BASE_TARBALL" ] && echo "$BASE_TARBALL" || echo "no tarball at $BASE_TARBALL")"
	else
		printf '%s %s\n' "$BASE_PKG" "$(base_pkg_version)"
	fi
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

# may_remake DIR [MAIN]: DIR is something the harness may remove and make
# again: missing, an empty directory, the top of a git tree harness/tree
# made (it has a base/* tag), or a worktree of MAIN. Anything else (a
# kernel clone of one's own, a subdirectory, a file) is not.
may_remake() {
	local top entries

	[ -e "$1" ] || return 0
	[ -d "$1" ] || return 1
	entries=$(ls -A -- "$1") || return 1
	[ -n "$entries" ] || return 0
	if [ -n "${2:-}" ] && [ -f "$1/.git" ] &&
	   grep -qF "gitdir: $(abs_path "$2")/.git/worktrees/" "$1/.git"; then
		return 0
	fi
	top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) || return 1
	[ "$(abs_path "$top")" = "$(abs_path "$1")" ] &&
		[ -n "$(git -C "$1" tag -l 'base/*')" ]
}

# base_check_requires TREE REV: fail unless the base at REV has every
# commit $PATCHES/requires names (an upstream commit, its backport, a
# file and a grep -E pattern of a line the commit put there), saying
# which is missing. No requires file: nothing to check.
base_check_requires() {
	local tree=$1 rev=$2 up bp file re missing=0
	[ -f "$PATCHES/requires" ] || return 0
	local rc
	while read -r up bp file re || [ -n "$up" ]; do
		case "$up" in ''|'#'*) continue ;; esac
		[ -n "$re" ] || die "$PATCHES/requires: a line without its pattern: $up"
		rc=0
		git -C "$tree" grep -qE -e "$re" "$rev" -- "$file" || rc=$?
		case $rc in
		0) ;;
		1)	log "the base lacks $up (its backport: $bp): no line of $file matches $re"
			missing=1 ;;
		*)	die "$PATCHES/requires: git grep failed on $up's line ($file, $re)" ;;
		esac
	done < "$PATCHES/requires"
	[ "$missing" = 0 ] || die "$(base_tag) is too old for the series in $PATCHES (its requires file)"
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

# before_count: how many patches of the base's series the benchmark's
# "before" kernel has: those up to the one that adds the AUX selftests
# (tools/testing/selftests/perf_events/aux_mmap.c), so that the base's
# own policies can be measured and tested with the series' test PMU.
# harness/bench and harness/bisect-fragmented both start from it.
before_count() {
	local i=0 f
	while read -r f; do
		i=$((i + 1))
		if grep -q '^+++ b/tools/testing/selftests/perf_events/aux_mmap\.c$' "$f"; then
			printf '%s\n' "$i"
			return
		fi
	done < <(series_files)
	die "no patch of $PATCHES adds the AUX selftests (aux_mmap.c)"
}
