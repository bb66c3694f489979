#!/usr/bin/env bash
# chroot_pg.sh MAJOR prepare
# chroot_pg.sh MAJOR run TREE COMMAND...
# chroot_pg.sh MAJOR describe
#
# A PostgreSQL major that Debian 12 cannot run (its packages need a newer C
# library) in a minimal chroot of the Debian suite that carries it, made with
# debootstrap from the host's own mirror (scripts/host_apt.sh) and cached
# outside the checkout:
#
#     ${CACHECTL_PG_CACHE:-/var/cache/pg_cachectl}/chroot-MAJOR
#
# prepare  makes the chroot, or reuses it while this script is unchanged and
#          the suite's newest postgresql-MAJOR is the one installed (a newer
#          package or a change of this script rebuilds it from nothing, so
#          the cold path is proven whenever it changes).  Prints the chroot's
#          pg_config (a path inside it) last on stdout; progress on stderr.
# run      mounts /proc, /sys, /dev and TREE (at /pg_cachectl) into the
#          chroot, runs COMMAND there (in /pg_cachectl, as root, with a clean
#          environment plus CI and every CACHECTL_* variable), and unmounts
#          everything when COMMAND ends, fails or is interrupted.
# describe prints the chroot's package version and suite, for summaries.
#
# Suites: 17 from trixie, 19 from sid with experimental (the higher of the
# two versions wins, so 19.x in sid is taken without a change here); any
# other major from sid.  CACHECTL_CHROOT_SUITE names another.  Needs root
# and debootstrap (scripts/install_deps.sh).
set -euo pipefail

major=${1:?usage: chroot_pg.sh MAJOR prepare | run TREE COMMAND...}
action=${2:?usage: chroot_pg.sh MAJOR prepare | run TREE COMMAND...}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
cache=${CACHECTL_PG_CACHE:-/var/cache/pg_cachectl}
root=$cache/chroot-$major
marker=$root/.pg_cachectl-chroot

source "$here/host_apt.sh"

say() { echo "chroot_pg $major: $*" >&2; }

case "$major" in
    17) suite=${CACHECTL_CHROOT_SUITE:-trixie} ;;
    19) suite=${CACHECTL_CHROOT_SUITE:-sid} ;;
    *) suite=${CACHECTL_CHROOT_SUITE:-sid} ;;
esac
# experimental carries the majors not yet in sid
with_experimental=no
[ "$suite" = sid ] && with_experimental=yes

# What the suites need in the chroot: the server, its client (pg_regress and
# PostgreSQL::Test::Cluster) and PGXS; a C++20 compiler and Boost.Container;
# IPC::Run for the TAP tests; fincore (util-linux-extra), mkfs.ext4 and
# losetup for the root fixtures; pgbench's checks; the Debian package tools
# for test/t/040.  Optional ones are installed where the suite has them.
required_packages=(
    "postgresql-$major" "postgresql-client-$major" "postgresql-server-dev-$major"
    build-essential libboost-container-dev libipc-run-perl perl
    util-linux util-linux-extra mount e2fsprogs procps
    debhelper dpkg-dev postgresql-server-dev-all lintian fakeroot
)
optional_packages=(
    "postgresql-$major-cron" "postgresql-$major-pgfincore" "postgresql-$major-pgtap"
    libtap-parser-sourcehandler-pgtap-perl sqlsmith
)

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot, mounts)"; exit 1; }

# ---- mounts ----

mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[$i]}" 2>/dev/null || umount -lR "${mounted[$i]}" 2>/dev/null || true
    done
    mounted=()
}

# Mounts left by a run that was killed (SIGKILL leaves no trap to run).
unmount_stale() {
    local point
    awk -v root="$root/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r point; do
            umount -lR "$point" 2>/dev/null || true
        done
}

mount_system() {
    mkdir -p "$root/proc" "$root/sys" "$root/dev"
    mount -t proc proc "$root/proc" && mounted+=("$root/proc")
    mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
    # /dev with /dev/pts, /dev/shm and the loop devices the root fixtures make
    mount --rbind /dev "$root/dev" && mounted+=("$root/dev")
    mount --make-rslave "$root/dev"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

# ---- the chroot ----

# the scripts' contents only: sha256sum would also hash their paths, and a chroot
# made from one checkout would be made anew for every other
script_hash() { cat "$0" "$here/host_apt.sh" | sha256sum | cut -c1-16; }

in_chroot() {
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# The version apt would install of a package, or nothing.
candidate_version() {
    in_chroot apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}

installed_version() {
    in_chroot dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

write_apt_configuration() {
    local mirror=$1
    {
        echo "deb $mirror $suite main"
        [ "$suite" = trixie ] && echo "deb $mirror trixie-updates main"
        [ "$with_experimental" = yes ] && echo "deb $mirror experimental main"
    } >"$root/etc/apt/sources.list"
    {
        echo "// from the host's apt configuration (scripts/host_apt.sh)"
        host_apt_fetch_settings
        echo 'Acquire::Languages "none";'
        echo 'APT::Install-Recommends "false";'
        # apt 3's solver pulled experimental's perl for -t experimental
        echo 'APT::Solver "internal";'
        echo 'Dpkg::Options { "--force-confold"; "--force-confdef"; };'
    } >"$root/etc/apt/apt.conf.d/90pg-cachectl"
    if [ "$with_experimental" = yes ]; then
        # experimental's PostgreSQL packages as eligible as sid's: the
        # higher version wins, so a 19.x that reaches sid replaces 19~rc1
        cat >"$root/etc/apt/preferences.d/pg-cachectl" <<EOF
Package: postgresql-$major postgresql-client-$major postgresql-server-dev-$major postgresql-$major-* libpq5 libpq-dev
Pin: release a=experimental
Pin-Priority: 500
EOF
    fi
    # no service starts in the chroot, and no cluster is made on install
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    mkdir -p "$root/etc/postgresql-common"
    echo "create_main_cluster = false" >"$root/etc/postgresql-common/createcluster.conf"
}

build_chroot() {
    local mirror started=$SECONDS package
    mirror=$(host_debian_mirror)
    say "debootstrap $suite from the host's mirror into $root"
    unmount_stale
    # never remove through a mount (the host's /dev, a bound tree)
    if awk -v root="$root/" 'index($2, root) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        say "something is still mounted under $root; not removing it"
        return 1
    fi
    rm -rf --one-file-system "$root"
    mkdir -p "$root"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$cache/debootstrap-$major.log" 2>&1 ||
        { tail -n 30 "$cache/debootstrap-$major.log" >&2; return 1; }
    say "debootstrap done in $((SECONDS - started)) s"
    write_apt_configuration "$mirror"
    mount_system
    in_chroot apt-get -qq update >&2
    local install=("${required_packages[@]}")
    for package in "${optional_packages[@]}"; do
        [ -n "$(candidate_version "$package")" ] && install+=("$package") ||
            say "$package is not in $suite: the tests that need it skip"
    done
    say "installing ${install[*]}"
    in_chroot apt-get -y -qq install "${install[@]}" >"$cache/chroot-install-$major.log" 2>&1 ||
        { tail -n 40 "$cache/chroot-install-$major.log" >&2; return 1; }
    in_chroot apt-get -qq clean
    {
        echo "script $(script_hash)"
        echo "server $(installed_version "postgresql-$major")"
        echo "suite $suite"
        echo "made $(date -u +%Y-%m-%dT%H:%MZ)"
    } >"$marker"
    say "ready in $((SECONDS - started)) s: postgresql-$major $(installed_version "postgresql-$major")"
}

prepare() {
    mkdir -p "$cache"
    exec 9>"$cache/.lock-chroot-$major"
    flock 9
    trap unmount_all EXIT
    trap 'exit 130' INT TERM
    if [ -f "$marker" ] && [ "$(sed -n 's/^script //p' "$marker")" = "$(script_hash)" ]; then
        unmount_stale
        mount_system
        local installed candidate=""
        installed=$(sed -n 's/^server //p' "$marker")
        if in_chroot apt-get -qq update >&2; then
            candidate=$(candidate_version "postgresql-$major")
        else
            say "cannot read $suite's package index; reusing the chroot as it is"
        fi
        if [ -z "$candidate" ] || [ "$candidate" = "$installed" ]; then
            say "reusing $root (postgresql-$major $installed)"
            unmount_all
        else
            say "postgresql-$major $candidate replaces $installed: the chroot is made anew"
            unmount_all
            build_chroot
            unmount_all
        fi
    else
        build_chroot
        unmount_all
    fi
    echo "/usr/lib/postgresql/$major/bin/pg_config"
}

run() {
    local tree=${1:?usage: chroot_pg.sh MAJOR run TREE COMMAND...}
    shift
    mkdir -p "$cache"
    exec 9>"$cache/.lock-chroot-$major"
    flock 9 # one run in a chroot at a time, and none while it is made
    [ -f "$marker" ] || { say "no chroot in $root: run 'chroot_pg.sh $major prepare' first"; exit 1; }
    trap unmount_all EXIT
    trap 'exit 130' INT TERM
    unmount_stale
    mount_system
    mkdir -p "$root/pg_cachectl"
    mount --bind "$tree" "$root/pg_cachectl" && mounted+=("$root/pg_cachectl")
    local pass=() name
    for name in $(compgen -e); do
        case "$name" in CI | CACHECTL_*) pass+=("$name=${!name}") ;; esac
    done
    local status=0
    in_chroot "${pass[@]}" bash -c 'cd /pg_cachectl && exec "$@"' command "$@" || status=$?
    return "$status"
}

# One line for a summary: the package, its version, the suite.
describe() {
    [ -f "$marker" ] || { say "no chroot in $root"; exit 1; }
    echo "postgresql-$major $(sed -n 's/^server //p' "$marker"), chroot of $(sed -n 's/^suite //p' "$marker")"
}

case "$action" in
    prepare) prepare ;;
    run) run "$@" ;;
    describe) describe ;;
    *) say "unknown action '$action' (prepare, run)"; exit 2 ;;
esac
