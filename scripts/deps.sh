#!/usr/bin/env bash
# deps.sh - installs the Debian packages named on the command line that are not installed yet.
# As root: one `apt-get update`, then one `apt-get install` of what is missing.
# Not root: prints the exact apt-get line to run and goes on (missing allocators are later
# reported as skipped by the runner, never replaced by another).
set -u
missing=()
for pkg in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
    echo "deps: going on with what is installed" >&2
    exit 0
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -q >&2; then
    echo "deps: apt-get update failed; check the network or the apt sources, then run 'make deps' again" >&2
    exit 1
fi
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
    echo "deps: apt-get install failed for: ${missing[*]}; see the apt-get output above" >&2
    exit 1
fi
