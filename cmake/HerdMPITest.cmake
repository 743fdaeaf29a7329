# herd_add_mpi_test(<name> RANKS <n>... COMMAND <command> <args>...)
#
# Adds one test <name>.ranks<n> per rank count, launched with MPIEXEC_EXECUTABLE. Open MPI needs
# --oversubscribe to start more ranks than cores (and permission to run as root, which CI does);
# other MPIs take HERD_MPIEXEC_PREFLAGS as set by the user. Each rank gets one OpenMP thread.
# After a rank exits with an error, Open MPI waits 2 s by default before it kills the job's other
# ranks, even those that already exited: the tests of bad input run hundreds of such jobs, so it
# kills at once.
#
# Open MPI's UCX messaging layer looks for network fabrics in every process it starts: 0.2 s each,
# a third of the command suites' time on one machine. The tests take its shared-memory layer
# (ob1, copying through a shared segment, which containers allow) unless
# HERD_TEST_MPI_ENVIRONMENT says otherwise ("" keeps the MPI's own choice).
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE herd_mpiexec_version ERROR_QUIET)
if(NOT DEFINED HERD_MPIEXEC_PREFLAGS)
  if(herd_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(herd_default_preflags --oversubscribe --mca odls_base_sigkill_timeout 0)
  endif()
  set(HERD_MPIEXEC_PREFLAGS "${herd_default_preflags}" CACHE STRING "Flags for mpiexec in Herd's MPI tests")
endif()
if(NOT DEFINED HERD_TEST_MPI_ENVIRONMENT)
  if(herd_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(herd_default_environment "OMPI_MCA_pml=ob1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
  endif()
  set(HERD_TEST_MPI_ENVIRONMENT "${herd_default_environment}" CACHE STRING
      "Environment variables (NAME=VALUE;...) for the MPI library in every Herd test")
endif()

function(herd_add_mpi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "RANKS;COMMAND;LABELS")
  foreach(ranks ${arg_RANKS})
    add_test(NAME ${name}.ranks${ranks}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${HERD_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS}
              ${arg_COMMAND} ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${name}.ranks${ranks} PROPERTIES
      LABELS "mpi;${arg_LABELS}" PROCESSORS ${ranks} TIMEOUT 600
      ENVIRONMENT "OMP_NUM_THREADS=1;OMP_PROC_BIND=false;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endfunction()
