# The interposer under a Fortran MPI program: tests/mpi/fortran_check.F90
# built once per Fortran binding of MPI that the MPI library has (mpif.h,
# use mpi, use mpi_f08), run by scripts/mpi_fortran.sh. Included by
# tests/CMakeLists.txt after the MPI C programs, before the script tests get
# their environment. Without a Fortran compiler the test is still added,
# with `none` for the programs, and skips (77) saying so; a binding that
# the MPI library lacks is passed as `unsupported` and left out.
include(CheckLanguage)
check_language(Fortran)
set(cct_fortran_programs none none none)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
  set(cct_fortran_programs)
  # binding macro, program, and the FindMPI variable saying the library has it
  foreach(binding "MPIFH;mpifh;F77_HEADER" "USE_MPI;use_mpi;F90_MODULE" "F08;f08;F08_MODULE")
    list(GET binding 0 macro)
    list(GET binding 1 name)
    list(GET binding 2 have)
    if(NOT MPI_Fortran_FOUND OR NOT MPI_Fortran_HAVE_${have})
      list(APPEND cct_fortran_programs unsupported)
      continue()
    endif()
    add_executable(cct_fortran_${name} mpi/fortran_check.F90)
    target_compile_definitions(cct_fortran_${name} PRIVATE BINDING_${macro})
    target_link_libraries(cct_fortran_${name} PRIVATE MPI::MPI_Fortran)
    # Each program compiles the module of the one source: a directory each,
    # or the three would write the same fcheck.mod.
    set_target_properties(cct_fortran_${name} PROPERTIES
      Fortran_PREPROCESS ON
      Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/${name})
    # Its results are compared for equality on purpose: every value is an
    # integer, exact in REAL and DOUBLE PRECISION.
    if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
      target_compile_options(cct_fortran_${name} PRIVATE -Wno-compare-reals)
    endif()
    list(APPEND cct_fortran_programs $<TARGET_FILE:cct_fortran_${name}>)
  endforeach()
  # mpif.h declares no interfaces, and gfortran from 10 on refuses calls to
  # one external procedure with buffers of different types (MPI_Bcast on a
  # byte array, then on MPI_BOTTOM) unless told to allow them.
  if(TARGET cct_fortran_mpifh AND CMAKE_Fortran_COMPILER_ID STREQUAL "GNU"
     AND CMAKE_Fortran_COMPILER_VERSION VERSION_GREATER_EQUAL 10)
    target_compile_options(cct_fortran_mpifh PRIVATE -fallow-argument-mismatch)
  endif()
endif()
add_test(NAME mpi_fortran
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_fortran.sh $<TARGET_FILE:cct_mpi>
          ${cct_fortran_programs})
set_tests_properties(mpi_fortran PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED shm_clean)
if(CCT_ASAN_UBSAN)
  # As for the other tests that start MPI programs (tests/CMakeLists.txt).
  set_tests_properties(mpi_fortran PROPERTIES
    ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
endif()
