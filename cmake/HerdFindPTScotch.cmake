# Finds PT-Scotch (the MPI Scotch, with its error handler) and provides it as the imported target
# Herd::ptscotch. Used by Herd's build and by the installed HerdConfig.cmake (a static libherd
# passes PT-Scotch on to its users' link).
if(TARGET Herd::ptscotch)
  return()
endif()
find_path(PTSCOTCH_INCLUDE_DIR ptscotch.h HINTS ${PTSCOTCH_ROOT} $ENV{PTSCOTCH_ROOT} ${SCOTCH_ROOT} $ENV{SCOTCH_ROOT}
          PATH_SUFFIXES include include/scotch scotch)
foreach(library ptscotch scotch ptscotcherr)
  string(TOUPPER ${library} name)
  find_library(${name}_LIBRARY ${library} HINTS ${PTSCOTCH_ROOT} $ENV{PTSCOTCH_ROOT} ${SCOTCH_ROOT} $ENV{SCOTCH_ROOT}
               PATH_SUFFIXES lib lib64)
endforeach()
if(NOT PTSCOTCH_INCLUDE_DIR OR NOT PTSCOTCH_LIBRARY OR NOT SCOTCH_LIBRARY OR NOT PTSCOTCHERR_LIBRARY)
  message(FATAL_ERROR "Herd: PT-Scotch not found (Debian: libptscotch-dev; spack: scotch+mpi); set PTSCOTCH_ROOT, "
                      "or configure with -DHerd_ENABLE_PTSCOTCH=OFF")
endif()
add_library(Herd::ptscotch INTERFACE IMPORTED)
set_target_properties(Herd::ptscotch PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${PTSCOTCH_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${PTSCOTCH_LIBRARY};${SCOTCH_LIBRARY};${PTSCOTCHERR_LIBRARY}")
