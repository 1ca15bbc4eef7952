#!/usr/bin/env bash
# Build every bot of ours into a standalone executable: OUT/<bot>.
#
# Usage: ./compile.sh [OUT]        (OUT defaults to $ECONOMANCY_BIN, else ./bin)
#
# Each OUT/<bot> is a real executable file that takes no arguments, as the
# original driver expects, and runs from any directory with no virtual
# environment: a tiny launcher that execs one shared PyInstaller bundle
# (OUT/.bundle, one interpreter holding every bot, started in onedir mode
# for a fast start). The bots come from bots/registry.py, so adding a bot
# there is all it takes to build it here; a bot whose module does not
# exist yet is skipped with a message.
#
# Needs Python 3.11+ with venv, a C compiler and the Python headers; the
# tools go into build/compile/venv (created on first use, reused after).
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
OUT=${1:-${ECONOMANCY_BIN:-$ROOT/bin}}
PYTHON=${PYTHON:-python3}
BUILD=$ROOT/build/compile
VENV=$BUILD/venv
BUNDLE_NAME=economancy-bots

mkdir -p "$BUILD" "$OUT"
OUT=$(cd "$OUT" && pwd)

# 1. Build tools, reinstalled only when the project's requirements change.
stamp=$(cat "$ROOT/pyproject.toml" "$ROOT/setup.py" | sha256sum | cut -d' ' -f1)
if [[ ! -x $VENV/bin/python || $(cat "$VENV/.economancy-stamp" 2>/dev/null) != "$stamp" ]]; then
    echo "compile.sh: preparing the build environment in ${VENV#"$ROOT"/}" >&2
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[compile]"
    echo "$stamp" >"$VENV/.economancy-stamp"
fi
PY=$VENV/bin/python
# The engine's C extension, rebuilt in place if its source changed.
(cd "$ROOT" && "$PY" setup.py --quiet build_ext --inplace >/dev/null)

# 2. The bots that exist, from the registry ("name module" per line).
mapfile -t found < <(cd "$ROOT" && "$PY" - <<'EOF'
import sys
from bots.registry import BOTS, is_installed
for entry in BOTS:
    if is_installed(entry.name):
        print(entry.name, entry.module)
    else:
        print(f"compile.sh: skipping {entry.name}: module {entry.module} does not exist yet", file=sys.stderr)
EOF
)
if ((${#found[@]} == 0)); then
    echo "compile.sh: no bot to build" >&2
    exit 1
fi

# 3. One bundle for all of them, entered through the registry's multicall main.
collect=()
for line in "${found[@]}"; do
    collect+=(--collect-submodules "${line#* }")
done
cat >"$BUILD/$BUNDLE_NAME.py" <<'EOF'
from bots.registry import main

main()
EOF
echo "compile.sh: bundling ${#found[@]} bot(s) with PyInstaller" >&2
(cd "$BUILD" && "$PY" -m PyInstaller --noconfirm --log-level WARN --onedir \
    --name "$BUNDLE_NAME" --distpath "$BUILD/dist" --workpath "$BUILD/work" --specpath "$BUILD" \
    --paths "$ROOT" --collect-data bots --collect-data protocol \
    "${collect[@]}" "$BUILD/$BUNDLE_NAME.py")

# 4. Install: the bundle, then one launcher per bot, found via the launcher's real path.
# Launchers left from an earlier build point into the old bundle: remove them first.
{ grep -l --null "built by compile.sh" "$OUT"/* 2>/dev/null || true; } | xargs -0 -r rm -f
rm -rf "$OUT/.bundle.new"
cp -a "$BUILD/dist/$BUNDLE_NAME" "$OUT/.bundle.new"
rm -rf "$OUT/.bundle"
mv "$OUT/.bundle.new" "$OUT/.bundle"
for line in "${found[@]}"; do
    name=${line%% *}
    cat >"$OUT/$name" <<EOF
#!/bin/sh
# Economancy bot "$name", built by compile.sh: runs it from the bundle beside this file.
exec "\$(dirname "\$(readlink -f "\$0")")/.bundle/$BUNDLE_NAME" $name "\$@"
EOF
    chmod +x "$OUT/$name"
    echo "built $OUT/$name"
done
echo "bundle $OUT/.bundle ($(du -sh "$OUT/.bundle" | cut -f1)); try: driver run $OUT/${found[0]%% *} $OUT/${found[0]%% *}"
