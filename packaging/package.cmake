# Debian packages by CPack (`cpack -G DEB` in the build folder):
#   capalab-worker_<version>_<arch>.deb   capa-worker, its systemd unit (own
#   user, Nice=, CPUQuota=, StateDirectory=), /etc/capalab/worker.json (a
#   conffile), the manual page capa-worker(1) made from --help by help2man,
#   and maintainer scripts for the user and the state folder.
# Only the `worker` component is packaged; `cmake --install` still installs
# everything as before. tests/package/test_deb.sh builds, lints and installs it.
set(_deb ${CMAKE_SOURCE_DIR}/packaging/deb)
set(_gen ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_gen})
# Set before the changelog is configured from it: on a first configure the
# cache entry does not exist yet (the trailer line came out empty on a fresh
# clone and lintian refused the changelog).
set(CAPA_DEB_MAINTAINER "capalab maintainers <maintainers@capalab.invalid>" CACHE STRING
    "Maintainer field of the Debian packages (a cluster's operators put their own)")

if(TARGET capa-worker)
  install(TARGETS capa-worker RUNTIME DESTINATION bin COMPONENT worker EXCLUDE_FROM_ALL)
  install(FILES ${_deb}/capalab-worker.service DESTINATION /lib/systemd/system COMPONENT worker EXCLUDE_FROM_ALL)
  install(FILES ${_deb}/worker.json DESTINATION /etc/capalab COMPONENT worker EXCLUDE_FROM_ALL)
  install(FILES ${_deb}/copyright DESTINATION share/doc/capalab-worker COMPONENT worker EXCLUDE_FROM_ALL)

  # changelog.Debian.gz: gzip -9n, so that the package is reproducible
  set(DEB_VERSION ${PROJECT_VERSION}-1)
  configure_file(${_deb}/changelog ${_gen}/changelog.Debian @ONLY)
  add_custom_command(OUTPUT ${_gen}/changelog.Debian.gz
                     COMMAND gzip -9nc ${_gen}/changelog.Debian > ${_gen}/changelog.Debian.gz
                     DEPENDS ${_gen}/changelog.Debian VERBATIM)
  set(_pkg_files ${_gen}/changelog.Debian.gz)
  install(FILES ${_gen}/changelog.Debian.gz DESTINATION share/doc/capalab-worker COMPONENT worker EXCLUDE_FROM_ALL)

  # capa-worker(1) from its --help (help2man, a Debian package)
  find_program(HELP2MAN help2man)
  if(HELP2MAN)
    add_custom_command(OUTPUT ${_gen}/capa-worker.1.gz
                       COMMAND ${HELP2MAN} --no-info --no-discard-stderr
                               --version-string=${PROJECT_VERSION}
                               --name "play Capablanca chess games for a capalab coordinator"
                               --section 1 -o ${_gen}/capa-worker.1 $<TARGET_FILE:capa-worker>
                       COMMAND gzip -9nf ${_gen}/capa-worker.1
                       DEPENDS capa-worker VERBATIM)
    list(APPEND _pkg_files ${_gen}/capa-worker.1.gz)
    install(FILES ${_gen}/capa-worker.1.gz DESTINATION share/man/man1 COMPONENT worker EXCLUDE_FROM_ALL)
  else()
    message(STATUS "help2man not found: the worker package gets no manual page")
  endif()
  add_custom_target(package-files ALL DEPENDS ${_pkg_files})
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME capalab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${CAPA_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL worker)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_WORKER_PACKAGE_NAME capalab-worker)
set(CPACK_DEBIAN_WORKER_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_WORKER_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_WORKER_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_WORKER_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://capalab.invalid/")
set(CPACK_COMPONENT_WORKER_DESCRIPTION
    "capalab worker: gives CPU time to a capalab coordinator\ncapa-worker plays Capablanca chess games (10x8 board, Archbishop and\nChancellor) with the capalab engine for a coordinator that tunes engine\nparameters and estimates piece values, and reports every game. The package\nholds the program, a systemd unit that runs it as its own unprivileged user\nwith a nice level and a CPU quota, /etc/capalab/worker.json and a manual\npage. Write the coordinator's address and your token with\n`capa-worker setup`, then `systemctl enable --now capalab-worker`.")
set(CPACK_DEBIAN_WORKER_PACKAGE_CONTROL_EXTRA "${_deb}/postinst;${_deb}/prerm;${_deb}/postrm;${_deb}/conffiles")
set(CPACK_DEBIAN_WORKER_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
