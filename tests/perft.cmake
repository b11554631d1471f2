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

# The crc and perft commands themselves (output format, exit codes).
if(TARGET capa-engine)
  add_test(NAME engine_crc_count COMMAND capa-engine crc count)
  set_tests_properties(engine_crc_count PROPERTIES LABELS perft PASS_REGULAR_EXPRESSION "^21836\n$")
  add_test(NAME engine_crc_check_gothic COMMAND capa-engine crc check RNBQCKABNR)
  set_tests_properties(engine_crc_check_gothic PROPERTIES LABELS perft PASS_REGULAR_EXPRESSION "valid: number [0-9]+")
  add_test(NAME engine_crc_check_capablanca_fails COMMAND capa-engine crc check RNABQKBCNR)
  set_tests_properties(engine_crc_check_capablanca_fails PROPERTIES LABELS perft WILL_FAIL TRUE)
  add_test(NAME engine_perft_divide
           COMMAND capa-engine perft --variant janus --moves e2e4 e7e5 2)
  set_tests_properties(engine_perft_divide PROPERTIES LABELS perft
                       PASS_REGULAR_EXPRESSION "h1i3: [0-9]+\n.*Nodes searched: [0-9]+")
  add_test(NAME engine_perft_bad_fen_fails
           COMMAND capa-engine perft --fen "10/10/10/10/10/10/10/10 w - - 0 1" 1)
  set_tests_properties(engine_perft_bad_fen_fails PROPERTIES LABELS perft WILL_FAIL TRUE)
endif()
if(TARGET capa-engine)
  # A table with a deliberately wrong count: perft-suite must fail.
  add_test(NAME perft_suite_fails_on_a_wrong_count
           COMMAND capa-engine perft-suite ${CMAKE_SOURCE_DIR}/tests/data/rules_perft_wrong.tsv)
  set_tests_properties(perft_suite_fails_on_a_wrong_count PROPERTIES LABELS perft WILL_FAIL TRUE)
endif()
if(TARGET capa-engine)
  # Tricky positions (en passant pins, CRC castling, promotions, arrays with
  # pieces removed) whose counts were taken from Fairy-Stockfish.
  add_test(NAME perft_table_extra
           COMMAND capa-engine perft-suite ${CMAKE_SOURCE_DIR}/tests/data/rules_perft_extra.tsv)
  set_tests_properties(perft_table_extra PROPERTIES LABELS perft TIMEOUT 600)
endif()
