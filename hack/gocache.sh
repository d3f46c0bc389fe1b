# Shared by hack/*/build.sh scripts that build Go binaries into the per-version cache (sourced, not run):
#   gocache_lock TOOL VERSION     sets BIN_DIR to ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/TOOL/
#                                 VERSION-<go version>-<os>-<arch> (created) and holds the folder's build lock on fd 9
#                                 until the script exits (call it directly, not in $(...), or the lock goes at once)
#   gocache_fresh OUT STAMP       succeeds when OUT is there and was built from STAMP
#   gocache_done OUT STAMP        moves OUT.tmp to OUT and writes the stamp
# One build per cache folder at a time: test sessions in several worktrees run the build scripts at once, and two
# builds of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux;
# skipped where it is missing). This is the shape of hack/kwok/build.sh and the other build scripts.
gocache_lock() {
  BIN_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/$1/$2-$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)"
  mkdir -p "$BIN_DIR"
  if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
}
gocache_fresh() { [ -x "$1" ] && [ "$(cat "$1.stamp" 2>/dev/null)" = "$2" ]; }
gocache_done() { mv "$1.tmp" "$1" && printf '%s' "$2" > "$1.stamp"; }
