# The engine's own suites: UCI matches driven like cutechess-cli over pipes
# and refereed by the rules core (label integration; the 10+0.1 ones also slow).
# --timemargin is cutechess-cli's overrun allowance: the suite runs in
# parallel with the rest of ctest on a loaded machine, where the scheduler
# alone can delay a reply by tens of milliseconds.
#
# Thread-safety check (not part of ctest: it needs its own build):
#   cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAPA_SANITIZE=thread
#   cmake --build build/tsan --target test_game test_search test_search_uci
#   build/tsan/tests/test_game && build/tsan/tests/test_search && build/tsan/tests/test_search_uci
# (test_game plays two games on two threads and a two-thread selfplay.)
add_executable(test_uci_match ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_uci_match.c)
target_link_libraries(test_uci_match PRIVATE capacli capaengine)

function(capa_uci_match name labels timeout)
  add_test(NAME ${name} COMMAND test_uci_match --engine $<TARGET_FILE:capa-engine> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout}
                       SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endfunction()

capa_uci_match(uci_match_capablanca "integration" 300 --variant capablanca --games 2 --tc 2+0.02 --timemargin 100)
capa_uci_match(uci_match_caparandom "integration" 300 --variant caparandom --games 2 --tc 2+0.02 --timemargin 100)
capa_uci_match(uci_match_fairy_stockfish_capablanca "integration" 300
               --opponent /usr/games/fairy-stockfish --variant capablanca --games 2 --tc 2+0.02 --timemargin 100)
capa_uci_match(uci_match_fairy_stockfish_caparandom "integration" 300
               --opponent /usr/games/fairy-stockfish --variant caparandom --games 2 --tc 2+0.02 --timemargin 100)
capa_uci_match(uci_match_capablanca_10s "integration;slow" 1200 --variant capablanca --games 4 --tc 10+0.1 --timemargin 50)
capa_uci_match(uci_match_caparandom_10s "integration;slow" 1200 --variant caparandom --games 4 --tc 10+0.1 --timemargin 50)
capa_uci_match(uci_match_fairy_stockfish_10s "integration;slow" 1200
               --opponent /usr/games/fairy-stockfish --variant caparandom --games 4 --tc 10+0.1 --timemargin 50)

# The capa-engine commands themselves, end to end.
add_test(NAME engine_bench_command COMMAND capa-engine bench 4 1)
set_tests_properties(engine_bench_command PROPERTIES LABELS integration TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "Nodes searched  : [0-9]+")
add_test(NAME engine_selfplay_command
         COMMAND capa-engine selfplay --pairs 2 --threads 2 --nodes 300 --crc-random
                 --imbalance "A vs C" --a material --b {"ArchbishopValueMg":850}
                 --pgn ${CMAKE_CURRENT_BINARY_DIR}/engine_selfplay_command.pgn)
set_tests_properties(engine_selfplay_command PROPERTIES LABELS integration TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "pentanomial \\(B's pair score 0, 1/4, 1/2, 3/4, 1\\): \\[[0-9]+, [0-9]+, [0-9]+, [0-9]+, [0-9]+\\]")
add_test(NAME engine_selfplay_rejects_unknown_parameters
         COMMAND capa-engine selfplay --pairs 1 --b {"NoSuchValue":1})
set_tests_properties(engine_selfplay_rejects_unknown_parameters PROPERTIES LABELS integration
                     TIMEOUT 60 PASS_REGULAR_EXPRESSION "unknown parameter \"NoSuchValue\"")

# scripts/evalcmp.py --terms on capa-engine's `eval`: a made-up reference
# whose weights differ from ours in two groups must be found out.
add_test(NAME evalcmp_terms_fit
         COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/integration/test_evalcmp.py
                 $<TARGET_FILE:capa-engine> ${CMAKE_SOURCE_DIR}/scripts/evalcmp.py
                 ${CMAKE_SOURCE_DIR}/tests/data/evalcmp_positions.fen
                 ${CMAKE_CURRENT_BINARY_DIR}/evalcmp_terms_fit)
set_tests_properties(evalcmp_terms_fit PROPERTIES LABELS integration TIMEOUT 120)
