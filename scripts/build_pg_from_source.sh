#!/usr/bin/env bash
# build_pg_from_source.sh MAJOR — a PostgreSQL server of another major version
# for the test suites, built from Debian's source package `postgresql-MAJOR`
# and installed into a cache folder outside the checkout:
#
#     ${CACHECTL_PG_CACHE:-/var/cache/pg_cachectl}/postgresql-VERSION
#
# keyed by the exact upstream version (18.6).  A folder whose marker file
# (written last, holding the configure options) is present and matches is
# reused; anything else, a half-finished build included, is built again.
# The last line printed on stdout is the installation's pg_config; progress
# goes to stderr.
#
# The source comes through a private apt configuration under the cache folder
# (its own sources list with one deb-src line, its own package lists), so the
# system's sources stay as they are.  Run as root, or with CACHECTL_PG_CACHE
# pointing to a folder you can write.  Needs the build packages listed in
# scripts/install_deps.sh (bison, flex, zlib1g-dev, bzip2, libipc-run-perl).
set -euo pipefail

major=${1:?usage: build_pg_from_source.sh MAJOR (18, 19, ...)}
cache=${CACHECTL_PG_CACHE:-/var/cache/pg_cachectl}
package=postgresql-$major

# Which Debian suite carries each major's source package (2026-11-30: 18 in
# sid; 19 only in experimental; 17's trixie files answered 404 on our mirror).
case "$major" in
    17) suite=${CACHECTL_PG_SUITE:-trixie} ;;
    19) suite=${CACHECTL_PG_SUITE:-experimental} ;;
    *) suite=${CACHECTL_PG_SUITE:-sid} ;;
esac

# --enable-cassert: the server's own assertions (buffer pins, locks held)
# check the extension's buffer work.  --without-icu/--without-readline keep
# the build dependencies small; the tests need neither.
configure_options=(--enable-tap-tests --enable-cassert --without-icu --without-readline)
# contrib modules the suites create (grep -r 'CREATE EXTENSION' sql test)
contrib_modules=(pg_buffercache pg_prewarm amcheck pg_stat_statements)
marker_name=.pg_cachectl-build-complete

say() { echo "build_pg_from_source: $*" >&2; }

for tool in bison flex bzip2 make gcc perl; do
    command -v "$tool" >/dev/null ||
        { say "$tool is missing; run scripts/install_deps.sh as root"; exit 1; }
done

mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/downloads"
exec 9>"$cache/.lock-$major"
flock 9 # one build of a major at a time

# The host's own mirror and fetch settings (no mirror is named here).
source "$(dirname "$0")/host_apt.sh"
mirror=$(host_debian_mirror)
echo "deb-src $mirror $suite main" >"$cache/apt/$suite.list"
apt_private=(
    -o "Dir::Etc::SourceList=$cache/apt/$suite.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$cache/apt/lists"
    -o "Dir::Cache=$cache/apt/cache"
    -o APT::Sandbox::User=root
)

# A completed build of this major, newest first: the fallback when the
# package index cannot be read (no network).
newest_cached_build() {
    local dir
    for dir in $(ls -d "$cache/postgresql-$major".* "$cache/postgresql-${major}"[a-z~]* 2>/dev/null | sort -rV); do
        if [ -f "$dir/$marker_name" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

# The .dsc file apt would fetch for the package: "'URI' NAME SIZE HASH"
# lines, printed only for files absent from the current folder.
newest_dsc_name() {
    local empty status=0
    empty=$(mktemp -d "$cache/apt/print-uris.XXXXXX")
    (cd "$empty" && apt-get -qq "${apt_private[@]}" source --print-uris "$package" |
        awk '$2 ~ /\.dsc$/ { print $2 }') || status=$?
    rmdir "$empty"
    return "$status"
}

say "reading $suite's source index (private apt lists in $cache/apt)"
if ! apt-get -qq "${apt_private[@]}" update >&2 ||
    ! dsc_name=$(newest_dsc_name) || [ -z "$dsc_name" ]; then
    if dir=$(newest_cached_build); then
        say "no source index for $package in $suite; using the cached $dir"
        echo "$dir/bin/pg_config"
        exit 0
    fi
    say "no source package $package in $suite, and no cached build"
    exit 1
fi

# postgresql-18_18.6-3.dsc -> Debian version 18.6-3 -> upstream version 18.6
debian_version=${dsc_name#"${package}_"}
debian_version=${debian_version%.dsc}
upstream_version=${debian_version%-*}
prefix=$cache/postgresql-$upstream_version
marker=$prefix/$marker_name

# The marker holds the configure options and this script's hash: a change
# of either builds anew, so CI proves a cold build whenever the recipe moves.
build_key="${configure_options[*]} script=$(sha256sum "$0" | cut -c1-16)"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$build_key" ]; then
    say "reusing $prefix (PostgreSQL $upstream_version, Debian $debian_version)"
    echo "$prefix/bin/pg_config"
    exit 0
fi

say "building PostgreSQL $upstream_version from Debian's $package $debian_version into $prefix"
downloads=$cache/downloads/$package-$debian_version
mkdir -p "$downloads"
(cd "$downloads" && apt-get -qq "${apt_private[@]}" source --download-only "$package=$debian_version" >&2)

# Upstream's release tarball (the .orig), without Debian's patches: they
# adapt paths and packaging, which a private test server does not need.
orig=$(ls "$downloads/${package}_${upstream_version}".orig.tar.* | head -n 1)
build=$(mktemp -d "$cache/build-$upstream_version.XXXXXX")
trap 'rm -rf "$build"' EXIT
tar -C "$build" -xf "$orig"
source_dir=$(find "$build" -mindepth 1 -maxdepth 1 -type d | head -n 1)

rm -rf "$prefix"
jobs=$(nproc)
(
    cd "$source_dir"
    ./configure --prefix="$prefix" "${configure_options[@]}" >"$build/configure.log" 2>&1 ||
        { tail -n 30 "$build/configure.log"; exit 1; }
    # The generated headers (utils/errcodes.h, ...) first and alone: a cold
    # parallel make raced them (src/common compiled before errcodes.h was
    # written), which CI reusing a cached build never saw.
    make -s -C src/backend generated-headers >"$build/make.log" 2>&1 ||
        { tail -n 40 "$build/make.log"; exit 1; }
    # the server, client programs and PGXS; documentation is not built by "all"
    make -s -j"$jobs" >>"$build/make.log" 2>&1 || { tail -n 40 "$build/make.log"; exit 1; }
    make -s install >"$build/install.log" 2>&1 || { tail -n 40 "$build/install.log"; exit 1; }
    for module in "${contrib_modules[@]}"; do
        make -s -j"$jobs" -C "contrib/$module" install >>"$build/install.log" 2>&1 ||
            { tail -n 40 "$build/install.log"; exit 1; }
    done
) >&2

echo "$build_key" >"$marker"
say "installed PostgreSQL $upstream_version into $prefix"
echo "$prefix/bin/pg_config"
