# shellcheck shell=bash
# The settings below are read by the scripts that source this file:
# shellcheck disable=SC2034
# Common code of the harness scripts. Source it; do not run it. It holds
# what every script needs (messages, usage, the exit-trap stack, the
# environment) and sources the parts: lib/base.sh (the base and its
# series), lib/kbuild.sh (build directories, architectures, guest
# programs) and lib/guest.sh (QEMU guests and their verdicts).
#
# The environment settings the harness reads, and only these (every other
# input is a flag of a script; each script's --help prints its header):
#   BASE   the base a script works on, mainline (default) or 6.12
#   BUILD  where everything generated goes (default: build/ in the clone)
#   JOBS   parallel jobs of make and kunit.py (default: nproc)
# (and CI, which CI systems set: harness/deps then refreshes the base).
# With BASE=6.12, the default trees and directories under BUILD take the
# suffix -6.12: build/test-6.12, build/linux-6.12, build/results-6.12.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# usage: the calling script's header comment (its lines 2 to the first
# line that is not a comment), which says what it takes, and the
# environment settings above. "--help" as a script's first argument
# prints it and exits, for every script.
usage() {
	sed -n '2,/^[^#]/{/^#/!q;/^# shellcheck /d;s/^# \{0,1\}//;p}' "$0"
	printf '\nThe environment every harness script reads:\n'
	sed -n '/^#   BASE /,/^# suffix -6.12/s/^# \{0,1\}//p' "$TOP/harness/lib.sh"
}
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
	usage
	exit 0
fi
# take_arg OPTION ARGS...: the value of an option that needs one, in
# OPTARG ("$@" at the option); a bad command line if there is none
take_arg() {
	[ $# -ge 2 ] || die_usage "$1 needs a value"
	OPTARG=$2
}
# abs_dir DIR: DIR as an absolute path (a TREE argument may be relative:
# make -C TREE O=TREE/... would take the O= path from inside TREE); a
# DIR that is not a directory is a bad command line
abs_dir() {
	[ -d "$1" ] || die_usage "no directory $1"
	(CDPATH='' cd -- "$1" && pwd)
}
# abs_path PATH: PATH (which need not exist) as an absolute path
abs_path() {
	realpath -m -- "$1"
}

# die_usage MESSAGE: stop on a bad command line, with the usage lines
die_usage() {
	printf 'error: %s\n' "$1" >&2
	usage | grep -E '^ +harness/' >&2 || true
	printf '(harness/%s --help says more)\n' "$(basename "$0")" >&2
	exit 2
}

# ---- Cleanup: one EXIT trap, a stack of commands ----
# on_exit COMMAND [ARGS...]: run the command when the script exits,
# however it exits: success, failure, die, or SIGINT, SIGTERM or SIGHUP
# (the script then exits 130, 143 or 129). Its arguments are taken as
# they are now. Commands run last registered first, each once; one that
# fails does not stop the others. A script that checks out other commits
# of a shared tree, unpacks into a scratch directory or starts QEMU
# registers the undoing here, right where it starts doing it. exit_pop
# drops the last command registered (its job ended normally).
EXIT_STACK=()
on_exit() { EXIT_STACK+=("$(printf '%q ' "$@")"); }
exit_pop() { unset 'EXIT_STACK[${#EXIT_STACK[@]}-1]'; }
run_exit_stack() {
	local i
	for ((i = ${#EXIT_STACK[@]} - 1; i >= 0; i--)); do
		eval "${EXIT_STACK[i]}" || true
	done
	EXIT_STACK=()
}
# stop_pid PID: stop a background job (TERM) and reap it; stop_group
# PID: the same for the process group PID leads (setsid), all of it
stop_pid() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
stop_group() { kill -- "-$1" 2>/dev/null; wait "$1" 2>/dev/null; }
trap 'run_exit_stack' EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM
trap 'exit 129' HUP

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

# The parts, by job
# shellcheck source=harness/lib/base.sh
. "$TOP/harness/lib/base.sh"
# shellcheck source=harness/lib/kbuild.sh
. "$TOP/harness/lib/kbuild.sh"
# shellcheck source=harness/lib/guest.sh
. "$TOP/harness/lib/guest.sh"
