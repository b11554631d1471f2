# The fault suite (tests/fault/test_fault.c): real capa-coordinator and
# capa-worker processes on loopback, SIGKILLs, a PostgreSQL restart, a network
# cut through an in-test TCP proxy, revoked tokens, an eavesdropper on CURVE.
# Label "fault" (plus "integration" from capa_pg_add_test). The chaos case
# runs its own private cluster (build/tests/fault_chaos_pg) and prints its
# seed; CAPA_FAULT_SEED=<seed> replays the schedule. The start-up crash case
# places its PostgreSQL crash at random in the coordinator's first 10 s;
# CAPA_FAULT_CRASH_MS=<ms> places it by hand.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)

if(TARGET capa-coordinator AND TARGET capa-worker)
  capa_pg_executable(test_fault ${CMAKE_CURRENT_LIST_DIR}/fault/test_fault.c
                     ${CMAKE_CURRENT_LIST_DIR}/fault/fault_proxy.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_fixture.c)
  target_include_directories(test_fault PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration ${CMAKE_CURRENT_LIST_DIR}/fault)
  add_dependencies(test_fault capa-coordinator capa-worker)
  foreach(case_name
          a_chaos_run_stores_exactly_the_planned_pairs
          a_worker_cut_off_by_the_network_resends_its_spool_and_nothing_is_counted_twice
          a_revoked_token_is_refused_at_every_kind_of_message
          an_eavesdropper_sees_the_token_only_without_curve
          a_lying_worker_is_caught_by_replays_and_its_pairs_excluded
          more_hostile_messages_get_their_errors_and_nothing_is_stored
          a_worker_whose_results_are_unlike_the_others_is_flagged_as_an_outlier
          the_coordinator_survives_a_database_crash_during_its_start_up)
    # One at a time: they play real games on the two shared cores.
    capa_pg_add_test(NAME fault.${case_name} COMMAND test_fault ${case_name}
                     LABELS fault TIMEOUT 300)
    set_tests_properties(fault.${case_name} PROPERTIES RESOURCE_LOCK capa_fault)
  endforeach()
endif()
