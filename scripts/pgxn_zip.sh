#!/usr/bin/env bash
# pgxn_zip.sh — `make pgxn-zip`: the PGXN source distribution of the committed
# tree (HEAD), NAME-VERSION.zip with every file under NAME-VERSION/, written
# to OUTDIR (the top directory by default).  The META.json of HEAD is first
# checked against the control file and the tree it ships with
# (scripts/check_pgxn_meta.pl); nothing is written if it fails.
#
#   bash scripts/pgxn_zip.sh [OUTDIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
outdir=$(cd "${1:-$top}" && pwd)

if ! git -C "$top" rev-parse --verify -q HEAD >/dev/null; then
    echo "pgxn_zip: $top is not a git checkout with a commit" >&2
    exit 1
fi
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
    echo "pgxn_zip: note: uncommitted changes are left out, the zip holds HEAD" >&2
fi

# Check what will ship: HEAD's tree, not the working copy.
staging=$(mktemp -d /tmp/pgxn-zip.XXXXXX)
trap 'rm -rf "$staging"' EXIT
git -C "$top" archive --format=tar HEAD | tar -C "$staging" -xf -
perl "$top/scripts/check_pgxn_meta.pl" --project "$staging" "$staging/META.json"

read -r name version < <(perl -MJSON::PP -e '
    local $/;
    my $meta = JSON::PP->new->decode(<STDIN>);
    print "$meta->{name} $meta->{version}\n";' <"$staging/META.json")

zip="$outdir/$name-$version.zip"
git -C "$top" archive --format=zip --prefix="$name-$version/" -o "$zip" HEAD
echo "pgxn_zip: $zip"
