// The MPI interposer's Fortran entry points: Fortran programs (mpif.h,
// `use mpi`, `use mpi_f08`) reach the runtime as C programs do.
//
// Open MPI's Fortran layer converts its arguments and calls PMPI_*
// directly, so the interposer's MPI_* symbols never see a Fortran call.
// It defines each Fortran routine once, as ompi_<name>_f, under four more
// names: mpi_<name>_ (gfortran's mangling, which mpif.h and `use mpi` call),
// mpi_<name>, mpi_<name>__ and MPI_<NAME> (other compilers'); the
// procedures of `use mpi_f08` (libmpi_usempif08) call ompi_<name>_f from
// another library. Preloaded, the interposer's definitions of all five
// come first, and each converts as Open MPI's does (handles by
// MPI_*_f2c, Fortran's MPI_IN_PLACE and MPI_BOTTOM to C's, the return
// code into ierr) and calls the interposer's C entry point, which runs the
// call on the runtime or passes it to the library exactly as for C.
#include <mpi.h>

static_assert(sizeof(MPI_Fint) == sizeof(int),
              "Fortran's counts and displacements are passed as C int arrays");

// Fortran's MPI_IN_PLACE and MPI_BOTTOM are common blocks: a program passes
// their address. Open MPI defines them in several of its libraries, and
// the dynamic linker binds every reference, the program's and these, to
// one definition; weak, so that a library built without Fortran leaves
// them null. Only gfortran's mangling is defined by Debian's Open MPI; the
// others are for builds with other compilers.
extern "C" {
[[gnu::weak]] extern int mpi_fortran_in_place, mpi_fortran_in_place_, mpi_fortran_in_place__,
    MPI_FORTRAN_IN_PLACE;
[[gnu::weak]] extern int mpi_fortran_bottom, mpi_fortran_bottom_, mpi_fortran_bottom__,
    MPI_FORTRAN_BOTTOM;
}

namespace {

bool is_one_of(const void* p, const int* a, const int* b, const int* c, const int* d) {
  return p != nullptr && (p == a || p == b || p == c || p == d);
}

// A Fortran buffer argument as C sees it.
void* c_buffer(void* fortran) {
  if (is_one_of(fortran, &mpi_fortran_in_place, &mpi_fortran_in_place_, &mpi_fortran_in_place__,
                &MPI_FORTRAN_IN_PLACE))
    return MPI_IN_PLACE;
  if (is_one_of(fortran, &mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__,
                &MPI_FORTRAN_BOTTOM))
    return MPI_BOTTOM;
  return fortran;
}

// ierr is optional in mpi_f08 (Open MPI passes a local there; kept null-safe
// as Open MPI's own conversion is).
void set(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = rc;
}

MPI_Comm comm_of(const MPI_Fint* comm) {
  return MPI_Comm_f2c(*comm);
}

MPI_Datatype type_of(const MPI_Fint* type) {
  return MPI_Type_f2c(*type);
}

MPI_Op op_of(const MPI_Fint* op) {
  return MPI_Op_f2c(*op);
}

const int* ints(const MPI_Fint* array) {
  return reinterpret_cast<const int*>(array);
}

}  // namespace

// ompi_<lower>_f and its four other names (see above); the body follows.
#define CCT_FORTRAN_ALIAS(name, lower, params) \
  extern "C" void name params __attribute__((alias("ompi_" #lower "_f")));
#define CCT_FORTRAN(lower, upper, params)           \
  extern "C" void ompi_##lower##_f params;          \
  CCT_FORTRAN_ALIAS(mpi_##lower, lower, params)     \
  CCT_FORTRAN_ALIAS(mpi_##lower##_, lower, params)  \
  CCT_FORTRAN_ALIAS(mpi_##lower##__, lower, params) \
  CCT_FORTRAN_ALIAS(MPI_##upper, lower, params)     \
  extern "C" void ompi_##lower##_f params

// As Open MPI's: no command line from Fortran.
CCT_FORTRAN(init, INIT, (MPI_Fint * ierr)) {
  int argc = 0;
  char** argv = nullptr;
  set(ierr, MPI_Init(&argc, &argv));
}

CCT_FORTRAN(init_thread, INIT_THREAD, (MPI_Fint * required, MPI_Fint* provided, MPI_Fint* ierr)) {
  int argc = 0, c_provided = MPI_THREAD_SINGLE;
  char** argv = nullptr;
  const int rc = MPI_Init_thread(&argc, &argv, *required, &c_provided);
  if (rc == MPI_SUCCESS) *provided = c_provided;
  set(ierr, rc);
}

CCT_FORTRAN(finalize, FINALIZE, (MPI_Fint * ierr)) {
  set(ierr, MPI_Finalize());
}

CCT_FORTRAN(barrier, BARRIER, (MPI_Fint * comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Barrier(comm_of(comm)));
}

CCT_FORTRAN(bcast, BCAST,
            (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm,
             MPI_Fint* ierr)) {
  set(ierr, MPI_Bcast(c_buffer(buf), *count, type_of(type), *root, comm_of(comm)));
}

CCT_FORTRAN(gather, GATHER,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
             MPI_Fint* ierr)) {
  set(ierr, MPI_Gather(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                       *recvcount, type_of(recvtype), *root, comm_of(comm)));
}

CCT_FORTRAN(scatter, SCATTER,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
             MPI_Fint* ierr)) {
  set(ierr, MPI_Scatter(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                        *recvcount, type_of(recvtype), *root, comm_of(comm)));
}

CCT_FORTRAN(allgather, ALLGATHER,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Allgather(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                          *recvcount, type_of(recvtype), comm_of(comm)));
}

CCT_FORTRAN(alltoall, ALLTOALL,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Alltoall(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                         *recvcount, type_of(recvtype), comm_of(comm)));
}

CCT_FORTRAN(reduce, REDUCE,
            (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Reduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, type_of(type), op_of(op),
                       *root, comm_of(comm)));
}

CCT_FORTRAN(allreduce, ALLREDUCE,
            (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Allreduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, type_of(type), op_of(op),
                          comm_of(comm)));
}

CCT_FORTRAN(reduce_scatter_block, REDUCE_SCATTER_BLOCK,
            (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Reduce_scatter_block(c_buffer(sendbuf), c_buffer(recvbuf), *recvcount,
                                     type_of(type), op_of(op), comm_of(comm)));
}

CCT_FORTRAN(reduce_scatter, REDUCE_SCATTER,
            (void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Reduce_scatter(c_buffer(sendbuf), c_buffer(recvbuf), ints(recvcounts),
                               type_of(type), op_of(op), comm_of(comm)));
}

CCT_FORTRAN(allgatherv, ALLGATHERV,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* comm,
             MPI_Fint* ierr)) {
  set(ierr, MPI_Allgatherv(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                           ints(recvcounts), ints(displs), type_of(recvtype), comm_of(comm)));
}

CCT_FORTRAN(scan, SCAN,
            (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Scan(c_buffer(sendbuf), c_buffer(recvbuf), *count, type_of(type), op_of(op),
                     comm_of(comm)));
}

CCT_FORTRAN(exscan, EXSCAN,
            (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Exscan(c_buffer(sendbuf), c_buffer(recvbuf), *count, type_of(type), op_of(op),
                       comm_of(comm)));
}

CCT_FORTRAN(gatherv, GATHERV,
            (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
             MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* root,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Gatherv(c_buffer(sendbuf), *sendcount, type_of(sendtype), c_buffer(recvbuf),
                        ints(recvcounts), ints(displs), type_of(recvtype), *root, comm_of(comm)));
}

CCT_FORTRAN(scatterv, SCATTERV,
            (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* displs, MPI_Fint* sendtype,
             void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
             MPI_Fint* ierr)) {
  set(ierr, MPI_Scatterv(c_buffer(sendbuf), ints(sendcounts), ints(displs), type_of(sendtype),
                         c_buffer(recvbuf), *recvcount, type_of(recvtype), *root, comm_of(comm)));
}

CCT_FORTRAN(alltoallv, ALLTOALLV,
            (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
             void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
             MPI_Fint* comm, MPI_Fint* ierr)) {
  set(ierr, MPI_Alltoallv(c_buffer(sendbuf), ints(sendcounts), ints(sdispls), type_of(sendtype),
                          c_buffer(recvbuf), ints(recvcounts), ints(rdispls), type_of(recvtype),
                          comm_of(comm)));
}
