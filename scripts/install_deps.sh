#!/usr/bin/env bash
# install_deps.sh PURPOSE — install the Debian packages that PURPOSE needs and
# that are missing, saying which before it does; nothing else.  Run as root
# (make demo / make test do).  PURPOSE is one of
#   build     compile the extension (make, make install)
#   demo      build + a PostgreSQL 15 server to run the walkthrough on
#   test      demo + what the unit, regression and scenario tests use
#   test-all  test + what makes the other majors (chroots, a source build)
#   bench     demo + the anchors and the plots of make bench
#   lintian   lintian alone (test/t/040 asks for it when it runs)
#
# An installed PostgreSQL server is never reinstalled nor upgraded: apt is
# asked for the missing packages only, with the server's packages held, and
# for its headers at its own version when the mirror has it (else the
# headers of a newer minor, which build a module that the installed server
# of the same major loads: PostgreSQL keeps its ABI within a major).
set -euo pipefail

purpose=${1:-test}

BUILD=(
    build-essential             # gcc, g++, make
    postgresql-server-dev-15    # PGXS and server headers
    libpq-dev                   # its dependency, named so it comes at libpq5's version (below)
    libboost-container-dev      # flat maps of the C++ core
)
DEMO=(
    "${BUILD[@]}"
    postgresql-15               # the server (pg_prewarm and pg_buffercache come with it)
)
TEST=(
    "${DEMO[@]}"
    catch2                      # unit tests of the core
    libipc-run-perl             # PostgreSQL::Test::Cluster (TAP)
    util-linux                  # fincore, to check our counts against
    postgresql-15-cron          # pg_cron 1.4.2, for the scheduled restore test (test/t/031)
    postgresql-15-pgtap         # pgTAP 1.2.0, for the pgTAP example of docs/REGRESSION_TESTING.md (test/t/060)
    libtap-parser-sourcehandler-pgtap-perl  # pg_prove, which runs that example
    sqlsmith                    # random queries over the catalog, for test/t/051
    prometheus                  # the real Prometheus server scraping the exporter in test/t/070
    prometheus-postgres-exporter  # postgres_exporter 0.11.1, reads monitoring/postgres_exporter/ (test/t/070)
    libyaml-libyaml-perl        # YAML::XS: test/t/071 reads the monitoring/ configurations
)
TEST_ALL=(
    "${TEST[@]}"
    # the files make test leaves to make test-all ("# tap: make test-all only")
    debhelper                   # the Debian package (debian/, test/t/040)
    postgresql-server-dev-all   # pg_buildext, for the Debian package
    dpkg-dev                    # dpkg-buildpackage
    patroni                     # Patroni 3.0.2, the HA manager of test/t/087
    etcd-server                 # etcd 3.4, its distributed configuration store
    etcd-client                 # etcdctl
    python3-etcd                # Patroni's etcd module imports it
    postgresql-15-auto-failover # pg_auto_failover 2.0 (monitor extension and pg_autoctl) for test/t/088
    debootstrap                 # chroots of newer suites for 17 and 19 (scripts/chroot_pg.sh)
    bison                       # these four build the other PostgreSQL versions
    flex                        #   the tests run on (scripts/build_pg_from_source.sh)
    zlib1g-dev
    bzip2                       #   unpacks the source package's tarball
)
BENCH=(
    "${DEMO[@]}"
    postgresql-15-pgfincore     # an anchor
    postgresql-15-pg-stat-kcache  # the anchor of bench/read_sources.sh (device bytes per statement)
    vmtouch                     # an anchor
    util-linux                  # fincore, an anchor
    gnuplot-nox                 # the plots
    valgrind                    # bench/relation_reads.sh counts instructions per query (callgrind)
    patroni                     # bench/autowarm.sh's patroni part (and etcd, below)
    etcd-server
    python3-etcd
)

case "$purpose" in
    build) packages=("${BUILD[@]}") ;;
    demo) packages=("${DEMO[@]}") ;;
    test) packages=("${TEST[@]}") ;;
    test-all) packages=("${TEST_ALL[@]}") ;;
    bench) packages=("${BENCH[@]}") ;;
    # lintian brings ~120 packages (about a minute of apt): only test/t/040 needs it
    lintian) packages=(lintian) ;;
    *)
        echo "install_deps: unknown purpose '$purpose' (build, demo, test, test-all, bench, lintian)" >&2
        exit 2
        ;;
esac

# installed, held ("hold ok installed") or not
installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == *" ok installed" ]]
}

missing=()
for package in "${packages[@]}"; do
    installed "$package" && continue
    # any PostgreSQL 15 server already here (another build of it, say) is kept
    if [ "$package" = postgresql-15 ] && command -v /usr/lib/postgresql/15/bin/postgres >/dev/null; then
        continue
    fi
    [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install_deps ($purpose): every package is present"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "install_deps ($purpose): missing ${missing[*]}; run as root to install them" >&2
    exit 1
fi

# An installed server's packages are held while apt works: --no-upgrade
# alone keeps what is asked for, not what a new package's dependencies pull
# (postgresql-server-dev-15 15.20 once upgraded a 15.18 server, its client
# and libpq5).  The development packages are asked for at the installed
# server's version (libpq-dev at libpq5's) when the mirror still has it.
present_server_packages() {
    dpkg-query -W -f='${Package} ${Status}\n' 'postgresql-[0-9]*' 'postgresql-client-[0-9]*' libpq5 2>/dev/null |
        awk '$NF == "installed" { print $1 }'
}

# the version of a missing package that matches the installed one it goes with
matching_version() {
    local package=$1 partner version
    case "$package" in
        postgresql-server-dev-[0-9]* | postgresql-client-[0-9]*) partner=postgresql-${package##*-} ;;
        libpq-dev) partner=libpq5 ;;
        *) return 0 ;;
    esac
    installed "$partner" || return 0
    version=$(dpkg-query -W -f='${Version}' "$partner")
    if apt-cache madison "$package" | awk -v v="$version" '$3 == v { found = 1 } END { exit !found }'; then
        echo "$version"
    else
        echo "install_deps ($purpose): $package $version (to match the installed $partner) is not in the mirror any more; apt chooses" >&2
    fi
}

echo "install_deps ($purpose): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq

requests=()
for package in "${missing[@]}"; do
    version=$(matching_version "$package")
    requests+=("$package${version:+=$version}")
done

already_held=$(apt-mark showhold)
held=()
for package in $(present_server_packages); do
    grep -qxF "$package" <<<"$already_held" && continue
    held+=("$package")
done
release_holds() {
    [ ${#held[@]} -eq 0 ] || apt-mark unhold "${held[@]}" >/dev/null
}
trap release_holds EXIT
[ ${#held[@]} -eq 0 ] || apt-mark hold "${held[@]}" >/dev/null

# --no-upgrade: a package that is present stays as it is
apt_log=$(mktemp)
if ! apt-get install -y -qq --no-install-recommends --no-upgrade "${requests[@]}" >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    echo "install_deps ($purpose): apt could not install ${requests[*]} with the installed server's packages held (${held[*]:-none});" >&2
    echo "install_deps ($purpose): apt says why above; install them by hand at the server's version, or upgrade the server yourself first" >&2
    exit 1
fi
rm -f "$apt_log"
echo "install_deps ($purpose): done"
