# Perft suite (label perft): every row of tests/data/perft.tsv, published node
# counts with their sources. Rows up to 10 million nodes run by default; the
# deeper rows (up to about a billion nodes each) carry the label "slow".
if(TARGET capa-engine)
  add_test(NAME perft_table
           COMMAND capa-engine perft-suite ${CMAKE_SOURCE_DIR}/tests/data/perft.tsv --max-nodes 10000000)
  set_tests_properties(perft_table PROPERTIES LABELS perft TIMEOUT 600)
  add_test(NAME perft_table_deep
           COMMAND capa-engine perft-suite ${CMAKE_SOURCE_DIR}/tests/data/perft.tsv --min-nodes 10000001)
  set_tests_properties(perft_table_deep PROPERTIES LABELS "perft;slow" TIMEOUT 3600)
endif()
