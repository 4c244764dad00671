# Sourced by the scripts that configure a build (tools/setup.sh,
# tools/sanitizer_build.sh, tools/fuzz.sh): where Debian's ccache is installed,
# every compiler call goes through it, so that a second build of the same
# sources on this machine (CI runs one after another, the sanitizer build
# after a change of one file) compiles only what changed. Never required,
# never installed by the build; CMake reads these variables when it first
# configures a build directory.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
