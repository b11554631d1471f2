# capa-worker suites.
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
  target_link_libraries(test_worker_protocol PRIVATE capacommon PkgConfig::ZMQ)
  target_compile_definitions(test_worker_protocol PRIVATE CAPA_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                                          CAPA_BINARY_DIR="${CMAKE_BINARY_DIR}")
  add_dependencies(test_worker_protocol capa-worker)
  add_test(NAME test_worker_protocol COMMAND test_worker_protocol)
  set_tests_properties(test_worker_protocol PROPERTIES LABELS integration TIMEOUT 600)
endif()
