// The source of cct_plugin_pch, the target that builds plugins/
// precompiled.hpp's precompiled header for every plugin to reuse; CMake
// includes the header here itself.
