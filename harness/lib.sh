# shellcheck shell=bash
# Common settings for the harness scripts. Source it; do not run it.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
PATCHES=$TOP/patches
TREE=${TREE:-$BUILD/linux}	# the developer's tree: edit and commit here
TESTTREE=$BUILD/test		# worktree the test command checks out
BASE_PKG=linux-source-6.12
BASE_TARBALL=/usr/src/$BASE_PKG.tar.xz

# ccache wrappers for gcc and aarch64-linux-gnu-gcc, and
# Debian's python3 (with python3-ply for checkpatch) before any other.
export PATH=/usr/lib/ccache:/usr/bin:$PATH
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
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

# Tag of the base commit for the installed package version
base_tag() {
	local v
	v=$(base_pkg_version) || die "$BASE_PKG is not installed (run harness/deps)"
	printf 'base/%s\n' "$(printf '%s' "$v" | tr '~:' '_.')"
}

# The patches of the series, in order, as absolute paths
series_files() {
	local p
	[ -f "$PATCHES/series" ] || die "missing $PATCHES/series"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "series lists missing file $p"
		printf '%s\n' "$PATCHES/$p"
	done < "$PATCHES/series"
}

# Stable patch-ids of the series files, in order
series_patch_ids() {
	local f
	series_files | while read -r f; do
		git patch-id --stable < "$f" | awk '{print $1}'
	done
}

# Stable patch-ids of the commits base..HEAD of a tree, in order
tree_patch_ids() {
	local tree=$1 base=$2 c
	git -C "$tree" rev-list --reverse "$base..HEAD" | while read -r c; do
		git -C "$tree" show --format= "$c" | git patch-id --stable | awk '{print $1}'
	done
}

# git am the whole series on top of the current HEAD of a tree
apply_series() {
	local tree=$1
	local files
	mapfile -t files < <(series_files)
	[ "${#files[@]}" -gt 0 ] || return 0
	git_identity
	if ! git -C "$tree" am --quiet --keep-cr --whitespace=error-all "${files[@]}"; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		die "the series does not apply to $(base_tag)"
	fi
}

# O= directory of the KUnit kernel for ARCH built from TREE; the selftest
# guest boots the same kernel.
kunit_out() {
	local arch=$1 tree=$2 name
	name=$(basename "$tree")
	if [ "$name" = linux ]; then
		printf '%s\n' "$BUILD/o/kunit-$arch"
	else
		printf '%s\n' "$BUILD/o/$name-kunit-$arch"
	fi
}

# Config lines (CONFIG_X=y) of the given fragments, comments dropped
config_lines() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@"
}

# make arguments for building for ARCH
arch_make_args() {
	case "$1" in
	x86_64) echo ARCH=x86_64 ;;
	arm64) echo ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- ;;
	*) die "unknown arch $1" ;;
	esac
}
