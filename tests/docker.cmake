# Docker images (docker/): the locally made base images, the PostgreSQL image
# and the project image built from the last commit. Label docker; all three are
# slow on a cold machine (debootstrap, package downloads, a full compile), so
# they are left out of the default run: `ctest -L docker` runs them. Each exits
# 77 (skipped) when no Docker daemon answers. They share the Docker daemon and
# the CPU, so they never run at the same time; postgres and project need the
# base images that docker_base makes.
foreach(part base postgres project)
  add_test(NAME docker_${part}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/docker/test_images.sh ${part})
  set_tests_properties(docker_${part} PROPERTIES
    LABELS "docker;slow"
    SKIP_RETURN_CODE 77
    TIMEOUT 1800
    RESOURCE_LOCK docker
    ENVIRONMENT "CAPA_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endforeach()
set_tests_properties(docker_base PROPERTIES FIXTURES_SETUP docker_base_images)
set_tests_properties(docker_postgres docker_project PROPERTIES FIXTURES_REQUIRED docker_base_images)

# The worker package (tests/docker/test_deb.sh): cpack -G DEB, lintian, apt
# install in a clean base-image container, pairs stored through a
# coordinator on the host, remove and purge. Needs the base images.
if(TARGET capa-worker AND TARGET capa-coordinator)
  add_test(NAME docker_deb COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/docker/test_deb.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(docker_deb PROPERTIES
    LABELS "docker;slow"
    SKIP_RETURN_CODE 77
    TIMEOUT 900
    RESOURCE_LOCK docker
    FIXTURES_REQUIRED docker_base_images
    ENVIRONMENT "CAPA_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endif()

# The Swarm stack (tests/docker/test_swarm.sh): docker/stack.yaml on a
# single-node swarm (made and left by the test when the daemon is in none),
# scaling, rolling updates, a removed task; every pair stored once.
add_test(NAME docker_swarm COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/docker/test_swarm.sh)
set_tests_properties(docker_swarm PROPERTIES
  LABELS "docker;slow"
  SKIP_RETURN_CODE 77
  TIMEOUT 1500
  RESOURCE_LOCK docker
  FIXTURES_REQUIRED docker_base_images
  ENVIRONMENT "CAPA_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
