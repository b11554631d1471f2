# Differential test of the rules core against Fairy-Stockfish (label oracle):
# seeded random games in every variant, perft divides compared move by move.
# Skipped (exit 77) when /usr/games/fairy-stockfish is absent.
add_executable(rules_oracle ${CMAKE_CURRENT_SOURCE_DIR}/oracle/rules_oracle.c)
target_link_libraries(rules_oracle PRIVATE ${CAPA_LIBS})
add_test(NAME rules_oracle COMMAND rules_oracle /usr/games/fairy-stockfish 10)
set_tests_properties(rules_oracle PROPERTIES LABELS oracle TIMEOUT 600 SKIP_RETURN_CODE 77)
