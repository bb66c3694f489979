# host_apt.sh — what this machine's own apt configuration says about where
# Debian's packages come from, for the scripts that fetch packages of other
# Debian suites (build_pg_from_source.sh, chroot_pg.sh).  Sourced.  The
# project names no mirror: a machine behind a local mirror or a proxy uses
# its own.

# host_debian_mirror — prints the URI of the host's main Debian archive: the
# first enabled "deb" source whose suite is the host's own release
# (bookworm; not bookworm-security or -updates), from
# /etc/apt/sources.list.d/*.sources (deb822) or the one-line lists.  Fails
# with a message naming the files read when there is none.
host_debian_mirror() {
    local codename uri files=()
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    if [ -z "$codename" ]; then
        echo "host_apt: /etc/os-release names no release (VERSION_CODENAME)" >&2
        return 1
    fi
    shopt -s nullglob
    files=(/etc/apt/sources.list.d/*.sources)
    if [ ${#files[@]} -gt 0 ]; then
        # deb822 stanzas are separated by blank lines; field names are
        # case-insensitive, values may list several words.
        uri=$(awk -v codename="$codename" '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && enabled != "no" && (" " suites " ") ~ (" " codename " ") && first == "")
                    first = uris
                types = ""; uris = ""; suites = ""; enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            {
                field = tolower($1); sub(/:$/, "", field)
                value = $0; sub(/^[^:]*:[ \t]*/, "", value)
                if (field == "types") types = value
                else if (field == "uris") { split(value, words, /[ \t]+/); uris = words[1] }
                else if (field == "suites") suites = value
                else if (field == "enabled") enabled = tolower(value)
            }
            END { flush(); if (first != "") print first }' "${files[@]}")
    fi
    if [ -z "$uri" ]; then
        files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
        # deb [options] URI SUITE COMPONENTS...
        uri=$(cat "${files[@]}" 2>/dev/null | awk -v codename="$codename" '
            $1 == "deb" {
                i = 2
                if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                if ($(i + 1) == codename) { print $i; exit }
            }')
    fi
    shopt -u nullglob
    if [ -z "$uri" ]; then
        echo "host_apt: no Debian source for '$codename' in /etc/apt/sources.list or /etc/apt/sources.list.d/; configure the machine's mirror first" >&2
        return 1
    fi
    echo "${uri%/}"
}

# host_apt_fetch_settings — prints, as apt.conf lines, what the host's apt
# configuration sets for fetching (proxies, retries, the Release files'
# date checks: a mirror that serves sid with an expired Valid-Until needs
# Check-Valid-Until "false"), so a private apt or a chroot fetches as the
# host does.
host_apt_fetch_settings() {
    apt-config dump 2>/dev/null | grep -E '^Acquire::(Check-Valid-Until|Check-Date|Max-ValidTime|Retries|ForceIPv4|ForceIPv6|http|https|ftp)(::| )' |
        grep -vE ' "";$' || true
}
