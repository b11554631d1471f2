# capa-coordinator against a real PostgreSQL (fixture "pg") with protocol
# clients on loopback (tests/integration/test_coord.c). The outage case runs
# its own private cluster (build/coord_pgdown) and stops and starts it.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

if(TARGET capa-coordinator)
  capa_pg_executable(test_coord ${CMAKE_CURRENT_LIST_DIR}/integration/test_coord.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_fixture.c)
  target_include_directories(test_coord PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration)
  add_dependencies(test_coord capa-coordinator)
  set(coord_own_cluster_cases a_database_outage_gives_internal_and_loses_nothing_acknowledged)
  set(coord_e2e_cases an_sprt_run_played_by_real_workers_decides
                      a_values_study_played_by_real_workers_stores_every_pair_once
                      per_side_params_reach_the_side_under_test_and_replays_agree)
  set(coord_src ${CMAKE_CURRENT_LIST_DIR}/integration/test_coord.c)
  capa_add_cases(${coord_src} PROGRAM test_coord NAME test_coord PG TIMEOUT 300
                 EXCEPT ${coord_own_cluster_cases} ${coord_e2e_cases})
  capa_add_cases(${coord_src} PROGRAM test_coord NAME test_coord_outage PG TIMEOUT 300
                 ONLY ${coord_own_cluster_cases})
  if(TARGET capa-worker)
    # End to end: real workers play small runs (a few games at 300-400 nodes).
    add_dependencies(test_coord capa-worker)
    capa_add_cases(${coord_src} PROGRAM test_coord NAME test_coord_e2e PG TIMEOUT 300
                   ONLY ${coord_e2e_cases})
  endif()
endif()
