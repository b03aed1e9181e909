# Sourced by the scripts that make sure a Debian package is there (ensure-chromium.sh,
# ensure-postgres.sh). apt_install <script name> <package...>: apt-get update and install, as root
# or through sudo; progress on stderr.
apt_install() {
  local who=$1; shift
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "$who: installing $* needs root (no sudo)" >&2; return 1; }
    as_root=(sudo)
  fi
  echo "$who: installing Debian's $*" >&2
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >&2
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2
}
