# capa-coordinator against a real PostgreSQL (fixture "pg") with protocol
# clients on loopback (tests/integration/test_coord.c), plus the load
# generator's client library.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)

if(TARGET capa-coordinator)
  capa_pg_executable(test_coord ${CMAKE_CURRENT_LIST_DIR}/integration/test_coord.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c)
  target_include_directories(test_coord PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration)
  add_dependencies(test_coord capa-coordinator)
  capa_pg_add_test(NAME test_coord COMMAND test_coord TIMEOUT 300)
endif()
