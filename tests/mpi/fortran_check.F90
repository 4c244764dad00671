! fortran_check: the interposer's Fortran entry points under an MPI program
! of our own, built three times from this one file, once per Fortran
! binding of MPI (the C preprocessor picks it):
!   -DBINDING_MPIFH    include 'mpif.h'
!   -DBINDING_USE_MPI  use mpi
!   -DBINDING_F08      use mpi_f08
! It calls the 16 blocking collectives, each in its normal form and in
! every MPI_IN_PLACE form MPI allows, on MPI_COMM_WORLD and on two
! communicators from MPI_Comm_split (all ranks in reversed order; two
! halves, reversed), with every rank as root, on MPI_INTEGER, MPI_REAL and
! MPI_DOUBLE_PRECISION, with MPI_SUM, MPI_MAX, MPI_MIN and MPI_PROD; and
! MPI_Bcast and MPI_Allgather on MPI_BOTTOM with a datatype of absolute
! addresses. Every result is checked against a reference computed here,
! and every ierror against MPI_SUCCESS (errors return: MPI_ERRORS_RETURN).
! With the argument `thread` it starts with
! MPI_Init_thread(MPI_THREAD_FUNNELED) instead of MPI_Init.
! Rank 0 prints one line,
!   fortran_check(<binding>): <N> ranks, <C> checks, <F> failures on all ranks
! (checks and failures summed over all ranks), and the program stops with
! status 1 when any check failed.
!
! Every value is a small integer, so that all three datatypes hold every
! operand and every result exactly, and results are compared for equality.
! (No apostrophes in these comments: the C preprocessor reads them.)

#if defined(BINDING_F08)
#define COMM_T type(MPI_Comm)
#define DATATYPE_T type(MPI_Datatype)
#define OP_T type(MPI_Op)
#define GROUP_T type(MPI_Group)
#define BINDING_NAME 'use mpi_f08'
#elif defined(BINDING_USE_MPI)
#define COMM_T integer
#define DATATYPE_T integer
#define OP_T integer
#define GROUP_T integer
#define BINDING_NAME 'use mpi'
#elif defined(BINDING_MPIFH)
#define COMM_T integer
#define DATATYPE_T integer
#define OP_T integer
#define GROUP_T integer
#define BINDING_NAME 'mpif.h'
#else
#error "define one of BINDING_MPIFH, BINDING_USE_MPI, BINDING_F08"
#endif

module fcheck
  use, intrinsic :: iso_fortran_env, only: int8, error_unit
#if defined(BINDING_F08)
  use mpi_f08
#elif defined(BINDING_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(BINDING_MPIFH)
  include 'mpif.h'
#endif

  ! Counted on this rank, summed over all ranks at the end.
  integer :: checks = 0, failures = 0
  integer :: world_rank = 0

  ! Every call gets a number of its own, the same on every rank, that its
  ! data depends on: a result left over from an earlier call cannot pass.
  integer :: salt = 0

  ! The datatypes under test; their sizes come from MPI_Type_size.
  integer, parameter :: T_INTEGER = 1, T_REAL = 2, T_DOUBLE = 3, ntypes = 3
  DATATYPE_T :: types(ntypes)
  integer :: type_bytes(ntypes)
  character(len=20), parameter :: type_names(ntypes) = &
      [character(len=20) :: 'MPI_INTEGER', 'MPI_REAL', 'MPI_DOUBLE_PRECISION']

  ! The operators under test (0: a collective without one).
  integer, parameter :: OP_SUM = 1, OP_MAX = 2, OP_MIN = 3, OP_PROD = 4, nops = 4
  OP_T :: ops(nops)
  character(len=8), parameter :: op_names(nops) = &
      [character(len=8) :: 'MPI_SUM', 'MPI_MAX', 'MPI_MIN', 'MPI_PROD']

  ! Element counts per block: one element, a few, and enough for the
  ! runtime to pick its algorithms for larger messages.
  integer, parameter :: lengths(3) = [1, 6, 1000]

  ! What a receive buffer holds where no result may land.
  integer, parameter :: SENTINEL = -777

  ! A communicator under test, with the world rank of each of its ranks:
  ! data depends on world ranks, so a runtime that took the ranks of a
  ! split communicator in the wrong order would fail the checks.
  type :: comm_t
    COMM_T :: comm
    character(len=8) :: name
    integer :: rank, size
    integer, allocatable :: world(:)  ! world(r): the world rank of rank r
  end type

  ! The MPI_BOTTOM check: three variables apart in memory, described by
  ! one datatype of their absolute addresses. Volatile: MPI writes them
  ! through MPI_BOTTOM, in calls that do not name them.
  integer, target, volatile :: bot_i
  double precision, target, volatile :: bot_d
  real, target, volatile :: bot_r(2)
  ! The same fields in a record, one per rank for MPI_Allgather.
  type :: record
    sequence
    integer :: i
    double precision :: d
    real :: r(2)
  end type

contains

  ! ---- counting checks ------------------------------------------------

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      write(error_unit, '(a,i0,2a)') 'fortran_check: rank ', world_rank, ': FAILED: ', &
          trim(what)
    end if
  end subroutine

  ! Every MPI call returns MPI_SUCCESS.
  subroutine check_call(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, trim(what) // ': ierror is not MPI_SUCCESS')
  end subroutine

  ! What a check is about, for its failure message.
  function label(call, c, t, n, op, root, in_place) result(s)
    character(len=*), intent(in) :: call
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op, root
    logical, intent(in) :: in_place
    character(len=200) :: s
    character(len=24) :: num
    write(num, '(a,i0)') ', count ', n
    s = call // ' on ' // trim(c%name) // ', ' // trim(type_names(t)) // trim(num)
    if (op > 0) s = trim(s) // ', ' // trim(op_names(op))
    if (root >= 0) then
      write(num, '(a,i0)') ', root ', root
      s = trim(s) // trim(num)
    end if
    if (in_place) s = trim(s) // ', MPI_IN_PLACE'
  end function

  integer function next_salt()
    salt = salt + 1
    next_salt = salt
  end function

  ! ---- data and references --------------------------------------------

  ! The value world rank w contributes at element i of call s: small,
  ! some negative.
  integer function value(w, i, s)
    integer, intent(in) :: w, i, s
    value = mod(37 * w + 11 * i + 5 * s, 61) - 20
  end function

  ! The same for MPI_PROD: -1, 1 or 2, so that a product over 4 ranks
  ! stays within 16 in magnitude.
  integer function factor(w, i, s)
    integer, intent(in) :: w, i, s
    integer, parameter :: f(0:2) = [-1, 1, 2]
    factor = f(mod(w + 3 * i + s, 3))
  end function

  integer function contribution(op, w, i, s)
    integer, intent(in) :: op, w, i, s
    if (op == OP_PROD) then
      contribution = factor(w, i, s)
    else
      contribution = value(w, i, s)
    end if
  end function

  integer function apply(op, a, b)
    integer, intent(in) :: op, a, b
    select case (op)
    case (OP_SUM)
      apply = a + b
    case (OP_MAX)
      apply = max(a, b)
    case (OP_MIN)
      apply = min(a, b)
    case default
      apply = a * b
    end select
  end function

  ! Elements first .. first+n-1 that world rank w contributes to call s.
  function block(w, first, n, s) result(v)
    integer, intent(in) :: w, first, n, s
    integer :: v(n), i
    v = [(value(w, i, s), i = first, first + n - 1)]
  end function

  function contributions(op, w, first, n, s) result(v)
    integer, intent(in) :: op, w, first, n, s
    integer :: v(n), i
    v = [(contribution(op, w, i, s), i = first, first + n - 1)]
  end function

  ! The data world rank `from` sends world rank `to` in call s.
  function pair_block(from, to, n, s) result(v)
    integer, intent(in) :: from, to, n, s
    integer :: v(n)
    v = block(16 * from + to, 0, n, s)
  end function

  ! The reduction by op over ranks lo..hi of c of their contributions to
  ! elements first .. first+n-1 of call s.
  function reductions(c, op, lo, hi, first, n, s) result(v)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: op, lo, hi, first, n, s
    integer :: v(n), r, i
    v = contributions(op, c%world(lo), first, n, s)
    do r = lo + 1, hi
      do i = 1, n
        v(i) = apply(op, v(i), contribution(op, c%world(r), first + i - 1, s))
      end do
    end do
  end function

  ! Uneven blocks for the v-collectives: rank r has n * mod(r + 1, 3)
  ! elements, so rank 1 has twice as many as rank 0 and rank 2 none.
  integer function uneven(r, n)
    integer, intent(in) :: r, n
    uneven = n * mod(r + 1, 3)
  end function

  ! Displacements for blocks of cnts(0:) in rank order, or reversed, with
  ! one unused element after each block; total: the length of the buffer.
  subroutine layout(cnts, reversed, displs, total)
    integer, intent(in) :: cnts(0:)
    logical, intent(in) :: reversed
    integer, intent(out) :: displs(0:), total
    integer :: k, r
    total = 0
    do k = 0, size(cnts) - 1
      r = k
      if (reversed) r = size(cnts) - 1 - k
      displs(r) = total
      total = total + cnts(r) + 1
    end do
  end subroutine

  ! ---- buffers ----------------------------------------------------------
  ! MPI takes a buffer by its address whatever its Fortran type, so one
  ! byte buffer serves the three datatypes: values go in as the bytes of
  ! the datatype and come out as double precision, to compare exactly.

  function encode(t, v) result(b)
    integer, intent(in) :: t, v(:)
    integer(int8), allocatable :: b(:)
    select case (t)
    case (T_INTEGER)
      b = transfer(v, [0_int8])
    case (T_REAL)
      b = transfer(real(v), [0_int8])
    case default
      b = transfer(dble(v), [0_int8])
    end select
  end function

  function decode(t, b) result(v)
    integer, intent(in) :: t
    integer(int8), intent(in) :: b(:)
    double precision, allocatable :: v(:)
    select case (t)
    case (T_INTEGER)
      v = dble(transfer(b, [0]))
    case (T_REAL)
      v = dble(transfer(b, [0.0]))
    case default
      v = transfer(b, [0d0])
    end select
  end function

  ! A buffer of n elements of datatype t, all SENTINEL.
  function blank(t, n) result(b)
    integer, intent(in) :: t, n
    integer(int8), allocatable :: b(:)
    b = encode(t, spread(SENTINEL, 1, n))
  end function

  ! Values v into b as datatype t from element `first` (0-based) on.
  subroutine put(t, b, first, v)
    integer, intent(in) :: t, first, v(:)
    integer(int8), intent(inout) :: b(:)
    integer :: w
    w = type_bytes(t)
    b(first * w + 1:(first + size(v)) * w) = encode(t, v)
  end subroutine

  ! Whether b holds exactly `want` from element `first` on.
  logical function same(t, b, first, want)
    integer, intent(in) :: t, first, want(:)
    integer(int8), intent(in) :: b(:)
    integer :: w
    w = type_bytes(t)
    same = all(decode(t, b(first * w + 1:(first + size(want)) * w)) == dble(want))
  end function

  ! ---- the collectives without an operator -------------------------------

  ! MPI_Barrier: no data; it returns MPI_SUCCESS on every rank.
  subroutine test_barrier(c)
    type(comm_t), intent(in) :: c
    integer :: ierr
    call MPI_Barrier(c%comm, ierr)
    call check_call(ierr, 'MPI_Barrier on ' // trim(c%name))
  end subroutine

  ! MPI_Bcast: every rank ends with the root's data (no in-place form).
  subroutine test_bcast(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: buf(:)
    integer, allocatable :: want(:)
    integer :: root, s, ierr
    character(len=200) :: what
    do root = 0, c%size - 1
      s = next_salt()
      what = label('MPI_Bcast', c, t, n, 0, root, .false.)
      want = block(c%world(root), 0, n, s)
      buf = blank(t, n)
      if (c%rank == root) buf = encode(t, want)
      call MPI_Bcast(buf, n, types(t), root, c%comm, ierr)
      call check_call(ierr, what)
      call check(same(t, buf, 0, want), what)
    end do
  end subroutine

  ! MPI_Gather: the root receives block r from rank r, in rank order. In
  ! place, the root sends nothing: its block is already in its place.
  subroutine test_gather(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:)
    integer :: root, s, r, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      do root = 0, c%size - 1
        s = next_salt()
        what = label('MPI_Gather', c, t, n, 0, root, in_place)
        want = [(block(c%world(r), 0, n, s), r = 0, c%size - 1)]
        send = encode(t, block(c%world(c%rank), 0, n, s))
        recv = blank(t, n * c%size)
        if (in_place .and. c%rank == root) then
          call put(t, recv, root * n, block(c%world(root), 0, n, s))
          call MPI_Gather(MPI_IN_PLACE, n, types(t), recv, n, types(t), root, c%comm, ierr)
        else
          call MPI_Gather(send, n, types(t), recv, n, types(t), root, c%comm, ierr)
        end if
        call check_call(ierr, what)
        if (c%rank == root) call check(same(t, recv, 0, want), what)
      end do
    end do
  end subroutine

  ! MPI_Scatter: rank r receives block r of the root buffer. In place,
  ! the root receives nothing, and its own block stays where it is.
  subroutine test_scatter(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: all_blocks(:), mine(:)
    integer :: root, s, r, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      do root = 0, c%size - 1
        s = next_salt()
        what = label('MPI_Scatter', c, t, n, 0, root, in_place)
        all_blocks = [(block(c%world(r), 0, n, s), r = 0, c%size - 1)]
        mine = block(c%world(c%rank), 0, n, s)
        send = blank(t, n * c%size)
        if (c%rank == root) send = encode(t, all_blocks)
        recv = blank(t, n)
        if (in_place .and. c%rank == root) then
          call MPI_Scatter(send, n, types(t), MPI_IN_PLACE, n, types(t), root, c%comm, ierr)
          call check_call(ierr, what)
          call check(same(t, send, 0, all_blocks), what)
        else
          call MPI_Scatter(send, n, types(t), recv, n, types(t), root, c%comm, ierr)
          call check_call(ierr, what)
          call check(same(t, recv, 0, mine), what)
        end if
      end do
    end do
  end subroutine

  ! MPI_Allgather: every rank receives block r from rank r. In place, each
  ! rank block is already in its place in its receive buffer.
  subroutine test_allgather(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:)
    integer :: s, r, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Allgather', c, t, n, 0, -1, in_place)
      want = [(block(c%world(r), 0, n, s), r = 0, c%size - 1)]
      send = encode(t, block(c%world(c%rank), 0, n, s))
      recv = blank(t, n * c%size)
      if (in_place) then
        call put(t, recv, c%rank * n, block(c%world(c%rank), 0, n, s))
        call MPI_Allgather(MPI_IN_PLACE, n, types(t), recv, n, types(t), c%comm, ierr)
      else
        call MPI_Allgather(send, n, types(t), recv, n, types(t), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, want), what)
    end do
  end subroutine

  ! MPI_Alltoall: block j of a send buffer goes to rank j, whose block i
  ! it becomes. In place, each block is replaced by what its peer sent.
  subroutine test_alltoall(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:)
    integer :: s, j, ierr, form, me
    logical :: in_place
    character(len=200) :: what
    me = c%world(c%rank)
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Alltoall', c, t, n, 0, -1, in_place)
      want = [(pair_block(c%world(j), me, n, s), j = 0, c%size - 1)]
      send = encode(t, [(pair_block(me, c%world(j), n, s), j = 0, c%size - 1)])
      if (in_place) then
        recv = send
        call MPI_Alltoall(MPI_IN_PLACE, n, types(t), recv, n, types(t), c%comm, ierr)
      else
        recv = blank(t, n * c%size)
        call MPI_Alltoall(send, n, types(t), recv, n, types(t), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, want), what)
    end do
  end subroutine

  ! ---- the v-collectives: uneven blocks (some empty) at displacements in
  ! ---- reversed order with gaps, which must keep their SENTINEL -------------

  ! The buffer of blocks block(world(r)) of cnts(r) elements at displs(r).
  function gathered(c, cnts, displs, total, s) result(v)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: cnts(0:), displs(0:), total, s
    integer :: v(total), r
    v = SENTINEL
    do r = 0, c%size - 1
      v(displs(r) + 1:displs(r) + cnts(r)) = block(c%world(r), 0, cnts(r), s)
    end do
  end function

  ! MPI_Allgatherv: every rank receives the uneven blocks where displs
  ! puts them. In place, each rank block is already in its place.
  subroutine test_allgatherv(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:), cnts(:), displs(:)
    integer :: s, r, ierr, form, total, me
    logical :: in_place
    character(len=200) :: what
    me = c%rank
    allocate(cnts(0:c%size - 1), displs(0:c%size - 1))
    cnts = [(uneven(r, n), r = 0, c%size - 1)]
    call layout(cnts, .true., displs, total)
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Allgatherv', c, t, n, 0, -1, in_place)
      want = gathered(c, cnts, displs, total, s)
      send = encode(t, block(c%world(me), 0, cnts(me), s))
      recv = blank(t, total)
      if (in_place) then
        call put(t, recv, displs(me), block(c%world(me), 0, cnts(me), s))
        call MPI_Allgatherv(MPI_IN_PLACE, cnts(me), types(t), recv, cnts, displs, &
            types(t), c%comm, ierr)
      else
        call MPI_Allgatherv(send, cnts(me), types(t), recv, cnts, displs, types(t), &
            c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, want), what)
    end do
  end subroutine

  ! MPI_Gatherv: the root receives the uneven blocks where displs puts
  ! them. In place, the root block is already in its place.
  subroutine test_gatherv(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:), cnts(:), displs(:)
    integer :: s, r, ierr, form, total, me, root
    logical :: in_place
    character(len=200) :: what
    me = c%rank
    allocate(cnts(0:c%size - 1), displs(0:c%size - 1))
    cnts = [(uneven(r, n), r = 0, c%size - 1)]
    call layout(cnts, .true., displs, total)
    do form = 0, 1
      in_place = form == 1
      do root = 0, c%size - 1
        s = next_salt()
        what = label('MPI_Gatherv', c, t, n, 0, root, in_place)
        want = gathered(c, cnts, displs, total, s)
        send = encode(t, block(c%world(me), 0, cnts(me), s))
        recv = blank(t, total)
        if (in_place .and. me == root) then
          call put(t, recv, displs(me), block(c%world(me), 0, cnts(me), s))
          call MPI_Gatherv(MPI_IN_PLACE, cnts(me), types(t), recv, cnts, displs, &
              types(t), root, c%comm, ierr)
        else
          call MPI_Gatherv(send, cnts(me), types(t), recv, cnts, displs, types(t), &
              root, c%comm, ierr)
        end if
        call check_call(ierr, what)
        if (me == root) call check(same(t, recv, 0, want), what)
      end do
    end do
  end subroutine

  ! MPI_Scatterv: rank r receives the block the root has at displs(r). In
  ! place, the root receives nothing and its buffer stays as it was.
  subroutine test_scatterv(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: all_blocks(:), cnts(:), displs(:)
    integer :: s, r, ierr, form, total, me, root
    logical :: in_place
    character(len=200) :: what
    me = c%rank
    allocate(cnts(0:c%size - 1), displs(0:c%size - 1))
    cnts = [(uneven(r, n), r = 0, c%size - 1)]
    call layout(cnts, .true., displs, total)
    do form = 0, 1
      in_place = form == 1
      do root = 0, c%size - 1
        s = next_salt()
        what = label('MPI_Scatterv', c, t, n, 0, root, in_place)
        all_blocks = gathered(c, cnts, displs, total, s)
        send = blank(t, total)
        if (me == root) send = encode(t, all_blocks)
        recv = blank(t, cnts(me) + 1)
        if (in_place .and. me == root) then
          call MPI_Scatterv(send, cnts, displs, types(t), MPI_IN_PLACE, cnts(me), &
              types(t), root, c%comm, ierr)
          call check_call(ierr, what)
          call check(same(t, send, 0, all_blocks), what)
        else
          call MPI_Scatterv(send, cnts, displs, types(t), recv, cnts(me), types(t), &
              root, c%comm, ierr)
          call check_call(ierr, what)
          ! The element after the block stays SENTINEL.
          call check(same(t, recv, 0, [block(c%world(me), 0, cnts(me), s), SENTINEL]), &
              what)
        end if
      end do
    end do
  end subroutine

  ! Elements rank a sends rank b in MPI_Alltoallv: uneven, some none;
  ! symmetric for the in-place form, where MPI requires it.
  integer function pair_count(a, b, n, symmetric)
    integer, intent(in) :: a, b, n
    logical, intent(in) :: symmetric
    if (symmetric) then
      pair_count = n * mod(a + b, 3)
    else
      pair_count = n * mod(a + 2 * b + 1, 3)
    end if
  end function

  ! MPI_Alltoallv: rank i sends rank j pair_count(i, j) elements from its
  ! sdispls(j) (reversed order) to the receiver rdispls(i) (rank order),
  ! gaps untouched. In place, each block is replaced by its peer block.
  subroutine test_alltoallv(c, t, n)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: want(:), outgoing(:), scnts(:), rcnts(:), sdispls(:), rdispls(:)
    integer :: s, j, ierr, form, stotal, rtotal, me
    logical :: in_place
    character(len=200) :: what
    me = c%rank
    allocate(scnts(0:c%size - 1), rcnts(0:c%size - 1))
    allocate(sdispls(0:c%size - 1), rdispls(0:c%size - 1))
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Alltoallv', c, t, n, 0, -1, in_place)
      scnts = [(pair_count(me, j, n, in_place), j = 0, c%size - 1)]
      rcnts = [(pair_count(j, me, n, in_place), j = 0, c%size - 1)]
      call layout(scnts, .true., sdispls, stotal)
      call layout(rcnts, .false., rdispls, rtotal)
      allocate(want(rtotal), outgoing(rtotal))
      want = SENTINEL
      outgoing = SENTINEL
      do j = 0, c%size - 1
        want(rdispls(j) + 1:rdispls(j) + rcnts(j)) = &
            pair_block(c%world(j), c%world(me), rcnts(j), s)
        if (in_place) outgoing(rdispls(j) + 1:rdispls(j) + rcnts(j)) = &
            pair_block(c%world(me), c%world(j), rcnts(j), s)
      end do
      if (in_place) then
        recv = encode(t, outgoing)
        call MPI_Alltoallv(MPI_IN_PLACE, rcnts, rdispls, types(t), recv, rcnts, rdispls, &
            types(t), c%comm, ierr)
      else
        send = blank(t, stotal)
        do j = 0, c%size - 1
          call put(t, send, sdispls(j), pair_block(c%world(me), c%world(j), scnts(j), s))
        end do
        recv = blank(t, rtotal)
        call MPI_Alltoallv(send, scnts, sdispls, types(t), recv, rcnts, rdispls, &
            types(t), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, want), what)
      deallocate(want, outgoing)
    end do
  end subroutine

  ! ---- the reductions ------------------------------------------------------

  ! MPI_Reduce: the root receives the reduction over all ranks. In place,
  ! the root contribution is taken from its receive buffer.
  subroutine test_reduce(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer :: s, ierr, form, root
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      do root = 0, c%size - 1
        s = next_salt()
        what = label('MPI_Reduce', c, t, n, op, root, in_place)
        send = encode(t, contributions(op, c%world(c%rank), 0, n, s))
        recv = blank(t, n)
        if (in_place .and. c%rank == root) then
          recv = send
          call MPI_Reduce(MPI_IN_PLACE, recv, n, types(t), ops(op), root, c%comm, ierr)
        else
          call MPI_Reduce(send, recv, n, types(t), ops(op), root, c%comm, ierr)
        end if
        call check_call(ierr, what)
        if (c%rank == root) &
            call check(same(t, recv, 0, reductions(c, op, 0, c%size - 1, 0, n, s)), what)
      end do
    end do
  end subroutine

  ! MPI_Allreduce: every rank receives the reduction over all ranks. In
  ! place, each contribution is taken from the receive buffer.
  subroutine test_allreduce(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer :: s, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Allreduce', c, t, n, op, -1, in_place)
      send = encode(t, contributions(op, c%world(c%rank), 0, n, s))
      if (in_place) then
        recv = send
        call MPI_Allreduce(MPI_IN_PLACE, recv, n, types(t), ops(op), c%comm, ierr)
      else
        recv = blank(t, n)
        call MPI_Allreduce(send, recv, n, types(t), ops(op), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, reductions(c, op, 0, c%size - 1, 0, n, s)), what)
    end do
  end subroutine

  ! MPI_Reduce_scatter_block: rank r receives block r (n elements) of the
  ! reduction of n * size elements. In place, the input is the receive
  ! buffer, and the result lands in its first n elements.
  subroutine test_reduce_scatter_block(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer :: s, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Reduce_scatter_block', c, t, n, op, -1, in_place)
      send = encode(t, contributions(op, c%world(c%rank), 0, n * c%size, s))
      if (in_place) then
        recv = send
        call MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, n, types(t), ops(op), c%comm, ierr)
      else
        recv = blank(t, n)
        call MPI_Reduce_scatter_block(send, recv, n, types(t), ops(op), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, reductions(c, op, 0, c%size - 1, c%rank * n, n, s)), what)
    end do
  end subroutine

  ! MPI_Reduce_scatter: rank r receives its uneven block (some empty) of
  ! the reduction. In place, the result lands at the start of the input.
  subroutine test_reduce_scatter(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer, allocatable :: cnts(:)
    integer :: s, r, ierr, form, total, first
    logical :: in_place
    character(len=200) :: what
    allocate(cnts(0:c%size - 1))
    cnts = [(uneven(r, n), r = 0, c%size - 1)]
    total = sum(cnts)
    first = sum(cnts(0:c%rank - 1))
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Reduce_scatter', c, t, n, op, -1, in_place)
      send = encode(t, contributions(op, c%world(c%rank), 0, total, s))
      if (in_place) then
        recv = send
        call MPI_Reduce_scatter(MPI_IN_PLACE, recv, cnts, types(t), ops(op), c%comm, ierr)
      else
        recv = blank(t, cnts(c%rank))
        call MPI_Reduce_scatter(send, recv, cnts, types(t), ops(op), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, &
          reductions(c, op, 0, c%size - 1, first, cnts(c%rank), s)), what)
    end do
  end subroutine

  ! MPI_Scan: rank r receives the reduction over ranks 0..r. In place, its
  ! contribution is taken from the receive buffer.
  subroutine test_scan(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer :: s, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Scan', c, t, n, op, -1, in_place)
      send = encode(t, contributions(op, c%world(c%rank), 0, n, s))
      if (in_place) then
        recv = send
        call MPI_Scan(MPI_IN_PLACE, recv, n, types(t), ops(op), c%comm, ierr)
      else
        recv = blank(t, n)
        call MPI_Scan(send, recv, n, types(t), ops(op), c%comm, ierr)
      end if
      call check_call(ierr, what)
      call check(same(t, recv, 0, reductions(c, op, 0, c%rank, 0, n, s)), what)
    end do
  end subroutine

  ! MPI_Exscan: rank r > 0 receives the reduction over ranks 0..r-1 (rank
  ! 0 receives nothing defined, so it is not checked). In place likewise.
  subroutine test_exscan(c, t, n, op)
    type(comm_t), intent(in) :: c
    integer, intent(in) :: t, n, op
    integer(int8), allocatable :: send(:), recv(:)
    integer :: s, ierr, form
    logical :: in_place
    character(len=200) :: what
    do form = 0, 1
      in_place = form == 1
      s = next_salt()
      what = label('MPI_Exscan', c, t, n, op, -1, in_place)
      send = encode(t, contributions(op, c%world(c%rank), 0, n, s))
      if (in_place) then
        recv = send
        call MPI_Exscan(MPI_IN_PLACE, recv, n, types(t), ops(op), c%comm, ierr)
      else
        recv = blank(t, n)
        call MPI_Exscan(send, recv, n, types(t), ops(op), c%comm, ierr)
      end if
      call check_call(ierr, what)
      if (c%rank > 0) &
          call check(same(t, recv, 0, reductions(c, op, 0, c%rank - 1, 0, n, s)), what)
    end do
  end subroutine

  ! ---- MPI_BOTTOM ----------------------------------------------------------
  ! A datatype of the absolute addresses of bot_i, bot_d and bot_r, from
  ! MPI_Get_address, used with MPI_BOTTOM as the buffer: the Fortran
  ! MPI_BOTTOM is a variable of its own, which the binding must map to the
  ! C MPI_BOTTOM (address 0), or every address is off.

  subroutine set_bottom(w, s)
    integer, intent(in) :: w, s
    bot_i = value(w, 0, s)
    bot_d = value(w, 1, s)
    bot_r = [real(value(w, 2, s)), real(value(w, 3, s))]
  end subroutine

  logical function bottom_is(w, s)
    integer, intent(in) :: w, s
    bottom_is = bot_i == value(w, 0, s) .and. bot_d == value(w, 1, s) .and. &
        bot_r(1) == value(w, 2, s) .and. bot_r(2) == value(w, 3, s)
  end function

  logical function record_is(rec, w, s)
    type(record), intent(in) :: rec
    integer, intent(in) :: w, s
    record_is = rec%i == value(w, 0, s) .and. rec%d == value(w, 1, s) .and. &
        rec%r(1) == value(w, 2, s) .and. rec%r(2) == value(w, 3, s)
  end function

  ! The datatype of the three variables at their absolute addresses.
  subroutine absolute_type(dt)
    DATATYPE_T, intent(out) :: dt
    integer(kind=MPI_ADDRESS_KIND) :: displs(3)
    integer :: ierr(5)
    call MPI_Get_address(bot_i, displs(1), ierr(1))
    call MPI_Get_address(bot_d, displs(2), ierr(2))
    call MPI_Get_address(bot_r, displs(3), ierr(3))
    call MPI_Type_create_struct(3, [1, 1, 2], displs, &
        [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_REAL], dt, ierr(4))
    call MPI_Type_commit(dt, ierr(5))
    call check(all(ierr == MPI_SUCCESS), 'the MPI_BOTTOM datatype: ierror is not MPI_SUCCESS')
  end subroutine

  ! The datatype of one record, its fields relative to its start, its
  ! extent that of the record, so that an array of records is its array.
  subroutine record_type(dt)
    DATATYPE_T, intent(out) :: dt
    type(record) :: rec
    DATATYPE_T :: struct
    integer(kind=MPI_ADDRESS_KIND) :: base, displs(3)
    integer :: ierr(7)
    call MPI_Get_address(rec, base, ierr(1))
    call MPI_Get_address(rec%i, displs(1), ierr(2))
    call MPI_Get_address(rec%d, displs(2), ierr(3))
    call MPI_Get_address(rec%r, displs(3), ierr(4))
    displs = displs - base
    call MPI_Type_create_struct(3, [1, 1, 2], displs, &
        [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_REAL], struct, ierr(5))
    call MPI_Type_create_resized(struct, 0_MPI_ADDRESS_KIND, &
        int(storage_size(rec) / 8, MPI_ADDRESS_KIND), dt, ierr(6))
    call MPI_Type_commit(dt, ierr(7))
    call MPI_Type_free(struct, ierr(1))
    call check(all(ierr == MPI_SUCCESS), 'the record datatype: ierror is not MPI_SUCCESS')
  end subroutine

  ! MPI_Bcast from MPI_BOTTOM (sent from and received into the three
  ! variables), from every root; MPI_Allgather from MPI_BOTTOM into an
  ! array of records, one per rank.
  subroutine test_bottom(c)
    type(comm_t), intent(in) :: c
    DATATYPE_T :: abs_t, rec_t
    type(record), allocatable :: recs(:)
    integer :: s, r, root, ierr
    character(len=80) :: what
    call absolute_type(abs_t)
    call record_type(rec_t)
    do root = 0, c%size - 1
      s = next_salt()
      write(what, '(3a,i0)') 'MPI_Bcast of MPI_BOTTOM on ', trim(c%name), ', root ', root
      call set_bottom(c%world(root), s)
      if (c%rank /= root) call set_bottom(SENTINEL, 0)
      call MPI_Bcast(MPI_BOTTOM, 1, abs_t, root, c%comm, ierr)
      call check_call(ierr, what)
      call check(bottom_is(c%world(root), s), what)
    end do
    s = next_salt()
    what = 'MPI_Allgather of MPI_BOTTOM on ' // trim(c%name)
    allocate(recs(0:c%size - 1))
    recs = record(SENTINEL, SENTINEL, SENTINEL)
    call set_bottom(c%world(c%rank), s)
    call MPI_Allgather(MPI_BOTTOM, 1, abs_t, recs, 1, rec_t, c%comm, ierr)
    call check_call(ierr, what)
    call check(all([(record_is(recs(r), c%world(r), s), r = 0, c%size - 1)]), what)
    call MPI_Type_free(abs_t, ierr)
    call MPI_Type_free(rec_t, ierr)
  end subroutine

  ! ---- driving -------------------------------------------------------------

  ! Every check on one communicator.
  subroutine test_everything(c)
    type(comm_t), intent(in) :: c
    integer :: t, k, n, op
    call test_barrier(c)
    do t = 1, ntypes
      do k = 1, size(lengths)
        n = lengths(k)
        call test_bcast(c, t, n)
        call test_gather(c, t, n)
        call test_scatter(c, t, n)
        call test_allgather(c, t, n)
        call test_alltoall(c, t, n)
        call test_allgatherv(c, t, n)
        call test_gatherv(c, t, n)
        call test_scatterv(c, t, n)
        call test_alltoallv(c, t, n)
        do op = 1, nops
          call test_reduce(c, t, n, op)
          call test_allreduce(c, t, n, op)
          call test_reduce_scatter_block(c, t, n, op)
          call test_reduce_scatter(c, t, n, op)
          call test_scan(c, t, n, op)
          call test_exscan(c, t, n, op)
        end do
      end do
    end do
    call test_bottom(c)
    call test_barrier(c)
  end subroutine

  ! The handles of the datatypes and operators (named constants of a
  ! derived type under mpi_f08, integers otherwise), and the datatype sizes.
  subroutine init_tables()
    integer :: t, ierr
    types = [MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION]
    ops = [MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD]
    do t = 1, ntypes
      call MPI_Type_size(types(t), type_bytes(t), ierr)
      call check_call(ierr, 'MPI_Type_size of ' // type_names(t))
    end do
    ! encode() writes default INTEGER, REAL and DOUBLE PRECISION.
    call check(all(type_bytes == [storage_size(0), storage_size(0.0), storage_size(0d0)] / 8), &
        'the datatype sizes are those of the Fortran types')
  end subroutine

  ! A communicator and the world rank of each of its ranks.
  subroutine describe(comm, name, c)
    COMM_T, intent(in) :: comm
    character(len=*), intent(in) :: name
    type(comm_t), intent(out) :: c
    GROUP_T :: group, world_group
    integer :: ierr(6), r
    c%comm = comm
    c%name = name
    call MPI_Comm_rank(comm, c%rank, ierr(1))
    call MPI_Comm_size(comm, c%size, ierr(2))
    allocate(c%world(0:c%size - 1))
    call MPI_Comm_group(comm, group, ierr(3))
    call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr(4))
    call MPI_Group_translate_ranks(group, c%size, [(r, r = 0, c%size - 1)], world_group, &
        c%world, ierr(5))
    call MPI_Group_free(group, ierr(6))
    call check(all(ierr == MPI_SUCCESS), 'describing ' // name // ': ierror')
    call MPI_Group_free(world_group, ierr(1))
  end subroutine
end module fcheck

program fortran_check
  use fcheck
  implicit none
  type(comm_t) :: world, reversed, halves
  COMM_T :: split
  character(len=16) :: arg
  logical :: threaded
  integer :: ierr, provided, nranks, totals(2)

  ! Started with MPI_Init, or with MPI_Init_thread(MPI_THREAD_FUNNELED)
  ! given `thread`: the interposer has entry points for both.
  threaded = .false.
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    threaded = arg == 'thread'
  end if
  if (threaded) then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
    call check_call(ierr, 'MPI_Init_thread')
    ! Open MPI gives at least what was asked for: the interposer must pass
    ! it through.
    call check(provided >= MPI_THREAD_FUNNELED, 'MPI_Init_thread: provided')
  else
    call MPI_Init(ierr)
    call check_call(ierr, 'MPI_Init')
  end if
  ! Errors return their code, to be counted, instead of ending the job.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call check_call(ierr, 'MPI_Comm_set_errhandler')
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call init_tables()

  call describe(MPI_COMM_WORLD, 'world', world)
  call test_everything(world)
  ! All ranks in reversed order.
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, split, ierr)
  call check_call(ierr, 'MPI_Comm_split, reversed')
  call describe(split, 'reversed', reversed)
  call test_everything(reversed)
  call MPI_Comm_free(split, ierr)
  ! Even and odd ranks apart, each in reversed order: communicators of
  ! different sizes at once (with 3 ranks, 2 and 1).
  call MPI_Comm_split(MPI_COMM_WORLD, mod(world_rank, 2), -world_rank, split, ierr)
  call check_call(ierr, 'MPI_Comm_split, halves')
  call describe(split, 'halves', halves)
  call test_everything(halves)
  call MPI_Comm_free(split, ierr)

  totals = [checks, failures]
  call MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) totals(2) = totals(2) + 1
  if (world_rank == 0) then
    write(*, '(3a,i0,a,i0,a,i0,a)') 'fortran_check(', BINDING_NAME, '): ', nranks, &
        ' ranks, ', totals(1), ' checks, ', totals(2), ' failures on all ranks'
    flush(6)
  end if
  call MPI_Finalize(ierr)
  if (totals(2) > 0) error stop 1
end program fortran_check
