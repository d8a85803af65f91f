# Shared by scripts/site.sh and scripts/test.sh; sourced from the repository root.
#
# The Python: $PYTHON (default python3) is checked (3.11 or newer) by scripts/pick_python.py.
# Inside a virtualenv or conda env it is used as is; otherwise the scripts make the
# project's .venv with it (git-ignored, reused by later runs) and install into that, first
# apt-installing Debian's pythonX.Y-venv when the system Python lacks the venv module.

PYTHON=${PYTHON:-python3}
SCRIPT=${SCRIPT:-$(basename "$0")}
VENV=.venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
export NO_MKDOCS_2_WARNING=1  # Material 9.8's end-of-life notice; it does not affect the build

die() {  # die MESSAGE: one line on stderr, exit 1
  echo "$SCRIPT: $*" >&2
  exit 1
}

# plan_python: set PLAN to pick_python.py's line for $PYTHON (here, venv, venv-apt PKG, venv-none).
plan_python() {
  command -v "$PYTHON" >/dev/null 2>&1 ||
    die "no Python '$PYTHON' here: install Python 3.11 or newer, or set PYTHON=/path/to/python3"
  PLAN=$("$PYTHON" scripts/pick_python.py </dev/null) || exit 1
}

venv_works() {  # .venv exists, its Python runs, and it has pip (a failed `-m venv` leaves none)
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1 </dev/null
}

# venv_plan [--no-install]: set VENV_PLAN to what a working .venv takes: "exists", "venv"
# (python -m venv) or "apt PKG" (apt-get install PKG first); where it cannot be had (with
# --no-install and no .venv, or with no venv module), one line on stderr and exit 1.
venv_plan() {
  if venv_works; then
    # an existing .venv of a Python older than 3.11 (made by hand) gets pick_python.py's
    # one line, not pip's error half-way through the install
    "$VENV/bin/python" scripts/pick_python.py >/dev/null 2>&1 </dev/null ||
      die "$VENV was made by a Python older than 3.11: remove it (rm -rf $VENV) and run again"
    VENV_PLAN=exists
  elif [ "${1:-}" = --no-install ]; then
    die "--no-install, but there is no working $VENV yet: run once without --no-install"
  else
    case "$PLAN" in
      venv) VENV_PLAN=venv ;;
      venv-apt\ *) VENV_PLAN="apt ${PLAN#venv-apt }" ;;
      *) die "$PYTHON has no venv module: use a Python that has one, or run inside a virtualenv" ;;
    esac
  fi
}

# describe_python [--no-install]: one line saying which Python use_python would take
# (for --dry-run); where use_python would stop, the same one line on stderr and exit 1.
describe_python() {
  if [ "$PLAN" = here ]; then
    echo "python: $PYTHON, used as is (it runs inside a virtualenv)"
    return
  fi
  venv_plan "$@"
  case "$VENV_PLAN" in
    exists) echo "python: $VENV/bin/python (exists; made earlier)" ;;
    venv) echo "python: $VENV/bin/python, made first by $PYTHON -m venv $VENV" ;;
    apt\ *) echo "python: $VENV/bin/python, made first by $PYTHON -m venv $VENV after apt-get install ${VENV_PLAN#apt }" ;;
  esac
}

# use_python [--no-install]: set PY to the Python to install into and run with, making
# .venv when PLAN says so (unless --no-install: then .venv must exist already).
use_python() {
  if [ "$PLAN" = here ]; then
    PY=$PYTHON
    echo "== python: $PYTHON (inside a virtualenv: installing into it)"
    return
  fi
  PY=$VENV/bin/python
  venv_plan "$@"
  case "$VENV_PLAN" in
    exists)
      echo "== python: $PY"
      return
      ;;
    apt\ *)
      echo "== apt-get install ${VENV_PLAN#apt } (the venv module of Debian's and Ubuntu's system Python)"
      apt_install "${VENV_PLAN#apt }"
      ;;
  esac
  echo "== $PYTHON -m venv $VENV (the project's virtualenv; later runs reuse it)"
  "$PYTHON" -m venv --clear "$VENV" </dev/null || die "$PYTHON -m venv $VENV failed (see above)"
  venv_works || die "$VENV was made but has no pip: remove it (rm -rf $VENV) and run again"
}

apt_install() {  # apt_install PACKAGE...: as root, or through sudo; never reads stdin
  command -v apt-get >/dev/null 2>&1 || die "no apt-get here: install $* yourself, then run again"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "installing $* needs root: run as root, or install sudo"
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -q </dev/null
  # env: sudo drops the caller's environment
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" </dev/null
}

build_site() {  # the site into site/, strictly: a warning fails it
  # built into a fresh folder beside site/, then swapped in: two builds at once never write
  # into the same folder, and a failed build leaves the last good site/ as it was. The
  # folders carry this shell's PID: a later build removes those whose shell is gone.
  # With SITE_LOG set (test.sh), mkdocs's output also goes to that file, and SITE_SECONDS
  # is set to the build's seconds: the tests check that build instead of making their own.
  echo "== mkdocs build --strict"
  clean_stale_builds
  local old rc=0 started=$SECONDS
  BUILD_DIR=$(mktemp -d ".site-build-$$-XXXXXX")
  # mkdocs runs in the background, since bash runs a trap only after a foreground child
  # ends: a signal to this shell ends mkdocs at once and removes the half-built folder;
  # scripts/child.py ends it too where this shell is killed outright (kill -9)
  trap 'stop_build 130' INT
  trap 'stop_build 143' TERM
  trap 'stop_build 129' HUP
  if [ -n "${SITE_LOG:-}" ]; then
    "$PY" scripts/child.py -m mkdocs build --strict --site-dir "$BUILD_DIR" </dev/null > >(tee "$SITE_LOG") 2>&1 &
  else
    "$PY" scripts/child.py -m mkdocs build --strict --site-dir "$BUILD_DIR" </dev/null &
  fi
  BUILD_PID=$!
  wait "$BUILD_PID" || rc=$?
  trap - INT TERM HUP
  SITE_SECONDS=$((SECONDS - started))
  if [ "$rc" -ne 0 ]; then
    rm -rf "$BUILD_DIR"
    return "$rc"
  fi
  chmod 755 "$BUILD_DIR"
  old=$(mktemp -d ".site-old-$$-XXXXXX")
  if [ -e site ]; then mv site "$old/site"; fi
  mv "$BUILD_DIR" site
  rm -rf "$old"
}

stop_build() {  # stop_build STATUS: end the running mkdocs, remove its folder, exit STATUS
  kill -TERM "$BUILD_PID" 2>/dev/null || true
  wait "$BUILD_PID" 2>/dev/null || true
  rm -rf "$BUILD_DIR"
  echo "$SCRIPT: the build was stopped; site/ is as it was" >&2
  exit "$1"
}

clean_stale_builds() {  # remove .site-build-PID-* and .site-old-PID-* whose shell PID is gone
  local d pid
  for d in .site-build-* .site-old-*; do
    if [ ! -d "$d" ] || [ -L "$d" ]; then continue; fi
    pid=${d#.site-*-}
    pid=${pid%%-*}
    case "$pid" in
      '' | *[!0-9]*) ;;  # a name without a PID (an older common.sh's): stale
      *) if kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ]; then continue; fi ;;
    esac
    rm -rf "$d"
  done
}

pip_install() {  # the pinned requirements (torch: the machine's pip config picks the CPU build)
  echo "== pip install -r requirements.txt"
  "$PY" -m pip install --quiet -r requirements.txt </dev/null
}

# npm_plan: set NPM_PLAN to the one line saying what npm_install does here.
npm_plan() {
  if command -v npm >/dev/null 2>&1; then
    NPM_PLAN="npm ci (Pyodide, pinned in package-lock.json, for the in-browser trace reader)"
  else
    NPM_PLAN="no npm here: the site is built without the in-browser trace reader (install Node.js and npm for it)"
  fi
}

npm_install() {  # Pyodide from package-lock.json into node_modules/, where npm is installed
  npm_plan
  echo "== $NPM_PLAN"
  if command -v npm >/dev/null 2>&1; then
    npm ci --no-audit --no-fund --loglevel=error </dev/null || die "npm ci failed (see above)"
  fi
}

run_pytest() {  # run_pytest ARGS...: pytest's status, except that "no tests collected" (5) fails too
  # PYTEST_RUNNER: what runs it instead of `-m pytest` (test.sh: benchmarks/test_suite.py, which
  # runs pytest -q tests ARGS on every core and ends with the README's figure: tests, seconds, CPU, cores)
  local rc=0
  # shellcheck disable=SC2086 # the runner is one or two words
  "$PY" ${PYTEST_RUNNER:--m pytest} "$@" </dev/null || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "$SCRIPT: pytest collected no tests: that is a failure here" >&2
    return 1
  fi
  return "$rc"
}
