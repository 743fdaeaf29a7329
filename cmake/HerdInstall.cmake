# Installs Herd as a CMake package: headers under include/herd, the library, the herd command, and
# HerdConfig.cmake + HerdConfigVersion.cmake + HerdTargets.cmake (target Herd::herd).
include(CMakePackageConfigHelpers)

set(HERD_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Herd CACHE STRING "Where HerdConfig.cmake goes")

install(TARGETS herd EXPORT HerdTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/herd DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/herd/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/herd)
install(EXPORT HerdTargets NAMESPACE Herd:: DESTINATION ${HERD_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/HerdConfig.cmake.in
  ${PROJECT_BINARY_DIR}/HerdConfig.cmake INSTALL_DESTINATION ${HERD_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/HerdConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/HerdConfig.cmake ${PROJECT_BINARY_DIR}/HerdConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/HerdFindHDF5.cmake ${CMAKE_CURRENT_LIST_DIR}/HerdFindMETIS.cmake
              ${CMAKE_CURRENT_LIST_DIR}/HerdFindPTScotch.cmake ${CMAKE_CURRENT_LIST_DIR}/HerdFindParMETIS.cmake
  DESTINATION ${HERD_INSTALL_CMAKEDIR})
