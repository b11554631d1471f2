# Shared code of the Docker tests (tests/docker/test_images.sh,
# tests/docker/test_cluster.sh). Source it after setting `src` (the source
# tree); it defines:
#
#   s_say / s_ok / s_fail / s_die / s_check / s_require   reporting (failures
#                          counts failed checks)
#   s_docker_or_skip       exits 77 unless a Docker daemon answers
#   s_teardown             removes everything labelled $test_label=$run_id
#                          (containers, networks, volumes), made_images and
#                          $work; s_sweep_stale: the same for runs whose pid
#                          is gone
#   s_mb IMAGE             image size in MB
#   s_wait_health C STATE N   waits for container C's health STATE, N s at most
#   s_build_project IMAGE  builds docker/Dockerfile from commit $ref (or the
#                          working tree with CAPA_DOCKER_CONTEXT=worktree) as
#                          IMAGE, keeping the package stages as
#                          capalab/build-cache:{deps,runtime-base}; sets
#                          `commit` ("" = working tree)
#
# Variables it sets (a test may change them before use): SKIP, base_image,
# postgres_image, network, ref, run_id, prefix, test_label, made_images,
# work, failures.
# shellcheck shell=bash

SKIP=77
base_image=${CAPA_BASE_IMAGE:-debian:bookworm-slim}
postgres_image=${CAPA_POSTGRES_IMAGE:-capalab/postgres:15}
network=${CAPA_DOCKER_NETWORK:-default}
ref=${CAPA_DOCKER_REF:-HEAD}
run_id=$$
prefix=capalab-test-$run_id
test_label=org.capalab.test.pid
made_images=()
work=""
failures=0
commit=""

export DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0}

s_say() { printf '%s\n' "$*"; }
s_fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
s_ok() { printf 'ok: %s\n' "$*"; }
s_die() { printf 'FAIL: %s\n' "$*"; exit 1; }

# check DESCRIPTION COMMAND...: runs COMMAND, counts a failure if it fails.
s_check() {
  local what=$1
  shift
  if "$@"; then s_ok "$what"; else s_fail "$what"; fi
}

# The same, but returns 1 on failure (for checks later ones depend on).
s_require() {
  local what=$1
  shift
  if "$@"; then s_ok "$what"; else s_fail "$what"; return 1; fi
}

s_docker_or_skip() {
  if ! command -v docker >/dev/null 2>&1; then
    echo "SKIP: docker is not installed"
    exit $SKIP
  fi
  if ! docker info >/dev/null 2>&1; then
    echo "SKIP: no Docker daemon answers (docker info fails)"
    exit $SKIP
  fi
}

s_teardown() {
  local ids
  ids=$(docker ps -aq --filter "label=$test_label=$run_id" 2>/dev/null || true)
  [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1 || true
  ids=$(docker network ls -q --filter "label=$test_label=$run_id" 2>/dev/null || true)
  [ -z "$ids" ] || docker network rm $ids >/dev/null 2>&1 || true
  ids=$(docker volume ls -q --filter "label=$test_label=$run_id" 2>/dev/null || true)
  [ -z "$ids" ] || docker volume rm -f $ids >/dev/null 2>&1 || true
  if [ ${#made_images[@]} -gt 0 ]; then
    docker rmi -f "${made_images[@]}" >/dev/null 2>&1 || true
  fi
  [ -z "$work" ] || rm -rf "$work"
}

# Objects left by earlier runs that were killed (their pid is gone).
s_sweep_stale() {
  local kind pid obj
  for kind in container network volume; do
    while read -r obj pid; do
      [ -n "$obj" ] && [ -n "$pid" ] || continue
      kill -0 "$pid" 2>/dev/null && continue
      case $kind in
        container) docker rm -f -v "$obj" >/dev/null 2>&1 || true ;;
        network) docker network rm "$obj" >/dev/null 2>&1 || true ;;
        volume) docker volume rm -f "$obj" >/dev/null 2>&1 || true ;;
      esac
    done < <(
      case $kind in
        container) docker ps -a --filter "label=$test_label" \
                     --format "{{.ID}} {{.Label \"$test_label\"}}" ;;
        network) docker network ls --filter "label=$test_label" -q |
                   xargs -r docker network inspect -f "{{.Id}} {{index .Labels \"$test_label\"}}" ;;
        volume) docker volume ls --filter "label=$test_label" -q |
                  xargs -r docker volume inspect -f "{{.Name}} {{index .Labels \"$test_label\"}}" ;;
      esac 2>/dev/null)
  done
  docker images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null | grep '^capalab-test/' |
    while read -r obj; do
      pid=${obj##*:}
      kill -0 "$pid" 2>/dev/null || docker rmi -f "$obj" >/dev/null 2>&1 || true
    done || true
}

s_mb() {
  docker image inspect -f '{{ .Size }}' "$1" | awk '{ printf "%.1f", $1 / 1e6 }'
}

# Waits until container $1 reports health $2 (healthy/unhealthy); at most $3 s.
s_wait_health() {
  local c=$1 want=$2 limit=$3 i state
  for ((i = 0; i < limit; i++)); do
    state=$(docker inspect -f '{{ .State.Running }} {{ if .State.Health }}{{ .State.Health.Status }}{{ end }}' "$c" 2>/dev/null || echo "gone")
    case "$state" in
      "true $want") return 0 ;;
      true*) ;;
      *) printf 'container %s stopped (%s); its log:\n' "$c" "$state"; docker logs "$c" 2>&1 | tail -n 20; return 1 ;;
    esac
    sleep 1
  done
  printf 'container %s: not %s after %d s (%s); its log:\n' "$c" "$want" "$limit" "$state"
  docker logs "$c" 2>&1 | tail -n 20
  return 1
}

# docker build of docker/Dockerfile from the snapshot chosen by
# s_build_project, with extra arguments "$@".
s_build() {
  if [ -n "$commit" ]; then
    nice docker build --force-rm --network "$network" --build-arg "BASE_IMAGE=$base_image" \
      --build-arg BUILD_NICE=10 -f docker/Dockerfile "$@" - <"$work/context.tar"
  else
    nice docker build --force-rm --network "$network" --build-arg "BASE_IMAGE=$base_image" \
      --build-arg BUILD_NICE=10 -f "$src/docker/Dockerfile" "$@" "$src"
  fi
}

# Builds stage $1 of docker/Dockerfile as the cache image $2 (kept after
# the test, like the base images), removing the one it replaces.
s_cache_stage() {
  local stage=$1 tag=$2 old new
  old=$(docker image inspect -f '{{ .Id }}' "$tag" 2>/dev/null || true)
  s_build --target "$stage" -t "$tag" >>"$work/build.log" 2>&1 || return 1
  new=$(docker image inspect -f '{{ .Id }}' "$tag")
  if [ -n "$old" ] && [ "$old" != "$new" ]; then
    docker rmi "$old" >/dev/null 2>&1 || true
  fi
}

# A failed build leaves the layers before the failing step as untagged
# images; the last one named in the log takes the others with it.
s_drop_partial() {
  local id
  id=$(grep -oE '^ ---> [0-9a-f]{12}$' "$work/build.log" | tail -n 1 | cut -c7-)
  [ -z "$id" ] || [ -n "$(docker image inspect -f '{{ join .RepoTags "" }}' "$id" 2>/dev/null)" ] ||
    docker rmi "$id" >/dev/null 2>&1 || true
}

# Builds the project image $1 (the runtime target; the build stage as $2 when
# given, so that it is removed with the test's images). Needs $work. Dies
# when a build fails.
s_build_project() {
  local image=$1 build_image=${2:-} t0
  docker image inspect "$base_image" >/dev/null 2>&1 || "$src/docker/base-images.sh" debian ||
    s_die "cannot make $base_image"
  if [ "${CAPA_DOCKER_CONTEXT:-head}" = head ] && commit=$(git -C "$src" rev-parse --short "$ref^{commit}" 2>/dev/null); then
    git -C "$src" archive --format=tar "$commit" >"$work/context.tar"
    tar -tf "$work/context.tar" docker/Dockerfile >/dev/null 2>&1 ||
      s_die "commit $commit has no docker/Dockerfile"
    s_say "building from commit $commit (uncommitted changes are not part of this test)"
  else
    commit=""
    [ -f "$src/docker/Dockerfile" ] || s_die "no $src/docker/Dockerfile"
    s_say "building from the working tree $src (.dockerignore applies)"
  fi

  t0=$(date +%s)
  : >"$work/build.log"
  if ! s_cache_stage build-deps capalab/build-cache:deps ||
     ! s_cache_stage runtime-base capalab/build-cache:runtime-base; then
    tail -n 40 "$work/build.log"
    s_drop_partial
    s_die "docker build (dependency stages) failed"
  fi
  if [ -n "$build_image" ]; then
    made_images+=("$build_image")
    if ! s_build --target build -t "$build_image" >>"$work/build.log" 2>&1; then
      tail -n 40 "$work/build.log"
      s_drop_partial
      s_die "docker build (build stage) failed"
    fi
  fi
  made_images+=("$image")
  if ! s_build -t "$image" >>"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log"
    s_drop_partial
    s_die "docker build (runtime stage) failed"
  fi
  s_say "figure: project image built in $(( $(date +%s) - t0 )) s"
}
