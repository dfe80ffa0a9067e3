#!/usr/bin/env bash
# Installs the headless VS Code test host: Debian packages (kerberos headers, ripgrep, chromium,
# build tools, openssl) and code-server 4.100.3 (VS Code 1.100.3) from npm, into a cache dir outside the repo.
# Idempotent: a marker file, written last, makes a second run skip the install; an interrupted
# install (no marker) is wiped and redone. Progress goes to stderr; the last line on stdout is the
# path of code-server's entry.js.
#
#   bash scripts/setup-test-host.sh            # install if needed, print entry.js
#   bash scripts/setup-test-host.sh --print    # only print entry.js (exit 1 if not installed)
#
# Cache root: $AGENT_BRIDGE_CACHE, default ~/.cache/agent-bridge. Keep in sync with
# test/support/codeServer.ts (codeServerDir()).
set -euo pipefail

CS_VERSION=4.100.3
CACHE_ROOT="${AGENT_BRIDGE_CACHE:-$HOME/.cache/agent-bridge}"
DIR="$CACHE_ROOT/code-server-$CS_VERSION"
MARKER="$DIR/.installed"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"

log() { printf '[setup-test-host] %s\n' "$*" >&2; }

if [[ "${1:-}" == "--print" ]]; then
  [[ -f "$MARKER" && -f "$ENTRY" ]] || { log "not installed at $DIR"; exit 1; }
  echo "$ENTRY"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
export CI="${CI:-true}"
exec </dev/null

# ---- 1. Debian packages (only when something is missing) ----------------------------------
need_pkgs=()
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
pkg_installed libkrb5-dev || need_pkgs+=(libkrb5-dev)
command -v rg >/dev/null 2>&1 || need_pkgs+=(ripgrep)
[[ -x /usr/bin/chromium ]] || need_pkgs+=(chromium)
command -v make >/dev/null 2>&1 || need_pkgs+=(make)
command -v g++ >/dev/null 2>&1 || need_pkgs+=(g++)
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3)
# the TLS tests make a throwaway certificate authority with the openssl CLI
command -v openssl >/dev/null 2>&1 || need_pkgs+=(openssl)
# the README's curl example is run as written (test/unit/readmeCurl.test.ts)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
# fonts so screenshots show text (chromium pulls some in; make sure of one)
pkg_installed fonts-dejavu-core || need_pkgs+=(fonts-dejavu-core)
# and a CJK font, or the Simplified Chinese UI shows as empty boxes in the zh-cn screenshots
pkg_installed fonts-noto-cjk || need_pkgs+=(fonts-noto-cjk)

if ((${#need_pkgs[@]})); then
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else
      log "need root (or sudo) to install: ${need_pkgs[*]}"; exit 1
    fi
  fi
  log "installing apt packages: ${need_pkgs[*]}"
  "${SUDO[@]}" apt-get update -q >&2
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >&2
else
  log "apt packages present"
fi

# ---- 2. code-server ------------------------------------------------------------------------
if [[ -f "$MARKER" && -f "$ENTRY" ]]; then
  log "code-server $CS_VERSION already installed in $DIR"
  echo "$ENTRY"
  exit 0
fi

mkdir -p "$CACHE_ROOT"
# One installer at a time (two CI jobs or two terminals on one machine).
exec 9>"$CACHE_ROOT/.code-server-$CS_VERSION.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if [[ -f "$MARKER" && -f "$ENTRY" ]]; then
  log "code-server $CS_VERSION installed by a concurrent run"
  echo "$ENTRY"
  exit 0
fi

start=$SECONDS
log "installing code-server $CS_VERSION into $DIR (a minute or two)"
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR"

npmq() { npm --no-audit --no-fund --loglevel=error "$@" >&2; }

npm init -y >/dev/null
# --ignore-scripts: code-server's postinstall refuses root under npm 11 and downloads ripgrep.
npmq install --ignore-scripts "code-server@$CS_VERSION"
npm_config_yes=true npmq rebuild argon2

VS="$DIR/node_modules/code-server/lib/vscode"
cd "$VS"
npmq install --omit=dev --ignore-scripts
# node-pty's build calls `npx node-gyp` without --yes: npm_config_yes answers it.
npm_config_yes=true npmq rebuild node-pty @parcel/watcher @vscode/spdlog kerberos native-watchdog @vscode/deviceid
# @vscode/ripgrep would download its binary from GitHub: use Debian's.
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npmq install --omit=dev --ignore-scripts)

# Sanity check before declaring success.
[[ -f "$ENTRY" ]] || { log "entry.js missing after install: $ENTRY"; exit 1; }
node -e "require('$VS/node_modules/node-pty')" >&2 || { log "node-pty does not load"; exit 1; }

date -u +%FT%TZ >"$MARKER"
log "done in $((SECONDS - start)) s"
echo "$ENTRY"
