# The "pg" fixture: ONE private PostgreSQL cluster for the whole ctest run,
# started by scripts/pgtmp.sh in <build>/pgtest before the first test that
# needs it and stopped after the last one. A cluster left running by a killed
# ctest is reused.
#
# Suites whose file sorts before pg.cmake include it first:
#   include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
#
#   capa_pg_executable(<target> <sources...>)
#       a test program with tests/ on its include path, linked to ${CAPA_LIBS},
#       with CAPA_SOURCE_DIR, CAPA_BINARY_DIR, CAPA_PGTEST_DIR and CAPA_PGTMP
#       defined (what tests/pgtest.h needs)
#   capa_pg_add_test(NAME <name> COMMAND <cmd...> [SERIAL] [LABELS <l...>] [TIMEOUT <s>])
#       a ctest test that requires the fixture, labelled integration (plus
#       LABELS); SERIAL = it restarts or stops the cluster, so it runs alone.
#       The environment carries CAPA_PGTEST_DIR and CAPA_PGTMP for scripts.
include_guard(GLOBAL)

set(CAPA_PGTEST_DIR ${CMAKE_BINARY_DIR}/pgtest)
set(CAPA_PGTMP ${CMAKE_SOURCE_DIR}/scripts/pgtmp.sh)

add_test(NAME pg_start COMMAND ${CAPA_PGTMP} start ${CAPA_PGTEST_DIR})
set_tests_properties(pg_start PROPERTIES FIXTURES_SETUP pg LABELS integration TIMEOUT 180)
add_test(NAME pg_stop COMMAND ${CAPA_PGTMP} stop ${CAPA_PGTEST_DIR})
set_tests_properties(pg_stop PROPERTIES FIXTURES_CLEANUP pg LABELS integration TIMEOUT 180)

function(capa_pg_executable target)
  add_executable(${target} ${ARGN})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_link_libraries(${target} PRIVATE ${CAPA_LIBS})
  target_compile_definitions(${target} PRIVATE
    CAPA_SOURCE_DIR="${CMAKE_SOURCE_DIR}" CAPA_BINARY_DIR="${CMAKE_BINARY_DIR}"
    CAPA_PGTEST_DIR="${CAPA_PGTEST_DIR}" CAPA_PGTMP="${CAPA_PGTMP}")
endfunction()

function(capa_pg_add_test)
  cmake_parse_arguments(PG "SERIAL" "NAME;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT PG_TIMEOUT)
    set(PG_TIMEOUT 600)
  endif()
  add_test(NAME ${PG_NAME} COMMAND ${PG_COMMAND})
  set(labels integration ${PG_LABELS})
  set_tests_properties(${PG_NAME} PROPERTIES
    FIXTURES_REQUIRED pg
    LABELS "${labels}"
    TIMEOUT ${PG_TIMEOUT}
    ENVIRONMENT "CAPA_PGTEST_DIR=${CAPA_PGTEST_DIR};CAPA_PGTMP=${CAPA_PGTMP}")
  if(PG_SERIAL)
    set_tests_properties(${PG_NAME} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()
