/* version.h - capalab's one version number, CMake's project version
 * (CMakeLists.txt passes it as CAPA_VERSION). The engine's name and version
 * go into HELLO/WELCOME, the workers table and the UCI "id name". */
#ifndef CAPA_VERSION_H
#define CAPA_VERSION_H

#ifndef CAPA_VERSION
#error "CAPA_VERSION is set by CMakeLists.txt"
#endif

#define CAPA_ENGINE_VERSION "capa-engine " CAPA_VERSION

#endif
