/* cupcake's mounter: applies the sandbox profile's mounts inside bubblewrap's namespaces, then runs the
 * command with no capability left, as the sandbox's process 1.
 *
 *   bwrap --dev-bind / / --proc /proc --unshare-pid --as-pid-1 --cap-drop ALL
 *         --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP <other floor options> -- mounter FD PROG ARG...
 *
 * FD is an open file descriptor (the launcher's shell opens the mount list outside the sandbox, as it
 * opens bubblewrap's arguments, and the mounter closes it), of NUL-terminated fields, three per mount, applied in order (sandbox/bwrap.py writes
 * it from the same list it gives bubblewrap as options when there is no mounter):
 *   bind    SRC  DST   SRC's mount tree at DST (writable where it was), nosuid and nodev
 *   ro-bind SRC  DST   the same, read-only throughout
 *   tmpfs   MODE DST   an empty tmpfs (octal MODE), nosuid and nodev
 *
 * Why: bubblewrap 0.8 reads and parses the whole mount table after every bind it makes (0.14 ms per
 * bind here, most of a sandboxed command's cost); a bind here is open_tree + mount_setattr +
 * move_mount (Linux >= 5.12), the whole tree at once, no table read.
 *
 * Steps, each checked (any failure: a message on stderr, exit status 125, the command never runs):
 * 1. a mount namespace of its own (so it works for an ordinary user too, whose bubblewrap runs the
 *    command in a nested user namespace that does not own bubblewrap's mount namespace), private;
 * 2. every source cloned as it is now, before anything changes (as bubblewrap takes its sources from
 *    the old root), the six device nodes bubblewrap's --dev gives (and the terminal on stdin, as
 *    /dev/console) and bubblewrap's fresh /proc;
 * 3. the whole tree read-only, nosuid, nodev (what `--ro-bind / /` gives), then a /dev as
 *    bubblewrap's --dev makes it (a tmpfs, those device nodes, a new devpts instance, /dev/shm, the
 *    fd/stdin/stdout/stderr/ptmx/core links; bubblewrap makes it with six binds, each a mount table
 *    read), /proc put back, then the mounts in order;
 * 4. the working directory entered again by its path (the one bubblewrap entered is under the mounts);
 * 5. the bounding set emptied, ambient capabilities cleared, every capability set emptied, all read
 *    back to check; no_new_privs (bubblewrap sets it; set again if not);
 * 6. the command forked and executed with execvp (the environment's PATH, as bubblewrap does); this
 *    process stays process 1 of the sandbox, in the same restricted view (bubblewrap's own process 1
 *    would be one in the unrestricted view, reachable through /proc/1/root: hence --as-pid-1), reaps
 *    orphans, and exits with the command's status (128+N for a signal N), which ends every process
 *    left in the sandbox.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAILED 125
#define MAX_MOUNTS_BYTES (4 << 20)
#define MAX_MOUNTS 512

struct op {
  const char *kind, *a, *b;
  int fd; /* the cloned source tree of a bind */
};

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("cupcake sandbox: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("; the command did not run\n", stderr);
  va_end(ap);
  _exit(FAILED);
}

static char *read_all(const char *fd_text, size_t *len) {
  char *end = NULL;
  errno = 0;
  long fd = strtol(fd_text, &end, 10);
  if (errno || !end || *end || end == fd_text || fd < 3 || fd > 1023) die("bad mount list descriptor %s", fd_text);
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) die("out of memory");
  for (;;) {
    if (n == cap) {
      if (cap >= MAX_MOUNTS_BYTES) die("the mount list (descriptor %s) is too large", fd_text);
      cap *= 2;
      buf = realloc(buf, cap);
      if (!buf) die("out of memory");
    }
    ssize_t r = read((int)fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("cannot read the mount list (descriptor %s): %s", fd_text, strerror(errno));
    if (r == 0) break;
    n += (size_t)r;
  }
  close((int)fd); /* the command does not inherit it */
  if (n > 0 && buf[n - 1] != '\0') die("the mount list (descriptor %s) does not end with a NUL", fd_text);
  *len = n;
  return buf;
}

static int clone_tree(const char *path) {
  int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  if (fd < 0) die("cannot bind %s: %s", path, strerror(errno));
  return fd;
}

static void set_flags(int fd, const char *path, unsigned long long flags) {
  struct mount_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.attr_set = flags;
  if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
    die("cannot set the mount flags of %s: %s", path, strerror(errno));
}

static void attach(int fd, const char *src, const char *dst) {
  if (syscall(SYS_move_mount, fd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    die("cannot mount %s at %s: %s", src, dst, strerror(errno));
  close(fd);
}

static void tmpfs(const char *mode, const char *dst) {
  char *end = NULL;
  errno = 0;
  unsigned long m = strtoul(mode, &end, 8);
  if (errno || !end || *end || end == mode || m > 07777) die("bad tmpfs mode %s for %s", mode, dst);
  char data[32];
  snprintf(data, sizeof data, "mode=%04lo", m);
  if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, data) < 0)
    die("cannot mount an empty tmpfs at %s: %s", dst, strerror(errno));
}

/* /dev as bubblewrap's --dev makes it (bubblewrap's own --dev costs six binds, each a mount table read) */
static const char *const DEVICES[] = {"null", "zero", "full", "random", "urandom", "tty"};
#define N_DEVICES (sizeof DEVICES / sizeof DEVICES[0])
static const char *const DEV_LINKS[][2] = {
    {"ptmx", "pts/ptmx"}, {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}, {"core", "/proc/kcore"}};

static void clone_devices(int *fds, int *console) {
  char path[64];
  for (size_t k = 0; k < N_DEVICES; k++) {
    snprintf(path, sizeof path, "/dev/%s", DEVICES[k]);
    fds[k] = clone_tree(path);
  }
  *console = -1; /* the terminal on stdin, if any, as /dev/console (as bubblewrap does) */
  char tty[256];
  if (isatty(0) && ttyname_r(0, tty, sizeof tty) == 0)
    *console = (int)syscall(SYS_open_tree, AT_FDCWD, tty, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
}

static void node(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) die("cannot create %s: %s", path, strerror(errno));
  close(fd);
}

static void make_dev(const int *fds, int console) {
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
    die("cannot mount a tmpfs at /dev: %s", strerror(errno));
  char path[64];
  for (size_t k = 0; k < N_DEVICES; k++) {
    snprintf(path, sizeof path, "/dev/%s", DEVICES[k]);
    node(path);
    set_flags(fds[k], path, MOUNT_ATTR_NOSUID); /* devices stay usable on these six */
    attach(fds[k], path, path);
  }
  if (mkdir("/dev/shm", 0755) < 0) die("cannot create /dev/shm: %s", strerror(errno));
  if (mkdir("/dev/pts", 0755) < 0) die("cannot create /dev/pts: %s", strerror(errno));
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0)
    die("cannot mount devpts at /dev/pts: %s", strerror(errno));
  for (size_t k = 0; k < sizeof DEV_LINKS / sizeof DEV_LINKS[0]; k++) {
    snprintf(path, sizeof path, "/dev/%s", DEV_LINKS[k][0]);
    if (symlink(DEV_LINKS[k][1], path) < 0) die("cannot create %s: %s", path, strerror(errno));
  }
  if (console >= 0) {
    node("/dev/console");
    set_flags(console, "/dev/console", MOUNT_ATTR_NOSUID);
    attach(console, "the terminal", "/dev/console");
  }
}

static void drop_capabilities(void) {
  for (unsigned long cap = 0; cap < 64; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
      die("cannot drop capability %lu from the bounding set: %s", cap, strerror(errno));
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    die("cannot clear the ambient capabilities: %s", strerror(errno));
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &hdr, data) < 0) die("cannot drop the capabilities: %s", strerror(errno));
  memset(data, 0xff, sizeof data);
  if (syscall(SYS_capget, &hdr, data) < 0) die("cannot read the capabilities back: %s", strerror(errno));
  for (int i = 0; i < 2; i++)
    if (data[i].effective || data[i].permitted || data[i].inheritable) die("capabilities remain after dropping them");
  for (unsigned long cap = 0; cap < 64; cap++)
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) > 0) die("capability %lu remains in the bounding set", cap);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0) > 0) die("an ambient capability remains");
  if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    die("cannot set no_new_privs: %s", strerror(errno));
}

static int run(char **argv) {
  pid_t child = fork();
  if (child < 0) die("cannot start the command: %s", strerror(errno));
  if (child == 0) {
    execvp(argv[0], argv);
    int e = errno;
    fprintf(stderr, "cupcake sandbox: %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
  for (;;) { /* process 1: reap every orphan until the command itself ends */
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return FAILED; /* cannot happen while the command runs: it is our child */
    }
    if (done == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) die("usage: mounter FD PROG [ARG...]");
  size_t len = 0, i = 0;
  char *text = read_all(argv[1], &len);
  static struct op ops[MAX_MOUNTS];
  int n = 0;
  while (i < len) {
    if (n == MAX_MOUNTS) die("more than %d mounts in the mount list", MAX_MOUNTS);
    const char *field[3];
    for (int k = 0; k < 3; k++) {
      if (i >= len) die("the mount list (descriptor %s) ends inside an entry", argv[1]);
      field[k] = text + i;
      i += strlen(text + i) + 1;
    }
    if (strcmp(field[0], "bind") && strcmp(field[0], "ro-bind") && strcmp(field[0], "tmpfs"))
      die("unknown mount kind %s in the mount list", field[0]);
    ops[n++] = (struct op){field[0], field[1], field[2], -1};
  }
  static char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) die("cannot read the working directory: %s", strerror(errno));
  if (unshare(CLONE_NEWNS) < 0) die("cannot make a mount namespace: %s", strerror(errno));
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) die("cannot make the mounts private: %s", strerror(errno));
  for (int k = 0; k < n; k++)
    if (strcmp(ops[k].kind, "tmpfs")) ops[k].fd = clone_tree(ops[k].a);
  int devices[N_DEVICES], console = -1;
  clone_devices(devices, &console);
  int proc = clone_tree("/proc");
  int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) die("cannot open /: %s", strerror(errno));
  set_flags(root, "/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
  close(root);
  make_dev(devices, console);
  attach(proc, "/proc", "/proc");
  for (int k = 0; k < n; k++) {
    if (!strcmp(ops[k].kind, "tmpfs")) {
      tmpfs(ops[k].a, ops[k].b);
      continue;
    }
    int readonly = !strcmp(ops[k].kind, "ro-bind");
    set_flags(ops[k].fd, ops[k].a, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (readonly ? MOUNT_ATTR_RDONLY : 0));
    attach(ops[k].fd, ops[k].a, ops[k].b);
  }
  free(text);
  /* the working directory again by its path: the one bubblewrap entered lies under the new mounts */
  if (chdir(cwd) < 0) die("cannot enter the working directory %s inside the sandbox: %s", cwd, strerror(errno));
  drop_capabilities();
  return run(argv + 2);
}
