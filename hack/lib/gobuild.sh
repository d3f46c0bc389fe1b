# What every hack/*/build.sh shares: the per-version cache folder, its build lock, and the stamped, atomic build of
# one Go binary. Sourced, never run:  source "$(dirname "$0")/../lib/gobuild.sh"
#
# The cache layout (the Python harness and the tests look binaries up there):
#   ${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}/<tool>/<version>-<go>-<os>-<arch>/

# The wrapper modules pin their graphs in go.mod and go.sum; -mod=mod lets a build add a go.sum line a new Go needs.
export GOFLAGS="${GOFLAGS:--mod=mod}"

# gobuild_bin_dir TOOL VERSION: sets VERSION and BIN_DIR to the tool's cache folder for this Go and platform, creates it, and
# holds its build lock until the script exits. Test sessions in several worktrees run the build scripts at once,
# and two builds of one binary race on its .tmp file: flock makes the second wait, then find the binary built
# (util-linux; skipped where it is missing).
gobuild_bin_dir() {
  local cache_root="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
  VERSION="$2"
  BIN_DIR="${cache_root}/$1/$2-$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)"
  mkdir -p "$BIN_DIR"
  if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
}

# gobuild_stamp FILE...: the 16-hex-digit hash of the files a binary is built from (its go.mod/go.sum, our own
# main.go); a binary whose recorded stamp differs is rebuilt.
gobuild_stamp() {
  cat "$@" | sha256sum | cut -c1-16
}

# gobuild OUT STAMP LDFLAGS PACKAGE [go build flag...]: builds PACKAGE into OUT unless OUT exists and, when STAMP
# is not empty, OUT.stamp holds STAMP. Static (CGO off), -trimpath, stripped (-s -w) plus LDFLAGS (version -X
# stamps), at GOBUILD_PARALLEL packages at a time (default 2: these machines have two cores). The binary is
# written to OUT.tmp and moved into place, so an interrupted build never leaves a truncated OUT behind.
gobuild() {
  local out="$1" stamp="$2" ldflags="$3" package="$4"
  shift 4
  if [ -x "$out" ] && { [ -z "$stamp" ] || [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; }; then
    return 0
  fi
  mkdir -p "$(dirname "$out")"
  echo "building $(basename "$out") ($package) into $(dirname "$out")" >&2
  CGO_ENABLED=0 go build -p "${GOBUILD_PARALLEL:-2}" -trimpath "$@" -ldflags "-s -w${ldflags:+ $ldflags}" \
    -o "$out.tmp" "$package"
  mv "$out.tmp" "$out"
  if [ -n "$stamp" ]; then printf '%s' "$stamp" > "$out.stamp"; fi
}
