# The README's quickstart (scripts/quickstart.sh), shrunk to 2 pairs per
# imbalance, run twice on the test build with its own private database.
add_test(NAME quickstart_plays_a_small_study_end_to_end_and_reuses_its_database
         COMMAND ${CMAKE_SOURCE_DIR}/tests/quickstart/test_quickstart.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(quickstart_plays_a_small_study_end_to_end_and_reuses_its_database
                     PROPERTIES LABELS integration TIMEOUT 900 RUN_SERIAL TRUE)
