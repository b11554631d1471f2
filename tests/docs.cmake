# Documentation that is generated from the code must match it.
add_test(NAME docs_config_reference_matches_the_programs
         COMMAND sh -c "'${CMAKE_SOURCE_DIR}/scripts/config-doc.sh' '${CMAKE_BINARY_DIR}' | diff -u '${CMAKE_SOURCE_DIR}/docs/config.md' - && echo 'docs/config.md is current'")
set_tests_properties(docs_config_reference_matches_the_programs PROPERTIES LABELS unit TIMEOUT 60)
