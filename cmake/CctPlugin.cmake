# cct_add_plugin(<target> [EXAMPLE] <sources>...)
#
# Builds a plugin library (algorithms or a transport) against the public ABI
# and the header-only SDK. In this tree it lands in lib/cct beside the host
# library and installs to <libdir>/cct; out of tree (through
# find_package(ccautotune)) it is built where the caller says and loaded
# through CCT_PLUGIN_PATH. EXAMPLE (this tree's example plugin): built into
# lib/cct-examples, outside the default search path, and not installed, so
# that it is never measured or chosen unless CCT_PLUGIN_PATH names it.
function(cct_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 CCT_PLUGIN "EXAMPLE" "" "")
  add_library(${target} MODULE ${CCT_PLUGIN_UNPARSED_ARGUMENTS})
  if(TARGET cct_sdk)
    target_link_libraries(${target} PRIVATE cct_sdk)
  else()
    target_link_libraries(${target} PRIVATE ccautotune::sdk)
  endif()
  # In this tree: the precompiled header of plugins/CMakeLists.txt.
  if(TARGET cct_plugin_pch)
    target_precompile_headers(${target} REUSE_FROM cct_plugin_pch)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED CCT_PLUGIN_BUILD_DIR AND CCT_PLUGIN_EXAMPLE)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CCT_PLUGIN_BUILD_DIR}-examples)
  elseif(DEFINED CCT_PLUGIN_BUILD_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CCT_PLUGIN_BUILD_DIR})
    install(TARGETS ${target} LIBRARY DESTINATION ${CCT_PLUGIN_INSTALL_DIR})
    set_property(GLOBAL APPEND PROPERTY CCT_PLUGINS ${target})
  endif()
endfunction()
