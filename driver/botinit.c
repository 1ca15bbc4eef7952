/*
 * botinit: the small init every bot process runs under (see driver/isolation.py).
 *
 * The referee starts this program once per bot, with the bot's pipes as its
 * standard input, output and error:
 *
 *   botinit [--namespaces --uid N --gid N [--hide DIR --show PATH...]...
 *            [--scratch BYTES [--keep PATH...]]] [--rlimit NAME=VALUE...] [--cgroup DIR]
 *           [--cpu N]
 *           [--probe] --lifeline FD --report FD -- PROGRAM [ARG...]
 *
 * It creates the bot's init process as a child of the referee (CLONE_PARENT)
 * and exits at once. The init, a copy of this small program and not of the
 * referee's Python image, starts the bot, reaps every process the bot leaves
 * behind, forwards SIGTERM/SIGINT/SIGHUP to all of them, and ends all of them
 * (SIGKILL) when the bot exits, when it gets SIGUSR1, or when the referee
 * process dies, whichever thread started it: it watches the read end of a
 * "lifeline" pipe whose write end only the referee holds, and the kernel
 * closes that end however the referee dies (kill -9 included).
 *
 * With --namespaces the init is PID 1 of new user, PID, mount, IPC and
 * network namespaces, with a /proc of its own: the bot cannot name, signal,
 * trace or open the /proc files of any process outside, and when the init
 * exits the kernel kills whatever is left inside. The bot runs as uid/gid N
 * (mapped to themselves), with no capabilities, no_new_privs and a session
 * keyring of its own. When the referee is root, --hide DIR covers DIR (a
 * directory user N cannot search) with an empty tmpfs in which each --show
 * PATH (a child of DIR) is bound back read-only, so that a bot installed
 * under a private directory (a virtualenv under /root) can still run as an
 * unprivileged user without seeing the rest of that directory. Without
 * --namespaces the init is a child subreaper, so that the bot's escaped
 * descendants are still its own to reap and kill.
 *
 * Fences between bots: with --scratch BYTES the bot's /tmp, /var/tmp,
 * /dev/shm and /run/lock (the world-writable places of a usual system) are
 * directories of one tmpfs of its own, at most BYTES big, gone with its
 * mount namespace; it gets its own devpts instance too (no other process's
 * terminals). Each --keep PATH (an entry of one of those places, which the
 * bot's program or arguments lie in) is bound back read-only at its place. Each --rlimit (as, data, nproc, nofile, fsize, core, cpu) is
 * set, soft and hard, in the bot's process just before it runs the
 * program: the bot cannot raise it again. With --cgroup DIR the helper
 * moves the init into the (cgroup v2) group DIR before the init starts the
 * bot, so that everything the bot starts is in it. With --cpu N the bot and
 * all it starts run on CPU N alone (sched_setaffinity), and a seccomp
 * filter refuses it sched_setaffinity (EPERM), so it cannot move off it:
 * where there is no CPU controller, that is how one bot's threads are kept
 * off the core another bot thinks on.
 *
 * Messages on the report pipe, one per line: "init PID" (the helper), then
 * "ready" or "fail STAGE ERRNO" (the init), and at the end "exit STATUS"
 * with the bot's raw wait status. The process the referee started exits 0
 * once the init is running (1 on failure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#define KEYCTL_JOIN_SESSION_KEYRING 1

enum { LIFELINE_FD = 3, REPORT_FD = 4, MAX_HIDDEN = 64, MAX_RLIMITS = 16 };

static const struct {
    const char *name;
    int resource;
} RLIMITS[] = {
    {"as", RLIMIT_AS},       {"data", RLIMIT_DATA}, {"nproc", RLIMIT_NPROC}, {"nofile", RLIMIT_NOFILE},
    {"fsize", RLIMIT_FSIZE}, {"core", RLIMIT_CORE}, {"cpu", RLIMIT_CPU},
};

struct hidden {
    const char *dir;
    const char *shown[MAX_HIDDEN];
    int n_shown;
};

static struct {
    int namespaces, probe, root;
    uid_t uid;
    gid_t gid;
    struct hidden hidden[MAX_HIDDEN];
    int n_hidden;
    long long scratch;
    const char *cgroup;
    const char *keep[MAX_HIDDEN];
    int n_keep;
    long cpu;
    struct {
        int resource;
        rlim_t value;
    } rlimits[MAX_RLIMITS];
    int n_rlimits;
    char **argv;
} opt;

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
    char line[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n > (int)sizeof line - 2)
        return;
    line[n++] = '\n';
    /* The referee may be gone (SIGPIPE is ignored): nothing more to do then. */
    while (write(REPORT_FD, line, (size_t)n) < 0 && errno == EINTR)
        ;
}

static void fail(const char *stage)
{
    report("fail %s %d", stage, errno);
    _exit(1);
}

static void usage(const char *why)
{
    fprintf(stderr, "botinit: %s (this program is started by the Economancy referee)\n", why);
    exit(2);
}

static long number(const char *text)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *end || value < 0)
        usage("bad number");
    return value;
}

static void parse_rlimit(const char *text)
{
    const char *eq = strchr(text, '=');
    if (!eq || opt.n_rlimits == MAX_RLIMITS)
        usage("--rlimit NAME=VALUE, or too many");
    for (size_t k = 0; k < sizeof RLIMITS / sizeof *RLIMITS; k++)
        if (strlen(RLIMITS[k].name) == (size_t)(eq - text) && !strncmp(text, RLIMITS[k].name, (size_t)(eq - text))) {
            opt.rlimits[opt.n_rlimits].resource = RLIMITS[k].resource;
            opt.rlimits[opt.n_rlimits++].value = (rlim_t)number(eq + 1);
            return;
        }
    usage("unknown --rlimit");
}

static void parse(int argc, char **argv)
{
    long lifeline = -1, report_fd = -1;
    int i;
    opt.uid = (uid_t)-1;
    opt.gid = (gid_t)-1;
    opt.cpu = -1;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--namespaces"))
            opt.namespaces = 1;
        else if (!strcmp(arg, "--probe"))
            opt.probe = 1;
        else if (!value)
            usage("option without a value");
        else if (!strcmp(arg, "--uid"))
            opt.uid = (uid_t)number(argv[++i]);
        else if (!strcmp(arg, "--gid"))
            opt.gid = (gid_t)number(argv[++i]);
        else if (!strcmp(arg, "--lifeline"))
            lifeline = number(argv[++i]);
        else if (!strcmp(arg, "--report"))
            report_fd = number(argv[++i]);
        else if (!strcmp(arg, "--scratch"))
            opt.scratch = number(argv[++i]);
        else if (!strcmp(arg, "--rlimit"))
            parse_rlimit(argv[++i]);
        else if (!strcmp(arg, "--cgroup"))
            opt.cgroup = argv[++i];
        else if (!strcmp(arg, "--cpu"))
            opt.cpu = number(argv[++i]);
        else if (!strcmp(arg, "--keep")) {
            if (opt.n_keep == MAX_HIDDEN)
                usage("too many --keep");
            opt.keep[opt.n_keep++] = argv[++i];
        }
        else if (!strcmp(arg, "--hide")) {
            if (opt.n_hidden == MAX_HIDDEN)
                usage("too many --hide");
            opt.hidden[opt.n_hidden++].dir = argv[++i];
        } else if (!strcmp(arg, "--show")) {
            struct hidden *h = opt.n_hidden ? &opt.hidden[opt.n_hidden - 1] : NULL;
            if (!h || h->n_shown == MAX_HIDDEN)
                usage("--show without --hide, or too many");
            h->shown[h->n_shown++] = argv[++i];
        } else
            usage("unknown option");
    }
    if (lifeline < 0 || report_fd < 0)
        usage("--lifeline and --report are required");
    if (opt.namespaces && (opt.uid == (uid_t)-1 || opt.gid == (gid_t)-1))
        usage("--namespaces needs --uid and --gid");
    if (opt.scratch && !opt.namespaces)
        usage("--scratch needs --namespaces");
    if (i < argc)
        i++;
    opt.argv = argv + i;
    if (!opt.probe && !opt.argv[0])
        usage("no program");
    opt.root = geteuid() == 0;
    /* Our two pipes at fixed numbers above the bot's 0, 1 and 2; nothing else open. */
    int l = fcntl((int)lifeline, F_DUPFD_CLOEXEC, 10), r = fcntl((int)report_fd, F_DUPFD_CLOEXEC, 10);
    if (l < 0 || r < 0 || dup2(l, LIFELINE_FD) < 0 || dup2(r, REPORT_FD) < 0)
        usage("bad --lifeline or --report");
    if (syscall(SYS_close_range, REPORT_FD + 1, ~0U, 0) < 0)
        for (int fd = REPORT_FD + 1; fd < 1024; fd++)
            close(fd);
}

static void write_file(const char *path, const char *text, const char *stage)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        fail(stage);
    close(fd);
}

/* Root only, in a mount namespace of our own before the bot's: cover each
 * --hide directory with an empty tmpfs and bind each --show path back, read-only. */
static void expose(void)
{
    if (unshare(CLONE_NEWNS) < 0)
        fail("unshare-mount");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail("mount-private");
    for (int i = 0; i < opt.n_hidden; i++) {
        struct hidden *h = &opt.hidden[i];
        int fds[MAX_HIDDEN];
        struct stat st[MAX_HIDDEN];
        for (int j = 0; j < h->n_shown; j++) {
            fds[j] = open(h->shown[j], O_PATH | O_CLOEXEC);
            if (fds[j] < 0 || fstat(fds[j], &st[j]) < 0)
                fail("expose-open");
        }
        if (mount("tmpfs", h->dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0)
            fail("expose-tmpfs");
        for (int j = 0; j < h->n_shown; j++) {
            char source[64];
            const char *target = h->shown[j];
            if (S_ISDIR(st[j].st_mode)) {
                if (mkdir(target, 0755) < 0 && errno != EEXIST)
                    fail("expose-mkdir");
            } else {
                int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                if (fd < 0)
                    fail("expose-create");
                close(fd);
            }
            snprintf(source, sizeof source, "/proc/self/fd/%d", fds[j]);
            if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) < 0)
                fail("expose-bind");
            if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
                fail("expose-readonly");
            close(fds[j]);
        }
        if (mount(NULL, h->dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
            fail("expose-readonly");
    }
}

static int is_directory(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The bot's scratch space: one tmpfs of opt.scratch bytes mounted on /tmp,
 * with a directory for each world-writable place, each bound over that
 * place (the last, /tmp's own, over the tmpfs's root, which no path then
 * reaches). The directories are the bot's (created with its ids as our
 * filesystem ids: an id the namespace does not map could not own a file). */
static void set_up_scratch(void)
{
    static const char *const places[] = {"/var/tmp", "/dev/shm", "/run/lock", "/tmp"};
    char options[128], source[64];
    int kept[MAX_HIDDEN];
    struct stat kept_st[MAX_HIDDEN];
    for (int k = 0; k < opt.n_keep; k++) { /* the host's, before the scratch covers them */
        kept[k] = open(opt.keep[k], O_PATH | O_CLOEXEC);
        if (kept[k] < 0 || fstat(kept[k], &kept_st[k]) < 0)
            fail("scratch-keep");
    }
    snprintf(options, sizeof options, "size=%lld,nr_inodes=65536,mode=0700,uid=%u,gid=%u", opt.scratch,
             (unsigned)opt.uid, (unsigned)opt.gid);
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, options) < 0)
        fail("scratch-mount");
    setfsgid(opt.gid);
    setfsuid(opt.uid);
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
        if (!is_directory(places[i]))
            continue;
        snprintf(source, sizeof source, "/tmp/.scratch%zu", i);
        if (mkdir(source, 0700) < 0)
            fail("scratch-mkdir");
        if (mount(source, places[i], NULL, MS_BIND, NULL) < 0)
            fail("scratch-bind");
    }
    for (int k = 0; k < opt.n_keep; k++) {
        if (S_ISDIR(kept_st[k].st_mode)) {
            if (mkdir(opt.keep[k], 0755) < 0 && errno != EEXIST)
                fail("scratch-keep");
        } else {
            int fd = open(opt.keep[k], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0)
                fail("scratch-keep");
            close(fd);
        }
        snprintf(source, sizeof source, "/proc/self/fd/%d", kept[k]);
        if (mount(source, opt.keep[k], NULL, MS_BIND | MS_REC, NULL) < 0 ||
            mount(NULL, opt.keep[k], NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
            fail("scratch-keep");
        close(kept[k]);
    }
    setfsuid(0);
    setfsgid(0);
    /* Terminals of its own: the host's devpts would let two bots open each other's. */
    if (is_directory("/dev/pts")) {
        if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") < 0)
            fail("scratch-devpts");
        if (access("/dev/ptmx", F_OK) == 0 && mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) < 0)
            fail("scratch-devpts");
    }
}

/* In the new namespaces, as their PID 1: a /proc that shows them alone, and a
 * loopback interface (the network namespace has nothing else). */
static void set_up_namespaces(void)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail("mount-private");
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        fail("mount-proc");
    if (opt.scratch)
        set_up_scratch();
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
        fail("loopback");
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0)
        fail("loopback");
    close(sock);
    /* Keep the bot, which may share our uid, out of our /proc entries. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* Start the init (returns in it) and exit in the helper once the init is set up. */
static void start_init(void)
{
    int sync[2];
    unsigned long flags = CLONE_PARENT;
    if (opt.namespaces)
        flags |= CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET;
    if (pipe2(sync, O_CLOEXEC) < 0)
        fail("pipe");
    long pid = syscall(SYS_clone, flags, 0, 0, 0, 0);
    if (pid < 0)
        fail("clone");
    if (pid == 0) {
        char go;
        close(sync[1]);
        if (read(sync[0], &go, 1) != 1) /* the helper failed and said so */
            _exit(1);
        close(sync[0]);
        return;
    }
    close(sync[0]);
    report("init %ld", pid);
    if (opt.namespaces) {
        char path[64], map[64];
        /* Unprivileged, a user namespace may only map our own ids, and only
         * once setgroups is denied; root keeps setgroups to clear the bot's
         * supplementary groups. */
        if (!opt.root) {
            snprintf(path, sizeof path, "/proc/%ld/setgroups", pid);
            write_file(path, "deny", "setgroups-deny");
        }
        snprintf(path, sizeof path, "/proc/%ld/uid_map", pid);
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)opt.uid, (unsigned)opt.uid);
        write_file(path, map, "uid-map");
        snprintf(path, sizeof path, "/proc/%ld/gid_map", pid);
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)opt.gid, (unsigned)opt.gid);
        write_file(path, map, "gid-map");
    }
    if (opt.cgroup) {
        char path[4096], text[32];
        snprintf(path, sizeof path, "%s/cgroup.procs", opt.cgroup);
        snprintf(text, sizeof text, "%ld", pid);
        write_file(path, text, "cgroup");
    }
    if (write(sync[1], "g", 1) != 1)
        fail("sync");
    _exit(0);
}

static void drop_privileges(void)
{
    if (opt.root && syscall(SYS_setgroups, 0, NULL) < 0)
        fail("setgroups");
    if (syscall(SYS_setresgid, opt.gid, opt.gid, opt.gid) < 0)
        fail("setgid");
    if (syscall(SYS_setresuid, opt.uid, opt.uid, opt.uid) < 0)
        fail("setuid");
    syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0); /* not the referee's keys */
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) < 0)
        fail("securebits");
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
            fail("capabilities");
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) < 0)
        fail("capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        fail("no-new-privs");
}

#if defined(__x86_64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Keep the bot on opt.cpu: pin it, and refuse it sched_setaffinity. */
static int pin_to_cpu(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)opt.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        return -1;
#ifdef OUR_AUDIT_ARCH
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OUR_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setaffinity, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof *filter), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) < 0)
        return -1;
#endif
    return 0;
}

/* In the bot's process, before exec. Failures go to the init on `errors`. */
static void become_bot(pid_t init, int errors, int sigfd)
{
    sigset_t none;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL); /* ignored signals (SIGPIPE, SIGINT) are not the bot's */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    close(LIFELINE_FD);
    close(REPORT_FD);
    close(sigfd);
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != init)
        _exit(1);
    if (opt.namespaces)
        drop_privileges();
    for (int i = 0; i < opt.n_rlimits; i++) {
        struct rlimit limit = {opt.rlimits[i].value, opt.rlimits[i].value};
        if (setrlimit(opt.rlimits[i].resource, &limit) < 0) {
            int stage_errno[2] = {2, errno};
            (void)!write(errors, stage_errno, sizeof stage_errno);
            _exit(127);
        }
    }
    if (opt.cpu >= 0 && pin_to_cpu() < 0) {
        int stage_errno[2] = {3, errno};
        (void)!write(errors, stage_errno, sizeof stage_errno);
        _exit(127);
    }
    execv(opt.argv[0], opt.argv);
    int stage_errno[2] = {1, errno};
    (void)!write(errors, stage_errno, sizeof stage_errno);
    _exit(127);
}

static const char *const STAGES[] = {"privileges", "exec", "rlimit", "cpu"};

static int bot_reaped, bot_status;
static pid_t bot;

static void note_reaped(pid_t pid, int status)
{
    if (pid == bot && !bot_reaped) {
        bot_reaped = 1;
        bot_status = status;
    }
}

/* Send `sig` to every process the bot left: in our PID namespace, all of them
 * but us; without one, each child of ours (orphans come to us, a subreaper)
 * and its process group. */
static void signal_all(int sig)
{
    if (opt.namespaces) {
        kill(-1, sig);
        return;
    }
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    for (char *p = buf, *end; *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0) {
            kill((pid_t)pid, sig);
            kill(-(pid_t)pid, sig);
        }
    }
}

/* SIGKILL everything and reap it all; returns when we have no child left. */
static void kill_all(void)
{
    for (;;) {
        int status;
        signal_all(SIGKILL);
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            return; /* ECHILD */
        }
        note_reaped(pid, status);
    }
}

static void nothing(int sig) { (void)sig; }

int main(int argc, char **argv)
{
    parse(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    if (opt.namespaces && opt.n_hidden) {
        if (!opt.root)
            usage("--hide needs root");
        expose();
    }
    start_init();

    /* The init. */
    pid_t self = getpid();
    if (opt.namespaces)
        set_up_namespaces();
    else if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        fail("subreaper");
    /* Handled (not SIG_DFL): a PID namespace's init ignores default-action
     * signals, even the referee's. Blocked, and read from a signalfd. */
    sigset_t set;
    struct sigaction handled;
    memset(&handled, 0, sizeof handled);
    handled.sa_handler = nothing;
    sigemptyset(&set);
    const int signals[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
        sigaddset(&set, signals[i]);
        sigaction(signals[i], &handled, NULL);
    }
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sigfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (sigfd < 0)
        fail("signalfd");
    if (opt.probe) {
        report("ready");
        _exit(0);
    }
    int errors[2];
    if (pipe2(errors, O_CLOEXEC) < 0)
        fail("pipe");
    bot = fork();
    if (bot < 0)
        fail("fork");
    if (bot == 0) {
        close(errors[0]);
        become_bot(self, errors[1], sigfd);
    }
    close(errors[1]);
    /* The bot holds its pipes now: ours would keep them open after it ends. */
    close(0);
    close(1);
    close(2);
    int stage_errno[2];
    ssize_t got;
    while ((got = read(errors[0], stage_errno, sizeof stage_errno)) < 0 && errno == EINTR)
        ;
    close(errors[0]);
    if (got == sizeof stage_errno) {
        int stage = stage_errno[0] >= 1 && stage_errno[0] <= 3 ? stage_errno[0] : 0;
        kill_all();
        report("fail %s %d", STAGES[stage], stage_errno[1]);
        _exit(1);
    }
    report("ready");

    struct pollfd watch[2] = {{sigfd, POLLIN, 0}, {LIFELINE_FD, POLLIN, 0}};
    for (;;) {
        if (poll(watch, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            kill_all();
            _exit(1);
        }
        if (watch[1].revents) { /* end of file: the referee is gone */
            char byte;
            if (read(LIFELINE_FD, &byte, 1) <= 0) {
                kill_all();
                _exit(1);
            }
        }
        if (!(watch[0].revents & POLLIN))
            continue;
        struct signalfd_siginfo info;
        if (read(sigfd, &info, sizeof info) != sizeof info)
            continue;
        switch (info.ssi_signo) {
        case SIGCHLD:
            for (;;) {
                int status;
                pid_t pid = waitpid(-1, &status, WNOHANG | __WALL);
                if (pid <= 0)
                    break;
                note_reaped(pid, status);
            }
            break;
        case SIGUSR1:
            kill_all();
            break;
        default: /* SIGTERM, SIGINT, SIGHUP: for the bot and all it started */
            signal_all((int)info.ssi_signo);
        }
        if (bot_reaped) {
            report("exit %d", bot_status);
            kill_all();
            _exit(0);
        }
    }
}
