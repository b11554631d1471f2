# cmake --install lays out the programs, migrations and configs like a package.
include(${CMAKE_CURRENT_LIST_DIR}/pg.cmake)
capa_pg_add_test(NAME install_lays_out_programs_migrations_and_configs
                 COMMAND ${CMAKE_SOURCE_DIR}/tests/install/test_install.sh ${CMAKE_BINARY_DIR}
                 TIMEOUT 120)
