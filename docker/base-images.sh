#!/usr/bin/env bash
# Makes capalab's base images locally, for machines that cannot pull from a
# container registry:
#
#   debian:bookworm-slim   a minimal Debian 12 root filesystem (debootstrap
#                          --variant=minbase from the mirror apt already uses on
#                          this machine), upgraded, trimmed, `docker import`ed
#   capalab/postgres:15    Debian's postgresql-15 on top of it, with an
#                          entrypoint compatible with the official image's
#                          (docker/postgres/)
#
# Each image carries a label with the hash of its recipe; an image whose label
# matches is kept as it is, so a second run takes about a second.
#
#   docker/base-images.sh [--force] [all|debian|postgres]
#
# Environment:
#   CAPA_BASE_IMAGE           name of the Debian image (default debian:bookworm-slim)
#   CAPA_POSTGRES_IMAGE       name of the PostgreSQL image (default capalab/postgres:15)
#   CAPA_DEBIAN_MIRROR        Debian mirror URL (default: the one apt uses here)
#   CAPA_DEBIAN_SECURITY_MIRROR  security mirror URL (default: the one apt uses here)
#   CAPA_DOCKER_NETWORK       network for `docker build` (default: the default
#                             bridge; "host" when containers on the bridge cannot
#                             reach the mirror; found out automatically otherwise)
#
# Needs root (debootstrap) and a running Docker daemon.
set -euo pipefail

SUITE=bookworm
LABEL=org.capalab.recipe
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
base_image=${CAPA_BASE_IMAGE:-debian:bookworm-slim}
postgres_image=${CAPA_POSTGRES_IMAGE:-capalab/postgres:15}
network=${CAPA_DOCKER_NETWORK:-}
force=0
what=all

s_usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

s_die() {
  printf 'base-images: %s\n' "$*" >&2
  exit 1
}

s_say() {
  printf 'base-images: %s\n' "$*" >&2
}

# The first URI apt on this machine uses for SUITE (exact suite name), from
# one-line .list files and deb822 .sources files; disabled entries skipped.
s_host_mirror() {
  local suite=$1 f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -r "$f" ] || continue
      awk -v s="$suite" '
        /^[ \t]*#/ { next }
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) == s) print $i
        }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -r "$f" ] || continue
      awk -v s="$suite" '
        BEGIN { RS = ""; FS = "\n" }
        {
          types = ""; uris = ""; suites = ""; enabled = "yes"
          for (i = 1; i <= NF; i++) {
            line = $i
            if (line ~ /^[ \t]*#/) continue
            if (match(line, /^[A-Za-z-]+:/)) {
              key = tolower(substr(line, 1, RLENGTH - 1))
              val = substr(line, RLENGTH + 1)
              gsub(/^[ \t]+|[ \t]+$/, "", val)
              if (key == "types") types = val
              else if (key == "uris") uris = val
              else if (key == "suites") suites = val
              else if (key == "enabled") enabled = tolower(val)
            }
          }
          if (enabled == "no") next
          if ((" " types " ") !~ / deb /) next
          if ((" " suites " ") ~ (" " s " ")) { split(uris, u, /[ \t]+/); print u[1] }
        }' "$f"
    done
  } | awk 'NR == 1'
}

s_label_of() {
  docker image inspect -f "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null || true
}

s_id_of() {
  docker image inspect -f '{{ .Id }}' "$1" 2>/dev/null || true
}

# Removes image id $1 that NAME $2 no longer names (kept while other images
# are built on it; they go when their own makers replace them).
s_drop_replaced() {
  [ -n "$1" ] && [ "$1" != "$(s_id_of "$2")" ] || return 0
  docker rmi "$1" >/dev/null 2>&1 || true
}

s_hash() {
  sha256sum | cut -c1-16
}

# The recipe of the Debian image: this script and the mirrors it uses.
s_debian_recipe() {
  {
    cat "${BASH_SOURCE[0]}"
    printf '%s\n%s\n%s\n' "$SUITE" "$mirror" "$security"
  } | s_hash
}

# The recipe of the PostgreSQL image: its build context and the exact base.
s_postgres_recipe() {
  {
    cat "$here/postgres/Dockerfile" "$here/postgres/docker-entrypoint.sh"
    docker image inspect -f '{{ .Id }}' "$base_image"
  } | s_hash
}

s_write_rootfs_config() {
  local root=$1
  rm -f "$root/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\n' "$mirror" "$SUITE" "$SUITE"
    printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
    if [ -n "$security" ]; then
      printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' "$security" "$SUITE"
      printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
    fi
  } >"$root/etc/apt/sources.list.d/debian.sources"

  # Packages installed later in containers leave no docs, man pages or
  # translations behind (copyright files stay), and apt keeps no caches.
  cat >"$root/etc/dpkg/dpkg.cfg.d/capalab-slim" <<'EOF'
# capalab base image: keep images small.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  cat >"$root/etc/apt/apt.conf.d/capalab-slim" <<'EOF'
// capalab base image: no package caches, no translations, compressed indexes.
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Apt::AutoRemove::SuggestsImportant "false";
EOF
  # Maintainer scripts must not start services inside an image build.
  printf '#!/bin/sh\n# capalab base image: no service starts from maintainer scripts.\nexit 101\n' \
    >"$root/usr/sbin/policy-rc.d"
  chmod 0755 "$root/usr/sbin/policy-rc.d"
}

s_trim_rootfs() {
  local root=$1
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/groff/* "$root"/usr/share/info/* \
         "$root"/usr/share/lintian/* "$root"/usr/share/linda/*
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
         "$root"/var/lib/dpkg/*-old "$root"/tmp/* "$root"/var/tmp/* "$root"/root/.bash_history
  find "$root/var/log" -type f -exec truncate -s 0 {} +
  # Docker provides these at run time; the build host's copies must not leak.
  rm -f "$root/etc/resolv.conf" "$root/etc/hostname" "$root/etc/hosts"
  : >"$root/etc/machine-id"
}

s_make_debian() {
  local recipe=$1 work start
  start=$(date +%s)
  [ "$(id -u)" -eq 0 ] || s_die "making $base_image needs root (debootstrap)"
  if ! command -v debootstrap >/dev/null; then
    s_say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; } \
      || s_die "cannot install debootstrap"
  fi
  work=$(mktemp -d /var/tmp/capalab-rootfs.XXXXXX)
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  s_say "debootstrap --variant=minbase $SUITE from $mirror"
  if ! debootstrap --variant=minbase "$SUITE" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 20 "$work/debootstrap.log" >&2
    s_die "debootstrap failed (log above)"
  fi
  s_write_rootfs_config "$work/root"
  s_say "upgrading to the current point release and security updates"
  if ! DEBIAN_FRONTEND=noninteractive chroot "$work/root" \
       sh -c 'apt-get update -qq && apt-get -y -qq upgrade && apt-get -y -qq autoremove --purge' \
       >"$work/upgrade.log" 2>&1; then
    tail -n 20 "$work/upgrade.log" >&2
    s_die "apt-get upgrade in the new root failed (log above)"
  fi
  s_trim_rootfs "$work/root"
  s_say "importing as $base_image ($(du -sh "$work/root" | cut -f1) on disk)"
  tar --numeric-owner --xattrs -C "$work/root" -c . |
    docker import \
      --change "LABEL $LABEL=$recipe" \
      --change 'LABEL org.opencontainers.image.description="Debian 12 minbase, made locally by capalab docker/base-images.sh"' \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV LANG=C.UTF-8' \
      --change 'CMD ["bash"]' \
      - "$base_image" >/dev/null
  rm -rf "$work"
  trap - EXIT
  s_say "made $base_image in $(( $(date +%s) - start )) s"
  s_choose_network
  s_say "apt-get update && apt-get install work in a container from $base_image (network $network)"
}

# Containers must reach the mirror for image builds; find out on which network.
s_choose_network() {
  local probe='apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null'
  [ -n "$network" ] && return 0
  if docker run --rm "$base_image" sh -c "$probe" >/dev/null 2>&1; then
    network=default
  elif docker run --rm --network host "$base_image" sh -c "$probe" >/dev/null 2>&1; then
    network=host
    s_say "containers on the default bridge cannot reach $mirror; building with --network host" \
          "(set CAPA_DOCKER_NETWORK=host for docker build of docker/Dockerfile too)"
  else
    s_die "apt-get install fails inside a container made from $base_image, on the bridge and on the host network"
  fi
}

s_make_postgres() {
  local recipe=$1 start
  start=$(date +%s)
  s_choose_network
  s_say "building $postgres_image from $base_image (network $network)"
  local log
  log=$(mktemp)
  if ! docker build -q --network "$network" \
         --build-arg "BASE_IMAGE=$base_image" \
         --label "$LABEL=$recipe" \
         -t "$postgres_image" "$here/postgres" >"$log" 2>&1; then
    grep -v -e '^DEPRECATED' -e '^ *Install the buildx' -e '^ *https://docs.docker.com/go/buildx' "$log" >&2
    rm -f "$log"
    s_die "docker build of $postgres_image failed (output above)"
  fi
  rm -f "$log"
  s_say "made $postgres_image in $(( $(date +%s) - start )) s"
}

s_size() {
  docker image inspect -f '{{ .Size }}' "$1" | awk '{ printf "%.1f MB", $1 / 1e6 }'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    -h|--help) s_usage; exit 0 ;;
    all|debian|postgres) what=$1 ;;
    *) s_usage >&2; exit 2 ;;
  esac
  shift
done

# One maker at a time on this machine (two test runs may start together).
exec 9>"${TMPDIR:-/tmp}/capalab-base-images.lock"
flock 9

command -v docker >/dev/null || s_die "docker is not installed"
docker info >/dev/null 2>&1 || s_die "no Docker daemon answers (docker info fails)"

mirror=${CAPA_DEBIAN_MIRROR:-$(s_host_mirror "$SUITE")}
security=${CAPA_DEBIAN_SECURITY_MIRROR:-$(s_host_mirror "$SUITE-security")}
[ -n "$mirror" ] || s_die "no Debian mirror for $SUITE in /etc/apt/sources.list*; set CAPA_DEBIAN_MIRROR"

if [ "$what" = all ] || [ "$what" = debian ] || ! docker image inspect "$base_image" >/dev/null 2>&1; then
  recipe=$(s_debian_recipe)
  if [ $force -eq 0 ] && [ "$(s_label_of "$base_image")" = "$recipe" ]; then
    s_say "$base_image is up to date ($(s_size "$base_image"))"
  else
    old=$(s_id_of "$base_image")
    s_make_debian "$recipe"
    s_drop_replaced "$old" "$base_image"
    s_say "$base_image: $(s_size "$base_image")"
  fi
fi

if [ "$what" = all ] || [ "$what" = postgres ]; then
  recipe=$(s_postgres_recipe)
  if [ $force -eq 0 ] && [ "$(s_label_of "$postgres_image")" = "$recipe" ]; then
    s_say "$postgres_image is up to date ($(s_size "$postgres_image"))"
  else
    old=$(s_id_of "$postgres_image")
    s_make_postgres "$recipe"
    s_drop_replaced "$old" "$postgres_image"
    s_say "$postgres_image: $(s_size "$postgres_image")"
  fi
fi
