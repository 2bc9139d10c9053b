#!/usr/bin/env bash
# Prepares FerretDB 1.24.2 with docdb's corrections, and prints the path of a go.mod for
# `go build -modfile` that uses it. The module is copied from Go's module cache and corrected at
# build time, so the repository keeps only these descriptions of the changes: the one below, and
# each patches/ferretdb-N-*.patch (a unified diff, its reason written above it), applied in the
# order of N with `git apply`, which refuses a file whose lines are not exactly the ones the diff
# was written against.
#
# The update command's defect: MsgUpdate defers closing each statement's query until the whole
# command ends, so an `update` of N statements holds N pooled PostgreSQL connections at once, and
# each statement takes one more for its write. At N >= pool size (50) the command waits forever
# for a connection it holds itself, while holding FerretDB's metadata lock; after that nothing,
# not even `ping`, is answered until a restart. Closing each statement's query when the statement
# is done bounds a command to two connections.
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: ferretdb.sh OUT_DIR}"
(cd "$src" && go mod download github.com/FerretDB/FerretDB)
mod="$(cd "$src" && go list -mod=readonly -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
rm -rf "$out" && mkdir -p "$out"
cp -R "$mod" "$out/ferretdb" && chmod -R u+w "$out/ferretdb"
file="$out/ferretdb/internal/handler/msg_update.go"

call='		result, err := common.UpdateDocument(ctx, c, "update", iter, &u)'
defer_line='		defer closer.Close()'
[ "$(grep -cxF "$call" "$file")" = 1 ] && [ "$(grep -cxF "$defer_line" "$file")" = 1 ] || {
  echo "ferretdb.sh: $file is not the file this correction was written for" >&2
  exit 1
}
awk -v call="$call" -v d="$defer_line" '
  $0 == d { next }
  { print }
  $0 == call { print "\t\tcloser.Close() // at the end of each statement, not of the command" }
' "$file" >"$file.new" && mv "$file.new" "$file"

# git apply skips, and still succeeds, a file it takes for one outside the current directory
# (a git-style diff read inside another repository's tree, such as a checkout's .data): a
# skipped file fails the build too.
for patch in "$src"/patches/ferretdb-*.patch; do
  if ! log="$(cd "$out/ferretdb" && git apply --check "$patch" 2>&1 && git apply -v "$patch" 2>&1)" ||
    grep -q '^Skipped patch' <<<"$log"; then
    echo "$log" >&2
    echo "ferretdb.sh: $(basename "$patch") does not apply: not the FerretDB it was written for" >&2
    exit 1
  fi
done

cp "$src/go.mod" "$out/go.mod"
cp "$src/go.sum" "$out/go.sum"
printf '\nreplace github.com/FerretDB/FerretDB => %s\n' "$out/ferretdb" >>"$out/go.mod"
echo "$out/go.mod"
