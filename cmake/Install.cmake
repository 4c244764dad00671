# Installs the public headers, the host library, the plugins (see
# cct_add_plugin), the tools, a pkg-config file, and a CMake package so that
# a plugin can be built out of tree:
#   find_package(ccautotune REQUIRED)
#   cct_add_plugin(my_plugin my_plugin.cpp)   # links ccautotune::sdk
include(CMakePackageConfigHelpers)

set(CCT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ccautotune)
set_target_properties(cct_sdk PROPERTIES EXPORT_NAME sdk)
set_target_properties(cct_core PROPERTIES EXPORT_NAME cct)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/core/include/cct DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cct_sdk EXPORT ccautotuneTargets)
install(EXPORT ccautotuneTargets NAMESPACE ccautotune:: DESTINATION ${CCT_CMAKE_DIR})

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/ccautotuneConfig.cmake.in
  ${CMAKE_BINARY_DIR}/ccautotuneConfig.cmake INSTALL_DESTINATION ${CCT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ccautotuneConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_BINARY_DIR}/ccautotuneConfig.cmake
  ${CMAKE_BINARY_DIR}/ccautotuneConfigVersion.cmake
  ${CMAKE_SOURCE_DIR}/cmake/CctPlugin.cmake
  DESTINATION ${CCT_CMAKE_DIR})

# The shipped profiles, where the runtime looks for the profile of its
# machine (cct::profile_dirs) and where ccautotune writes when it may.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/profiles/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ccautotune/profiles
  FILES_MATCHING PATTERN "*.yaml" PATTERN "README.md")

# A pkg-config file beside the CMake package, for builds that do not use
# CMake: cc app.c $(pkg-config --cflags --libs ccautotune).
configure_file(${CMAKE_SOURCE_DIR}/cmake/ccautotune.pc.in ${CMAKE_BINARY_DIR}/ccautotune.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/ccautotune.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
