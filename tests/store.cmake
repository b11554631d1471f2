# The PostgreSQL store against a real server (fixture "pg", tests/pg.cmake).
# The restart case stops and restarts the shared cluster, so it runs alone.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cases.cmake)

capa_pg_executable(test_store ${CMAKE_CURRENT_LIST_DIR}/integration/test_store.c)
target_link_libraries(test_store PRIVATE capastore capaengine)

set(store_restart_cases
  the_store_survives_a_postgresql_restart
  no_pair_is_lost_or_counted_twice_across_restarts_under_load)
capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/test_store.c PROGRAM test_store
               NAME test_store PG EXCEPT ${store_restart_cases} TIMEOUT 300)
capa_add_cases(${CMAKE_CURRENT_LIST_DIR}/integration/test_store.c PROGRAM test_store
               NAME test_store_restart PG ONLY ${store_restart_cases} SERIAL TIMEOUT 300)
