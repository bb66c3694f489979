#!/usr/bin/env bash
# install_deps.sh — install the Debian packages pg_cachectl builds and tests
# with, when any is missing.  Run as root (make demo / make test do).
set -euo pipefail

PACKAGES=(
    build-essential             # gcc, g++, make
    postgresql-15               # server binaries (upgraded with the headers)
    postgresql-contrib          # pg_buffercache, pg_prewarm, amcheck for tests and demo
    postgresql-server-dev-15    # PGXS and server headers
    libboost-container-dev      # flat maps of the C++ core
    catch2                      # unit tests of the core
    libipc-run-perl             # PostgreSQL::Test::Cluster (TAP)
    util-linux                  # fincore, to check our counts against
    postgresql-15-pgfincore     # an anchor, for bench/
    postgresql-15-cron          # pg_cron 1.4.2, for the scheduled restore test (test/t/031)
    postgresql-15-pgtap         # pgTAP 1.2.0, for the pgTAP example of the README (test/t/060)
    libtap-parser-sourcehandler-pgtap-perl  # pg_prove, which runs that example
    vmtouch                     # an anchor, for bench/
    sqlsmith                    # random queries over the catalog, for test/t/051
    gnuplot-nox                 # the plots of make bench
    debootstrap                 # chroots of newer suites for 17 and 19 (scripts/chroot_pg.sh)
    bison                       # these four build the other PostgreSQL versions
    flex                        #   the tests run on (scripts/build_pg_from_source.sh)
    zlib1g-dev
    bzip2                       #   unpacks the source package's tarball
    debhelper                   # the Debian package (debian/, test/t/040)
    postgresql-server-dev-all   # pg_buildext, for the Debian package
    dpkg-dev                    # dpkg-buildpackage
    prometheus                  # the real Prometheus server scraping the exporter in test/t/070
    prometheus-postgres-exporter  # postgres_exporter 0.11.1, reads monitoring/postgres_exporter/ (test/t/070)
    libyaml-libyaml-perl        # YAML::XS: test/t/071 reads the monitoring/ configurations
)
# The server and its headers are installed together, so they stay one release.
TOGETHER=(postgresql-15 postgresql-server-dev-15)

# lintian brings ~120 packages (about a minute of apt): only the package test
# (test/t/040_debian_package.pl) needs it, and asks for it with
# `install_deps.sh lintian`, which installs nothing else.
if [ "${1:-}" = lintian ]; then
    PACKAGES=(lintian)
    TOGETHER=()
fi

missing=()
for package in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$package")
done

# The server must match the headers we compile against (same minor release).
server_version=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
headers_version=$(dpkg-query -W -f='${Version}' postgresql-server-dev-15 2>/dev/null || true)
if [ ${#TOGETHER[@]} -gt 0 ] && [ -n "$server_version" ] && [ -n "$headers_version" ] && [ "$server_version" != "$headers_version" ]; then
    missing+=(postgresql-15 postgresql-server-dev-15)
fi

if [ ${#missing[@]} -eq 0 ]; then
    echo "install_deps: every package is present"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "install_deps: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" "${TOGETHER[@]}" >/dev/null
echo "install_deps: done"
