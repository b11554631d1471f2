# The fault suite (tests/fault/test_fault.c): real capa-coordinator and
# capa-worker processes on loopback, SIGKILLs, a PostgreSQL restart, a network
# cut through an in-test TCP proxy, revoked tokens, an eavesdropper on CURVE.
# Label "fault" (plus "integration" from capa_pg_add_test). The chaos case
# runs its own private cluster (build/tests/fault_chaos_pg) and prints its
# seed; CAPA_FAULT_SEED=<seed> replays the schedule. The start-up crash case
# places its PostgreSQL crash at random in the coordinator's first 10 s;
# CAPA_FAULT_CRASH_MS=<ms> places it by hand.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

if(TARGET capa-coordinator AND TARGET capa-worker)
  capa_pg_executable(test_fault ${CMAKE_CURRENT_LIST_DIR}/fault/test_fault.c
                     ${CMAKE_CURRENT_LIST_DIR}/fault/fault_proxy.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_fixture.c)
  target_include_directories(test_fault PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration ${CMAKE_CURRENT_LIST_DIR}/fault)
  add_dependencies(test_fault capa-coordinator capa-worker)
  # One at a time: they play real games on the two shared cores.
  capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/fault/test_fault.c PROGRAM test_fault PREFIX fault
                 PG LABELS fault TIMEOUT 300 LOCK capa_fault)
  # The chaos run restarts processes that run their start-up bench again.
  set_tests_properties(fault.a_chaos_run_stores_exactly_the_planned_pairs PROPERTIES TIMEOUT 600)
endif()
