# capa tune end to end against a real PostgreSQL (fixture "pg", tests/pg.cmake)
# and a PGN file: tests/integration/test_tune.c.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

capa_pg_executable(test_tune ${CMAKE_CURRENT_LIST_DIR}/integration/test_tune.c)
target_link_libraries(test_tune PRIVATE capastore)
add_dependencies(test_tune capa)
capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/test_tune.c PROGRAM test_tune
               NAME test_tune PG TIMEOUT 300)
