# How every suite registers its cases: from the CASES[] table of its source,
# read by one regex, so a CASE added to a source runs without a second list
# to keep in step.
#
#   capa_cases(<var> <source> [EXCEPT <case>...])
#       <var> = the names in the lines "    CASE(name)," of <source>, in
#       order, minus the EXCEPT ones (which a suite registers another way).
#       Configuring fails when a line holds "CASE(" in another form (the
#       regex would miss it, the case would never run), when a name appears
#       twice, or when an EXCEPT name is not a case of <source>.
#
#   capa_add_cases(<source> PROGRAM <target> (NAME <test> | PREFIX <prefix>)
#                  [EXCEPT <case>... | ONLY <case>...] [PG] [SERIAL]
#                  [LABELS <l>...] [TIMEOUT <s>] [LOCK <resource>])
#       The cases of <source> (all, all but EXCEPT, or the ONLY ones, each of
#       which must be a case of <source>). NAME: one ctest test <test>
#       running `<target> <case>...` (the cases share the program's fixture,
#       in table order); PREFIX: one ctest test <prefix>.<case> per case. PG:
#       the test needs the "pg" fixture (capa_pg_add_test); label integration
#       either way. LOCK: a RESOURCE_LOCK (its tests run one at a time).
#
#   capa_check_cases(<source>...)
#       Called once after every suite is included (tests/CMakeLists.txt):
#       configuring fails when a case of a source given to capa_add_cases is
#       registered by no call (e.g. left out with EXCEPT and never added with
#       ONLY), or when one of <source>... holds CASE lines but was never
#       given to capa_add_cases.
#
# Unit programs (tests/unit) run every case of their table when called with
# no argument, so they need no list. check_main (tests/check.h) fails on an
# argument that names no case, so a registered name whose case was renamed
# or deleted fails its test.
include_guard(GLOBAL)

function(capa_cases var source)
  cmake_parse_arguments(C "" "" "EXCEPT" ${ARGN})
  file(STRINGS ${source} all_lines REGEX "CASE\\(")
  set(names "")
  foreach(line ${all_lines})
    if(line MATCHES "^#define CASE\\(")
      continue()
    endif()
    if(NOT line MATCHES "^    CASE\\(([a-z0-9_]+)\\),$")
      message(FATAL_ERROR "${source}: a CASE line the registration cannot read "
                          "(write it as \"    CASE(name),\"): ${line}")
    endif()
    set(name ${CMAKE_MATCH_1})
    if(name IN_LIST names)
      message(FATAL_ERROR "${source}: CASE(${name}) appears twice")
    endif()
    list(APPEND names ${name})
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "${source}: no CASE(name) lines")
  endif()
  foreach(name ${C_EXCEPT})
    if(NOT name IN_LIST names)
      message(FATAL_ERROR "${source}: no CASE(${name}) to leave out")
    endif()
    list(REMOVE_ITEM names ${name})
  endforeach()
  set(${var} ${names} PARENT_SCOPE)
endfunction()

function(capa_add_cases source)
  cmake_parse_arguments(A "PG;SERIAL" "PROGRAM;NAME;PREFIX;TIMEOUT;LOCK" "EXCEPT;ONLY;LABELS"
                        ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  if(A_ONLY)
    capa_cases(all ${source})
    foreach(c ${A_ONLY})
      if(NOT c IN_LIST all)
        message(FATAL_ERROR "${source}: no CASE(${c}) to register")
      endif()
    endforeach()
    set(cases ${A_ONLY})
  else()
    capa_cases(cases ${source} EXCEPT ${A_EXCEPT})
  endif()
  get_filename_component(source ${source} ABSOLUTE)
  set_property(GLOBAL APPEND PROPERTY CAPA_CASE_SOURCES ${source})
  foreach(c ${cases})
    set_property(GLOBAL APPEND PROPERTY CAPA_CASES_REGISTERED "${source}:${c}")
  endforeach()
  if(A_NAME)
    set(tests ${A_NAME})
  else()
    set(tests "")
    foreach(c ${cases})
      list(APPEND tests ${A_PREFIX}.${c})
    endforeach()
  endif()
  foreach(t ${tests})
    if(A_NAME)
      set(args ${cases})
    else()
      string(REPLACE "${A_PREFIX}." "" args ${t})
    endif()
    set(serial "")
    if(A_SERIAL)
      set(serial SERIAL)
    endif()
    if(A_PG)
      capa_pg_add_test(NAME ${t} COMMAND ${A_PROGRAM} ${args} ${serial}
                       LABELS ${A_LABELS} TIMEOUT ${A_TIMEOUT})
    else()
      add_test(NAME ${t} COMMAND ${A_PROGRAM} ${args})
      set(labels integration ${A_LABELS})
      set_tests_properties(${t} PROPERTIES LABELS "${labels}" TIMEOUT ${A_TIMEOUT})
      if(A_SERIAL)
        set_tests_properties(${t} PROPERTIES RUN_SERIAL TRUE)
      endif()
    endif()
    if(A_LOCK)
      set_tests_properties(${t} PROPERTIES RESOURCE_LOCK ${A_LOCK})
    endif()
  endforeach()
endfunction()

function(capa_check_cases)
  get_property(sources GLOBAL PROPERTY CAPA_CASE_SOURCES)
  get_property(registered GLOBAL PROPERTY CAPA_CASES_REGISTERED)
  list(REMOVE_DUPLICATES sources)
  foreach(source ${sources})
    capa_cases(cases ${source})
    foreach(c ${cases})
      if(NOT "${source}:${c}" IN_LIST registered)
        message(FATAL_ERROR "${source}: CASE(${c}) is registered by no ctest test")
      endif()
    endforeach()
  endforeach()
  foreach(source ${ARGN})
    get_filename_component(source ${source} ABSOLUTE)
    file(STRINGS ${source} lines REGEX "^    CASE\\(")
    if(lines AND NOT source IN_LIST sources)
      message(FATAL_ERROR "${source}: has cases but no capa_add_cases registers them")
    endif()
  endforeach()
endfunction()
