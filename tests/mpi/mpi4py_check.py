"""mpi4py_check: collectives from Python through mpi4py, which initialises
MPI at MPI_THREAD_MULTIPLE (tests/scripts/mpi_threads.sh runs it under the
interposer and checks that the runtime took its calls). Buffers are
array.array, so that nothing beyond mpi4py is needed. Prints
"mpi4py_check: <np> ranks, thread level <level>, <C> checks, <F> failures
on all ranks" from rank 0; exits 1 on any failure."""
import sys
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print(f"mpi4py_check: rank {rank}: FAILED: {what}", file=sys.stderr)


def run(c):
    """Every collective below on communicator c, checked."""
    r, n = c.Get_rank(), c.Get_size()
    send = array("i", [r + i for i in range(100)])
    total = array("i", [0] * 100)
    c.Allreduce(send, total, op=MPI.SUM)
    check(list(total) == [sum(q + i for q in range(n)) for i in range(100)], "Allreduce")
    data = array("d", [float(r)] * 33) if r == n - 1 else array("d", [0.0] * 33)
    c.Bcast(data, root=n - 1)
    check(list(data) == [float(n - 1)] * 33, "Bcast")
    blocks = array("i", [r * 10 + j for j in range(n)])
    got = array("i", [0] * n)
    c.Alltoall(blocks, got)
    check(list(got) == [q * 10 + r for q in range(n)], "Alltoall")
    everyone = array("l", [0] * n)
    c.Allgather(array("l", [r * r]), everyone)
    check(list(everyone) == [q * q for q in range(n)], "Allgather")
    check(c.allreduce(r, op=MPI.MAX) == n - 1, "allreduce of a Python object")
    c.Barrier()


run(comm)
half = comm.Split(rank % 2, -rank)
run(half)
half.Free()
level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
         MPI.THREAD_SERIALIZED: "serialized",
         MPI.THREAD_MULTIPLE: "multiple"}[MPI.Query_thread()]
sums = [comm.allreduce(checks), comm.allreduce(failures)]
if rank == 0:
    print(f"mpi4py_check: {size} ranks, thread level {level}, {sums[0]} checks, "
          f"{sums[1]} failures on all ranks")
sys.exit(0 if sums[1] == 0 else 1)
