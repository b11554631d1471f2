# The HTTP API, the report pages and the capa CLI against a real
# capa-coordinator with HTTP on a free loopback port and its own database
# (fixture "pg"); see tests/integration/test_http_fixture.h.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

if(TARGET capa-coordinator AND TARGET capa)
  set(http_fixture ${CMAKE_CURRENT_LIST_DIR}/integration/test_http_fixture.c
                   ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c)
  foreach(t test_http test_cli test_http_browser)
    capa_pg_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/integration/${t}.c ${http_fixture})
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                               ${CMAKE_SOURCE_DIR}/cli ${CMAKE_SOURCE_DIR}/worker
                               ${CMAKE_CURRENT_LIST_DIR}/integration)
    add_dependencies(${t} capa-coordinator capa)
  endforeach()
  # One test per program: its cases share the program's fixture (a
  # coordinator and runs filled with pairs).
  foreach(t test_http test_cli test_http_browser)
    capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/${t}.c PROGRAM ${t} NAME ${t} PG
                   TIMEOUT 300)
  endforeach()
  # Headless Chromium (Debian package "chromium"); exit 77 = skipped when it is missing.
  set_tests_properties(test_http_browser PROPERTIES SKIP_RETURN_CODE 77)
endif()
