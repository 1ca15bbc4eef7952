#!/usr/bin/env bash
# Build our bots into standalone executables: OUT/<bot>.
#
# Usage: ./compile.sh [-o OUT] [BOT ...]
#   -o OUT   where to put them (default: $ECONOMANCY_BIN, else bin/ here)
#   BOT ...  which bots (default: every bot of bots/registry.py that exists)
#
# Each OUT/<bot> is a real executable file that needs no arguments, as the
# original driver expects, and runs from any directory with no virtual
# environment: a tiny launcher that execs one shared PyInstaller bundle
# (OUT/.bundle: one interpreter holding every bot, onedir for a fast
# start). The bot list is bots/registry.py, so adding a bot there is all
# it takes to build it here; a bot whose module does not exist yet is
# skipped with a message. Every launcher is started once before it is
# installed; a bot that cannot start is reported and not installed.
#
# Needs Python 3.11+ with venv, a C compiler and the Python headers; the
# tools go into build/compile/venv (created on first use, reused after),
# or with ECONOMANCY_COMPILE_TOOLS=DIR into DIR/<key>, shared by every
# checkout on the machine (CI keeps it between runs): one environment per
# interpreter, set of requirements and compile.sh, rebuilt from nothing when
# any of them changes or a build of it was cut short.
set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
OUT=${ECONOMANCY_BIN:-$ROOT/bin}
while (($#)); do
    case $1 in
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    -o)
        if (($# < 2)); then echo "compile.sh: -o needs a directory" >&2; exit 2; fi
        OUT=$2
        shift 2
        ;;
    -*) echo "compile.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
PYTHON=${PYTHON:-python3}
BUILD=$ROOT/build/compile
VENV=$BUILD/venv
PY=$VENV/bin/python
BUNDLE_NAME=economancy-bots

mkdir -p "$BUILD" "$OUT"
OUT=$(cd "$OUT" && pwd)
# One build at a time per checkout: builds share build/compile.
if command -v flock >/dev/null; then
    exec 9>"$BUILD/.lock"
    flock 9
fi
LOG=$BUILD/build.log
: >"$LOG"

# Run a noisy build step with its output in the log, shown only if it fails.
quietly() {
    if ! "$@" >>"$LOG" 2>&1; then
        tail -n 30 "$LOG" >&2
        echo "compile.sh: failed: $* (full log: $LOG)" >&2
        exit 1
    fi
}

# 1. Build tools: the project's dependencies, its `compile` extra and its
# build requirements, not the project itself (PyInstaller finds our packages
# through --paths, so that an environment shared by checkouts points into
# none of them). Made again from nothing when the interpreter, the
# requirements or this recipe change.
mapfile -t requires < <("$PYTHON" -c 'import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
print("\n".join(t["build-system"]["requires"] + t["project"]["dependencies"]
                + t["project"]["optional-dependencies"]["compile"]))' "$ROOT/pyproject.toml")
key=$({ "$PYTHON" -c 'import sys; print(sys.version, sys.executable)'; printf '%s\n' "${requires[@]}"; cat "$ROOT/compile.sh"; } |
    sha256sum | cut -d' ' -f1)
if [[ -n ${ECONOMANCY_COMPILE_TOOLS:-} ]]; then
    TOOLS=$(mkdir -p "$ECONOMANCY_COMPILE_TOOLS" && cd "$ECONOMANCY_COMPILE_TOOLS" && pwd)
    VENV=$TOOLS/${key:0:16}
    PY=$VENV/bin/python
    if command -v flock >/dev/null; then  # checkouts building at once: one makes it, the others wait
        exec 8>"$TOOLS/.lock"
        flock 8
    fi
fi
if [[ ! -x $PY || $(cat "$VENV/.economancy-stamp" 2>/dev/null) != "$key" ]]; then
    echo "compile.sh: preparing the build environment in ${VENV#"$ROOT"/}" >&2
    rm -rf "$VENV"
    quietly "$PYTHON" -m venv "$VENV"
    # --no-compile: PyInstaller compiles what it bundles itself; bytecode for
    # every installed module (SciPy's, NumPy's, ...) would be work for nothing
    # (11 s of CPU of this step's 22 s, measured in CI's offline install).
    quietly "$PY" -m pip install --no-compile --disable-pip-version-check "${requires[@]}"
    echo "$key" >"$VENV/.economancy-stamp"
fi
if [[ -n ${TOOLS:-} ]]; then
    touch "$VENV"  # in use: environments of other keys unused for a week are dropped
    find "$TOOLS" -mindepth 1 -maxdepth 1 -type d ! -path "$VENV" -mtime +7 -exec rm -rf {} +
    exec 8>&-
fi
# The engine's C extension, rebuilt in place if its source changed.
(cd "$ROOT" && quietly "$PY" setup.py build_ext --inplace)

# 2. The bots to build, from the registry: "name module kind" per line.
(cd "$ROOT" && "$PY" - "$@" >"$BUILD/bots.txt") <<'EOF'
import sys
from importlib.util import find_spec
from bots.registry import BOTS, is_installed, module

asked = sys.argv[1:]
for name in asked:
    if module(name) is None:
        sys.exit(f"compile.sh: {name!r} is not one of our bots ({', '.join(e.name for e in BOTS)})")
    if not is_installed(name):
        sys.exit(f"compile.sh: bot {name!r}: module {module(name)} does not exist")
for entry in BOTS:
    if asked and entry.name not in asked:
        continue
    if is_installed(entry.name):
        kind = "package" if find_spec(entry.module).submodule_search_locations else "module"
        print(entry.name, entry.module, kind)
    else:
        print(f"compile.sh: skipping {entry.name}: module {entry.module} does not exist yet", file=sys.stderr)
EOF
mapfile -t bots <"$BUILD/bots.txt"
if ((${#bots[@]} == 0)); then
    echo "compile.sh: no bot to build" >&2
    exit 1
fi

# 3. One bundle for all of them, entered through the registry's multicall main.
# Hidden imports are found statically (the module need not import cleanly
# at build time); a package also brings its __main__ and submodules.
imports=()
for line in "${bots[@]}"; do
    read -r name mod kind <<<"$line"
    imports+=(--hidden-import "$mod")
    if [[ $kind == package ]]; then
        imports+=(--hidden-import "$mod.__main__" --collect-submodules "$mod")
    fi
done
printf 'from bots.registry import main\n\nmain()\n' >"$BUILD/$BUNDLE_NAME.py"
echo "compile.sh: bundling ${#bots[@]} bot(s) with PyInstaller" >&2
(cd "$BUILD" && quietly "$PY" -m PyInstaller --noconfirm --onedir --name "$BUNDLE_NAME" \
    --distpath "$BUILD/dist" --workpath "$BUILD/work" --specpath "$BUILD" \
    --paths "$ROOT" --collect-data bots --collect-data protocol \
    "${imports[@]}" "$BUILD/$BUNDLE_NAME.py")

# 4. Install the bundle, then one launcher per bot that finds the bundle
# through its own real path (so a symlink to it works from anywhere).
# Launchers from an earlier build would point into the new bundle: drop them.
{ grep -l --null "built by compile.sh" "$OUT"/* 2>/dev/null || true; } | xargs -0 -r rm -f
rm -rf "$OUT/.bundle.new"
cp -a "$BUILD/dist/$BUNDLE_NAME" "$OUT/.bundle.new"
rm -rf "$OUT/.bundle"
mv "$OUT/.bundle.new" "$OUT/.bundle"
failed=()
for line in "${bots[@]}"; do
    read -r name mod kind <<<"$line"
    cat >"$OUT/$name" <<EOF
#!/bin/sh
# Economancy bot "$name", built by compile.sh: runs it from the bundle beside this file.
exec "\$(dirname "\$(readlink -f "\$0")")/.bundle/$BUNDLE_NAME" $name "\$@"
EOF
    chmod +x "$OUT/$name"
    # A bot given no input must start and exit 0: this catches import errors.
    if ! error=$(cd / && timeout 60 "$OUT/$name" </dev/null 2>&1 >/dev/null); then
        rm -f "$OUT/$name"
        failed+=("$name")
        echo "compile.sh: $name does not start, not installed:" >&2
        printf '%s\n' "$error" | tail -n 5 | sed 's/^/    /' >&2
        continue
    fi
    echo "built $OUT/$name"
done
echo "bundle $OUT/.bundle ($(du -sh "$OUT/.bundle" | cut -f1))"
if ((${#failed[@]})); then
    echo "compile.sh: ${#failed[@]} bot(s) failed: ${failed[*]}" >&2
    exit 1
fi
