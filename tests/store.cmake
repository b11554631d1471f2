# The PostgreSQL store against a real server (fixture "pg", tests/pg.cmake).
# The restart case stops and restarts the shared cluster, so it runs alone.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)

capa_pg_executable(test_store ${CMAKE_CURRENT_LIST_DIR}/integration/test_store.c)
target_link_libraries(test_store PRIVATE capastore)

set(store_cases
  migrations_apply_once_and_are_idempotent
  a_changed_migration_is_refused
  two_coordinators_migrating_at_once_apply_each_migration_once
  a_batch_is_stored_once_and_a_replay_is_all_duplicates
  a_partly_replayed_batch_reports_new_and_duplicate_pairs
  a_bad_batch_stores_nothing
  batches_share_a_commit_and_a_bad_one_spoils_nothing
  totals_equal_a_recount_of_the_pairs
  an_excluded_pair_gives_its_number_back_and_stays_kept
  excluded_pairs_of_an_older_database_free_their_numbers
  racing_stores_count_each_pair_once
  stored_pairs_come_back_as_ranges
  imbalance_games_are_counted_from_the_side_under_test
  pair_kinds_carry_the_file_of_a_missing_pawn_and_games_their_endings
  expired_leases_return_exactly_the_unstored_pairs
  leases_survive_a_new_store_and_extend
  runs_move_through_their_statuses
  runs_are_listed_in_pages_and_scheduled_by_priority
  spsa_history_and_estimates_round_trip
  sql_injection_looking_names_are_stored_verbatim
  only_token_hashes_are_kept_and_revoked_tokens_fail
  a_worker_id_cannot_be_taken_by_another_contributor
  contributor_stats_count_all_time_the_last_days_and_active_workers)
capa_pg_add_test(NAME test_store COMMAND test_store ${store_cases} TIMEOUT 300)
capa_pg_add_test(NAME test_store_restart
                 COMMAND test_store the_store_survives_a_postgresql_restart
                         no_pair_is_lost_or_counted_twice_across_restarts_under_load
                 SERIAL TIMEOUT 300)
