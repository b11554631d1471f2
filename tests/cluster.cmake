# The cluster: the bootstrap contributor the coordinator registers from a
# token file (tests/integration/test_bootstrap.c, label integration, on the
# "pg" fixture) and the Docker cluster of docker/compose.yaml
# (tests/docker/test_cluster.sh, labels docker;slow: base images, the
# project image, three workers, kills, restarts and a network partition;
# exits 77 = skipped without a Docker daemon).
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

if(TARGET capa-coordinator)
  capa_pg_executable(test_bootstrap ${CMAKE_CURRENT_LIST_DIR}/integration/test_bootstrap.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c)
  target_include_directories(test_bootstrap PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration)
  add_dependencies(test_bootstrap capa-coordinator)
  capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/test_bootstrap.c PROGRAM test_bootstrap
                 NAME test_bootstrap PG TIMEOUT 120)
endif()

add_test(NAME docker_cluster COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/docker/test_cluster.sh)
set_tests_properties(docker_cluster PROPERTIES
  LABELS "docker;slow"
  SKIP_RETURN_CODE 77
  TIMEOUT 1900
  RUN_SERIAL TRUE
  RESOURCE_LOCK docker
  ENVIRONMENT "CAPA_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
