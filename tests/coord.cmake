# capa-coordinator against a real PostgreSQL (fixture "pg") with protocol
# clients on loopback (tests/integration/test_coord.c). The outage case runs
# its own private cluster (build/coord_pgdown) and stops and starts it.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)

if(TARGET capa-coordinator)
  capa_pg_executable(test_coord ${CMAKE_CURRENT_LIST_DIR}/integration/test_coord.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_client.c
                     ${CMAKE_CURRENT_LIST_DIR}/integration/coord_fixture.c)
  target_include_directories(test_coord PRIVATE ${CMAKE_SOURCE_DIR}/coordinator
                             ${CMAKE_CURRENT_LIST_DIR}/integration)
  add_dependencies(test_coord capa-coordinator)
  set(coord_cases
    registration_checks_token_and_bench_signature
    a_revoked_worker_is_refused_at_its_next_message
    a_result_is_committed_before_its_ack
    tasks_go_out_while_a_result_waits_for_its_commit
    a_replayed_result_is_acknowledged_again_and_counted_once
    lease_expiry_returns_exactly_the_unplayed_pairs
    a_silent_worker_is_declared_dead_and_its_pairs_return
    a_worker_that_no_longer_plays_a_task_gives_its_pairs_back_at_once
    a_restored_lease_whose_worker_never_returns_ends_after_the_liveness_window
    a_flagged_worker_gets_no_task_even_if_the_flag_list_was_unreadable_at_start
    a_killed_coordinator_restarts_without_losing_an_acknowledged_pair
    hostile_messages_get_the_documented_errors_and_the_coordinator_keeps_serving
    an_sprt_run_stops_itself_when_the_llr_crosses_a_bound
    a_stopped_run_gets_no_more_tasks_and_late_results_are_kept
    a_values_study_completes_with_every_pair_stored_once
    an_spsa_run_moves_theta_and_keeps_its_history
    sigterm_says_bye_to_workers_and_exits_zero
    an_spsa_run_continues_after_a_restart
    curve_encryption_admits_only_clients_that_know_the_server_key
    admin_subcommands_show_a_token_once_and_refuse_bad_documents)
  capa_pg_add_test(NAME test_coord COMMAND test_coord ${coord_cases} TIMEOUT 300)
  capa_pg_add_test(NAME test_coord_outage
                   COMMAND test_coord a_database_outage_gives_internal_and_loses_nothing_acknowledged
                   TIMEOUT 300)
  if(TARGET capa-worker)
    # End to end: real workers play small runs (a few games at 300-400 nodes).
    add_dependencies(test_coord capa-worker)
    capa_pg_add_test(NAME test_coord_e2e
                     COMMAND test_coord an_sprt_run_played_by_real_workers_decides
                             a_values_study_played_by_real_workers_stores_every_pair_once
                     TIMEOUT 300)
  endif()
endif()
