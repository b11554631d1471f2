# Study series (coordinator/series.h) against a real PostgreSQL (fixture
# "pg"), with real capa-worker processes and protocol clients on loopback
# (tests/integration/test_series.c).
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

if(TARGET capa-coordinator AND TARGET capa-worker)
  capa_pg_executable(test_series ${CMAKE_CURRENT_LIST_DIR}/integration/test_series.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_fixture.c)
  target_include_directories(test_series PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration)
  add_dependencies(test_series capa-coordinator capa-worker capa)
  capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/test_series.c PROGRAM test_series
                 PREFIX test_series PG TIMEOUT 400 LOCK series_workers)
endif()
