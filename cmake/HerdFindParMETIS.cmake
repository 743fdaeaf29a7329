# Finds ParMETIS and provides it as the imported target Herd::parmetis. ParMETIS itself links
# METIS (and, built by spack, GKlib) too; Scotch's library of the same interface (Debian:
# libscotchparmetis-dev) links PT-Scotch, whose random state Herd resets before each call, and
# sets HERD_PARMETIS_IS_SCOTCH. Used by Herd's build and by the installed HerdConfig.cmake (a
# static libherd passes ParMETIS on to its users' link).
if(TARGET Herd::parmetis)
  return()
endif()
set(_herd_parmetis_hints ${PARMETIS_ROOT} $ENV{PARMETIS_ROOT} ${ParMETIS_ROOT} $ENV{ParMETIS_ROOT})
find_path(PARMETIS_INCLUDE_DIR parmetis.h HINTS ${_herd_parmetis_hints} PATH_SUFFIXES include include/parmetis parmetis)
find_library(PARMETIS_LIBRARY parmetis HINTS ${_herd_parmetis_hints} PATH_SUFFIXES lib lib64)
if(NOT PARMETIS_INCLUDE_DIR OR NOT PARMETIS_LIBRARY)
  message(FATAL_ERROR "Herd: ParMETIS not found (spack: parmetis; Debian: libscotchparmetis-dev, Scotch's library of "
                      "its interface); set PARMETIS_ROOT, or configure with -DHerd_ENABLE_PARMETIS=OFF")
endif()
set(_herd_parmetis_libraries ${PARMETIS_LIBRARY})
# ParMETIS's own header includes metis.h; Scotch's does not, and needs no METIS.
file(STRINGS "${PARMETIS_INCLUDE_DIR}/parmetis.h" _herd_parmetis_metis REGEX "#include[ \t]*[<\"]metis.h[>\"]")
set(HERD_PARMETIS_IS_SCOTCH OFF)
if(NOT _herd_parmetis_metis)
  set(HERD_PARMETIS_IS_SCOTCH ON)
  include(${CMAKE_CURRENT_LIST_DIR}/HerdFindPTScotch.cmake)
  list(APPEND _herd_parmetis_libraries Herd::ptscotch)
else()
  # metis.h, which ParMETIS's header includes, may lie under another prefix (spack's metis).
  find_path(PARMETIS_METIS_INCLUDE_DIR metis.h HINTS ${_herd_parmetis_hints} ${METIS_ROOT} $ENV{METIS_ROOT}
            PATH_SUFFIXES include)
  find_library(PARMETIS_METIS_LIBRARY metis HINTS ${_herd_parmetis_hints} ${METIS_ROOT} $ENV{METIS_ROOT}
               PATH_SUFFIXES lib lib64)
  find_library(PARMETIS_GK_LIBRARY GKlib HINTS ${_herd_parmetis_hints} ${METIS_ROOT} $ENV{METIS_ROOT} ${GKLIB_ROOT}
               $ENV{GKLIB_ROOT} PATH_SUFFIXES lib lib64)
  foreach(library PARMETIS_METIS_LIBRARY PARMETIS_GK_LIBRARY)
    if(${library})
      list(APPEND _herd_parmetis_libraries ${${library}})
    endif()
  endforeach()
endif()
set(_herd_parmetis_includes ${PARMETIS_INCLUDE_DIR})
if(PARMETIS_METIS_INCLUDE_DIR)
  list(APPEND _herd_parmetis_includes ${PARMETIS_METIS_INCLUDE_DIR})
endif()
add_library(Herd::parmetis INTERFACE IMPORTED)
set_target_properties(Herd::parmetis PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_herd_parmetis_includes}"
  INTERFACE_LINK_LIBRARIES "${_herd_parmetis_libraries}")
