# capa-worker suites.
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)
#
# Unit tests of the worker's parts are tests/unit/test_worker_*.c (label unit);
# the PGN upload test serves HTTP with libmicrohttpd, which the worker library
# itself does not link.
#
# Integration (label integration): the real capa-worker process against a
# scripted ZeroMQ ROUTER inside the test program, on loopback: registration,
# heartbeats, tasks, reconnect with backoff and spool resend, SIGKILL and
# restart, SIGTERM, ERROR codes.
if(TARGET test_worker_upload)
  target_link_libraries(test_worker_upload PRIVATE PkgConfig::MHD)
endif()

if(TARGET capa-worker AND TARGET capacommon)
  add_executable(test_worker_protocol ${CMAKE_SOURCE_DIR}/tests/integration/test_worker_protocol.c)
  target_include_directories(test_worker_protocol PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_link_libraries(test_worker_protocol PRIVATE capacommon PkgConfig::ZMQ PkgConfig::ZLIB)
  target_compile_definitions(test_worker_protocol PRIVATE CAPA_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                                          CAPA_BINARY_DIR="${CMAKE_BINARY_DIR}")
  add_dependencies(test_worker_protocol capa-worker)
  # One ctest test per case (each starts its own workers); they share the
  # two cores, so they run one at a time: some check timings (backoff gaps).
  capa_add_cases(${CMAKE_SOURCE_DIR}/tests/integration/test_worker_protocol.c
                 PROGRAM test_worker_protocol PREFIX worker_protocol TIMEOUT 180
                 LOCK capa_worker_protocol)
endif()

# capa-worker's bad input (config, coordinator address, token file, state
# folder on a full or read-only disk), `setup` and `status`: the real
# program, no coordinator. The disk cases mount tmpfs folders (root only).
if(TARGET capa-worker)
  add_test(NAME worker_cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/worker/test_worker_cli.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(worker_cli PROPERTIES LABELS integration TIMEOUT 120)
endif()
