# capa match end to end: real child processes (capa-engine itself, and
# tests/match/fake_uci_engine.sh, which crashes, hangs, plays an illegal move,
# writes garbage or stays silent), the GSPRT stopping at a bound, and clear
# messages for bad input. Label integration.
set(capa_fake_engine ${CMAKE_CURRENT_SOURCE_DIR}/match/fake_uci_engine.sh)

function(capa_match_test name regex)
  add_test(NAME ${name} COMMAND capa match ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS integration TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "${regex}")
endfunction()

# Two capa-engines at fixed nodes, two threads, PGN out: every game clean.
capa_match_test(match_capa_engine_pairs
  "capa-engine#1: crashes 0, hangs 0, time losses 0, illegal moves 0\ncapa-engine#2: crashes 0, hangs 0, time losses 0, illegal moves 0"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --nodes 500
  --games 4 --concurrency 2 --pgn ${CMAKE_CURRENT_BINARY_DIR}/match_capa_engine_pairs.pgn)
# The same at a clock (capablanca start).
capa_match_test(match_capa_engine_clock "Pairs|pairs 1: W [0-9]+ D [0-9]+ L [0-9]+"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --tc 1+0.01
  --timemargin 200 --games 2 --variant capablanca --max-moves 60)

# What each engine's moves cost: count, time and reported depth a move (moves with a
# mate score left out of the depth, and said so).
capa_match_test(match_reports_move_costs
  "capa-engine#1: [0-9]+ moves, on average [0-9]+ ms and depth [1-9][0-9]*\\.[0-9] a move( \\(depth over the [0-9]+ moves that reported one without a mate score\\))?\ncapa-engine#2: [0-9]+ moves"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --nodes 500 --games 2)

# A material-blind baseline loses everything: the SPRT accepts H1 within a few pairs
# and the match stops there (far below the 200-game limit).
set(blind "")
foreach(p Pawn Knight Bishop Rook Archbishop Chancellor Queen)
  list(APPEND blind --option ${p}ValueMg=0 --option ${p}ValueEg=0)
endforeach()
capa_match_test(match_sprt_stops_at_h1 "LLR: [0-9.]+ \\([-0-9.]+, [0-9.]+\\) H1 accepted\nPairs: [0-9] "
  --engine $<TARGET_FILE:capa-engine> --name blind ${blind} --engine $<TARGET_FILE:capa-engine>
  --nodes 1000 --sprt 0,200 --model logistic --games 200 --concurrency 2 --resign 3,600)

# Misbehaving engines: each game it spoils is its loss, and the match goes on.
foreach(mode crash hang illegal)
  set(what_crash "crashes 2, hangs 0, time losses 0, illegal moves 0")
  set(what_hang "crashes 0, hangs 2, time losses 0, illegal moves 0")
  set(what_illegal "crashes 0, hangs 0, time losses 0, illegal moves 2")
  capa_match_test(match_engine_${mode}_loses_and_match_goes_on
    "penta \\[0, 0, 0, 0, 1\\].*fake_uci_engine.sh: ${what_${mode}}"
    --engine ${capa_fake_engine} --engine $<TARGET_FILE:capa-engine> --nodes 300 --games 2
    --move-timeout 1)
  set_property(TEST match_engine_${mode}_loses_and_match_goes_on PROPERTY ENVIRONMENT
               FAKE_UCI_MODE=${mode} FAKE_UCI_AFTER=3 FAKE_UCI_ENGINE=$<TARGET_FILE:capa-engine>)
endforeach()

# Engines that cannot play at all, and nonsense options: a clear message.
capa_match_test(match_rejects_missing_engine "engine /no/such/engine: No such file or directory"
  --engine /no/such/engine --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 2)
capa_match_test(match_rejects_non_executable "not an executable file"
  --engine ${CMAKE_SOURCE_DIR}/README.md --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 2)
capa_match_test(match_rejects_garbage_engine "exited before answering \"uci\" with \"uciok\" \\(its first line: \"hello, I am not a chess engine\"\\)"
  --engine ${capa_fake_engine} --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 2)
set_property(TEST match_rejects_garbage_engine PROPERTY ENVIRONMENT FAKE_UCI_MODE=garbage)
capa_match_test(match_rejects_silent_engine "did not answer \"uci\" with \"uciok\" within 1.0 s: is it a UCI engine\\?"
  --engine ${capa_fake_engine} --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 2
  --uci-timeout 1)
set_property(TEST match_rejects_silent_engine PROPERTY ENVIRONMENT FAKE_UCI_MODE=silent)
capa_match_test(match_rejects_unknown_option "the engine has no option \"NoSuchOption\""
  --engine $<TARGET_FILE:capa-engine> --option NoSuchOption=1 --engine $<TARGET_FILE:capa-engine>
  --nodes 100 --games 2)
capa_match_test(match_rejects_option_out_of_range "option Hash: 0 is outside \\[1, [0-9]+\\]"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --option Hash=0
  --nodes 100 --games 2)
capa_match_test(match_rejects_bad_tc "--tc \"ten\": expected BASE\\[\\+INC\\]"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --tc ten --games 2)
capa_match_test(match_rejects_odd_games "games come in pairs"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 3)
capa_match_test(match_rejects_bad_sprt "--sprt \"5\": expected 2 comma-separated numbers"
  --engine $<TARGET_FILE:capa-engine> --engine $<TARGET_FILE:capa-engine> --nodes 100 --sprt 5)
capa_match_test(match_rejects_one_engine "a match needs two --engine options \\(1 given\\)"
  --engine $<TARGET_FILE:capa-engine> --nodes 100 --games 2)

# --state: a second run goes on from the first's counts; a replayed seed, another
# limit and a forged file are refused, the file left as it was.
add_test(NAME match_state_resumes_an_sprt
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/match/state_resume.sh $<TARGET_FILE:capa>
                 $<TARGET_FILE:capa-engine>)
set_tests_properties(match_state_resumes_an_sprt PROPERTIES LABELS integration TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "state_resume: ok")
