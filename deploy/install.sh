#!/usr/bin/env bash
# Installs (or upgrades) Hearth as a systemd service; safe to run again.
#
#   sudo deploy/install.sh BINARY      install BINARY as /usr/local/bin/hearth, the unit, the
#                                      settings file (only when absent), then start the service
#   sudo deploy/install.sh --litestream BINARY
#                                      the same with the unit that runs hearth under Litestream
#                                      (its settings in /etc/hearth/litestream.yml, the replica in
#                                      HEARTH_REPLICA_URL); Litestream is the official .deb
#   sudo deploy/install.sh --uninstall stop and remove the service and the binary; the data
#                                      (/var/lib/hearth) and the settings (/etc/hearth) stay
#
# DESTDIR=/some/root installs into that directory instead of / and leaves systemd alone (for
# packaging and tests); systemctl is also skipped where systemd is not running.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
destdir="${DESTDIR:-}"
destdir="${destdir%/}"

bin_path=/usr/local/bin/hearth
unit_path=/etc/systemd/system/hearth.service
conf_dir=/etc/hearth
env_path=$conf_dir/hearth.env
litestream_conf=$conf_dir/litestream.yml
litestream_bin=/usr/bin/litestream
doc_dir=/usr/local/share/doc/hearth
data_dir=/var/lib/hearth

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }

usage() {
  sed -n '2,14s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}

# systemctl only for a real install on a machine that runs systemd.
use_systemd() {
  [ -z "$destdir" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1
}

# Copies SRC to DEST with MODE, through a temporary file and a rename, so a running hearth keeps
# its open binary and a reader never sees half a file. Says whether anything changed.
place() {
  local src="$1" dest="$2" mode="$3"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    chmod "$mode" "$dest"
    return 1
  fi
  install -m "$mode" "$src" "$dest.new.$$"
  mv -f "$dest.new.$$" "$dest"
  return 0
}

# The value of VAR in the settings file (the last uncommented assignment), else DEFAULT.
setting() {
  local var="$1" default="$2" value=""
  if [ -f "$destdir$env_path" ]; then
    value="$(sed -n "s/^[[:space:]]*$var=//p" "$destdir$env_path" | tail -n 1)"
    value="${value%\"}"; value="${value#\"}"
  fi
  echo "${value:-$default}"
}

install_hearth() {
  local src="$1" unit_src="$here/hearth.service" replicated="${2:-}"
  [ -z "$replicated" ] || unit_src="$here/hearth-litestream.service"
  [ -f "$src" ] || die "no such file: $src"
  [ -x "$src" ] || die "$src is not executable (chmod +x $src)"
  [ -n "$destdir" ] || [ "$(id -u)" -eq 0 ] || die "run as root: sudo $0 $src"

  # A binary for another processor (an aarch64 build on a 32-bit OS, say) fails here rather than
  # as a service that never starts.
  local version
  if version="$("$src" --version 2>/dev/null)"; then
    say "installing $version"
  elif [ -z "$destdir" ]; then
    die "$src does not run on this machine ($(uname -m)); is it the build for this processor and OS?"
  else
    say "installing $src (not runnable here; fine for DESTDIR=$destdir)"
  fi

  install -d -m 0755 "$destdir/usr/local/bin" "$destdir/etc/systemd/system" "$destdir$doc_dir"
  install -d -m 0755 "$destdir$conf_dir"

  # The Litestream unit needs Litestream itself, which Hearth does not ship.
  if [ -n "$replicated" ] && [ ! -x "$destdir$litestream_bin" ]; then
    if [ -z "$destdir" ]; then
      die "no $litestream_bin: install Litestream's official .deb first (README.md, \"Replication with Litestream\")"
    fi
    say "litestream: $litestream_bin is not in $destdir (fine for DESTDIR; install the .deb on the target)"
  fi

  local changed=0
  if place "$src" "$destdir$bin_path" 0755; then changed=1; say "binary: $bin_path"; else say "binary: $bin_path (unchanged)"; fi
  if place "$unit_src" "$destdir$unit_path" 0644; then changed=1; say "unit: $unit_path${replicated:+ (under Litestream)}"; else say "unit: $unit_path (unchanged)"; fi
  # The owner's settings are never overwritten; the example beside them shows new options.
  place "$here/hearth.env.example" "$destdir$conf_dir/hearth.env.example" 0644 || true
  if [ -e "$destdir$env_path" ]; then
    say "settings: $env_path kept as it is"
  else
    install -m 0600 "$here/hearth.env.example" "$destdir$env_path"
    say "settings: $env_path created from the example (every setting at its default)"
  fi
  if [ -n "$replicated" ]; then
    # Litestream's settings read everything from hearth.env; an edited copy is kept.
    place "$here/litestream.yml" "$destdir$conf_dir/litestream.yml.example" 0644 || true
    if [ -e "$destdir$litestream_conf" ]; then
      say "litestream: $litestream_conf kept as it is"
    else
      install -m 0644 "$here/litestream.yml" "$destdir$litestream_conf"
      say "litestream: $litestream_conf created"
    fi
  fi
  for doc in "$here/../README.md" "$here/Caddyfile" "$here/nginx.conf"; do
    [ -f "$doc" ] && { place "$doc" "$destdir$doc_dir/$(basename "$doc")" 0644 || true; }
  done

  local listen public replica
  listen="$(setting HEARTH_LISTEN 127.0.0.1:8080)"
  public="$(setting HEARTH_PUBLIC_URL "")"
  replica="$(setting HEARTH_REPLICA_URL "")"
  if [ -n "$replicated" ] && [ -z "$replica" ]; then
    say "set HEARTH_REPLICA_URL (and for S3 the LITESTREAM_ keys) in $env_path, then: sudo systemctl restart hearth"
    if use_systemd; then
      systemctl daemon-reload
      systemctl enable --quiet hearth.service
      say "not started: Litestream needs the replica's address"
    fi
    return 0
  fi

  if use_systemd; then
    systemctl daemon-reload
    systemctl enable --quiet hearth.service
    if systemctl is-active --quiet hearth.service; then
      if [ "$changed" = 1 ]; then
        say "restarting hearth to run the new version"
        systemctl restart hearth.service
      fi
    else
      systemctl start hearth.service
    fi
    wait_healthy "$listen"
  else
    local why="systemd is not running here"
    [ -z "$destdir" ] || why="DESTDIR is set"
    say "systemctl skipped ($why); on the target: systemctl daemon-reload && systemctl enable --now hearth"
  fi

  local host="${listen%:*}" port="${listen##*:}"
  case "$host" in 0.0.0.0 | "[::]" | "") host="$(hostname 2>/dev/null || echo localhost)" ;; esac
  echo
  echo "Hearth listens on http://$host:$port${public:+ and is published as $public}"
  [ -z "$replicated" ] || echo "  replica:  ${replica%%\?*} (Litestream; hearth doctor says how far behind it is)"
  echo "  settings: sudo nano $env_path, then sudo systemctl restart hearth"
  echo "  logs:     journalctl -u hearth -f"
  echo "  status:   systemctl status hearth"
  echo "  data:     $data_dir (back up with: sudo hearth backup --data-dir $data_dir ~/hearth-\$(date +%F).db)"
}

# Polls /healthz for a few seconds so the owner learns at once whether the service came up.
wait_healthy() {
  local listen="$1" url
  url="http://${listen/0.0.0.0/127.0.0.1}/healthz"
  url="${url/\[::\]/[::1]}"
  command -v curl >/dev/null 2>&1 || return 0
  for _ in $(seq 1 50); do
    if curl -fsS -o /dev/null "$url" 2>/dev/null; then
      say "running: $url answers"
      return 0
    fi
    sleep 0.2
  done
  echo "install: hearth did not answer $url within 10 s; see: journalctl -u hearth -n 50" >&2
  systemctl --no-pager --lines=0 status hearth.service >&2 || true
  return 1
}

uninstall_hearth() {
  [ -n "$destdir" ] || [ "$(id -u)" -eq 0 ] || die "run as root: sudo $0 --uninstall"
  if use_systemd; then
    systemctl disable --now --quiet hearth.service 2>/dev/null || true
  fi
  local f
  for f in "$bin_path" "$unit_path" "$conf_dir/hearth.env.example" "$conf_dir/litestream.yml.example"; do
    if [ -e "$destdir$f" ]; then rm -f "$destdir$f"; say "removed $f"; fi
  done
  if [ -d "$destdir$doc_dir" ]; then rm -rf "$destdir$doc_dir"; say "removed $doc_dir"; fi
  if use_systemd; then
    systemctl daemon-reload
    systemctl reset-failed hearth.service 2>/dev/null || true
  fi
  say "kept the data ($data_dir, really /var/lib/private/hearth), the settings ($conf_dir) and any replica"
  say "to delete them too: sudo rm -rf /var/lib/private/hearth $data_dir $conf_dir"
}

case "${1:-}" in
  --uninstall) [ "$#" -eq 1 ] || usage; uninstall_hearth ;;
  --litestream) [ "$#" -eq 2 ] || usage; case "$2" in -*) usage ;; esac; install_hearth "$2" litestream ;;
  -h | --help) usage 0 ;;
  "" | -*) usage ;;
  *) [ "$#" -eq 1 ] || usage; install_hearth "$1" ;;
esac
