# Finds METIS 5 and provides it as the imported target Herd::metis. Used by Herd's build and by
# the installed HerdConfig.cmake (a static libherd passes METIS on to its users' link).
if(TARGET Herd::metis)
  return()
endif()
find_path(METIS_INCLUDE_DIR metis.h HINTS ${METIS_ROOT} $ENV{METIS_ROOT} PATH_SUFFIXES include)
find_library(METIS_LIBRARY metis HINTS ${METIS_ROOT} $ENV{METIS_ROOT} PATH_SUFFIXES lib lib64)
if(NOT METIS_INCLUDE_DIR OR NOT METIS_LIBRARY)
  message(FATAL_ERROR "Herd: METIS not found (Debian: libmetis-dev; spack: metis); set METIS_ROOT, "
                      "or configure with -DHerd_ENABLE_METIS=OFF")
endif()
add_library(Herd::metis INTERFACE IMPORTED)
set_target_properties(Herd::metis PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${METIS_LIBRARY}")
