# Finds HDF5 and provides it as the imported target Herd::hdf5: parallel HDF5 where Herd uses MPI
# (ranks write one file through MPI-IO), serial HDF5 otherwise (one process; a parallel HDF5 is
# accepted there too). Used by Herd's build and by the installed HerdConfig.cmake, so both see the
# same HDF5; Herd_ENABLE_MPI says which is wanted.
if(TARGET Herd::hdf5)
  return()
endif()
# FindHDF5 probes HDF5's C compiler wrapper, which needs C enabled (Herd's C++ code uses the C API).
get_property(herd_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST herd_languages)
  enable_language(C)
endif()
set(HDF5_PREFER_PARALLEL ${Herd_ENABLE_MPI})
find_package(HDF5 REQUIRED COMPONENTS C)
if(Herd_ENABLE_MPI AND NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Herd: HDF5 ${HDF5_VERSION} at ${HDF5_INCLUDE_DIRS} is serial; Herd with MPI needs parallel "
                      "HDF5 (Debian: libhdf5-openmpi-dev; spack: hdf5+mpi), or -DHerd_ENABLE_MPI=OFF for one process")
endif()
set(herd_hdf5_definitions ${HDF5_C_DEFINITIONS})
list(TRANSFORM herd_hdf5_definitions REPLACE "^-D" "")
add_library(Herd::hdf5 INTERFACE IMPORTED)
set_target_properties(Herd::hdf5 PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${HDF5_C_INCLUDE_DIRS}"
  INTERFACE_LINK_LIBRARIES "${HDF5_C_LIBRARIES}"
  INTERFACE_COMPILE_DEFINITIONS "${herd_hdf5_definitions}")
