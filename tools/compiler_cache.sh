# Sourced by the scripts that configure a build (tools/setup.sh,
# tools/sanitizer_build.sh, tools/fuzz.sh): where Debian's ccache is installed,
# every compiler call goes through it, so that a second build of the same
# sources on this machine (CI runs one after another, the sanitizer build
# after a change of one file) compiles only what changed. Never required,
# never installed by the build; CMake reads these variables when it first
# configures a build directory.
# The sloppiness lets it cache the sources built with a precompiled header
# (the plugins, the test programs), which it would otherwise pass through
# uncached (ccache's manual, "Precompiled headers").
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_SLOPPINESS=pch_defines,time_macros
fi
