/* kill_at: an LD_PRELOAD library that kills one rank at a chosen step of
 * shared-memory segment setup, so that a test can check what such a death
 * leaves in /dev/shm (tests/scripts/comm_creation_kills.sh). Production
 * code knows nothing of it: it wraps the libc calls that the shm transport
 * makes (transports/shm/segment.cpp) and passes each on via dlsym(RTLD_NEXT).
 *
 * Wrapped calls, counted only when they touch one of our segments (a name
 * starting "/cct-", or an fd open on /dev/shm/cct-*), so that the MPI
 * library's own files and every other mmap leave the counts alone:
 *   shm_open, ftruncate, mmap, shm_unlink
 *
 * Environment:
 *   CCT_KILL_AT=<call>:<n>[:before|after]  raise SIGKILL right before
 *       (the default) or right after the n-th counted call to <call>;
 *   CCT_KILL_RANK=<r>  in the process of rank r only (default 0);
 *   CCT_KILL_LOG=<file>  append "<rank> <pid> <call> <n> <segment>" for
 *       every counted call, and "<rank> <pid> KILL <call> <n> <when>" just
 *       before the kill, so that a dry run (no CCT_KILL_AT) counts the
 *       stages, and a test can tell that the kill it asked for happened and
 *       which processes could have created segments.
 * The rank is CCT_RANK (set by cclaunch for its ranks), else
 * OMPI_COMM_WORLD_RANK (set by mpirun); a process with neither (cclaunch
 * itself, mpirun, orted) is never killed and logs nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

enum call { SHM_OPEN, FTRUNCATE, MMAP, SHM_UNLINK, CALLS };
static const char* const call_names[CALLS] = {"shm_open", "ftruncate", "mmap", "shm_unlink"};

static int my_rank = -1; /* -1: not a rank, the shim stays out of the way */
static int kill_call = -1;
static long kill_n = 0;
static int kill_after = 0;
static const char* log_path = NULL;
static long counts[CALLS];

static int rank_from_environment(void) {
  const char* r = getenv("CCT_RANK");
  if (r == NULL) r = getenv("OMPI_COMM_WORLD_RANK");
  return r == NULL ? -1 : atoi(r);
}

/* Parses "<call>:<n>[:before|after]"; anything else asks for no kill. */
static void parse_kill_at(const char* spec) {
  char name[32];
  char when[16] = "before";
  long n = 0;
  if (sscanf(spec, "%31[a-z_]:%ld:%15s", name, &n, when) < 2 || n < 1) return;
  for (int c = 0; c < CALLS; ++c)
    if (strcmp(name, call_names[c]) == 0) kill_call = c;
  kill_n = n;
  kill_after = strcmp(when, "after") == 0;
}

__attribute__((constructor)) static void kill_at_init(void) {
  my_rank = rank_from_environment();
  log_path = getenv("CCT_KILL_LOG");
  const char* at = getenv("CCT_KILL_AT");
  const char* target = getenv("CCT_KILL_RANK");
  if (at != NULL && my_rank == (target != NULL ? atoi(target) : 0)) parse_kill_at(at);
}

/* One write per line with O_APPEND: lines of several ranks never mix. */
static void log_line(const char* line) {
  if (log_path == NULL) return;
  int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ssize_t ignored = write(fd, line, strlen(line));
  (void)ignored;
  close(fd);
}

/* The segment `name` names, or NULL when it is not one of ours. */
static const char* ours_by_name(const char* name) {
  return name != NULL && strncmp(name, "/cct-", 5) == 0 ? name : NULL;
}

/* The segment fd is open on ("/dev/shm/cct-..."), or NULL; in `buf`. */
static const char* ours_by_fd(int fd, char* buf, size_t size) {
  if (fd < 0) return NULL;
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, buf, size - 1);
  if (n < 0) return NULL;
  buf[n] = '\0';
  return strncmp(buf, "/dev/shm/cct-", 13) == 0 ? buf : NULL;
}

/* Counts a call about to be made; returns its number (1, 2, ...). */
static long count_call(enum call c, const char* segment) {
  long n = __atomic_add_fetch(&counts[c], 1, __ATOMIC_SEQ_CST);
  char line[320];
  snprintf(line, sizeof line, "%d %d %s %ld %s\n", my_rank, (int)getpid(), call_names[c], n,
           segment);
  log_line(line);
  return n;
}

static void kill_if_due(enum call c, long n, int after) {
  if ((int)c != kill_call || n != kill_n || after != kill_after) return;
  char line[96];
  snprintf(line, sizeof line, "%d %d KILL %s %ld %s\n", my_rank, (int)getpid(), call_names[c], n,
           after ? "after" : "before");
  log_line(line);
  raise(SIGKILL);
}

/* Makes the real call `expr` between the two kill points when `segment`
 * (evaluated only in a rank) is one of ours. */
#define WRAP(c, segment, type, expr)    \
  do {                                  \
    const char* seg_ = NULL;            \
    if (my_rank >= 0) seg_ = (segment); \
    if (seg_ == NULL) return expr;      \
    long n_ = count_call(c, seg_);      \
    kill_if_due(c, n_, 0);              \
    type result_ = expr;                \
    kill_if_due(c, n_, 1);              \
    return result_;                     \
  } while (0)

static void* real(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

int shm_open(const char* name, int oflag, mode_t mode) {
  static int (*next)(const char*, int, mode_t);
  if (next == NULL) next = (int (*)(const char*, int, mode_t))real("shm_open");
  WRAP(SHM_OPEN, ours_by_name(name), int, next(name, oflag, mode));
}

int shm_unlink(const char* name) {
  static int (*next)(const char*);
  if (next == NULL) next = (int (*)(const char*))real("shm_unlink");
  WRAP(SHM_UNLINK, ours_by_name(name), int, next(name));
}

int ftruncate(int fd, off_t length) {
  static int (*next)(int, off_t);
  if (next == NULL) next = (int (*)(int, off_t))real("ftruncate");
  char buf[256];
  WRAP(FTRUNCATE, ours_by_fd(fd, buf, sizeof buf), int, next(fd, length));
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  static void* (*next)(void*, size_t, int, int, int, off_t);
  if (next == NULL) next = (void* (*)(void*, size_t, int, int, int, off_t))real("mmap");
  char buf[256];
  WRAP(MMAP, ours_by_fd(fd, buf, sizeof buf), void*, next(addr, length, prot, flags, fd, offset));
}
