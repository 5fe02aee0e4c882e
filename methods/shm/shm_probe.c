/* shm_probe.c: ferry_info's check of shm on this machine: a segment in /dev/shm, and whether
 * the kernel lets one process read another's memory (CMA) for single-copy rendezvous. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm_impl.h"

/* Maps and touches a small segment the way init does: shm_open, ftruncate, mmap. */
static int try_segment(char *why, size_t len)
{
    char name[64];
    const size_t size = 1 << 20;
    snprintf(name, sizeof(name), "/ferry-info-%ld", (long)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        snprintf(why, len, "shm_open(%s): %s (errno %d)", name, strerror(errno), errno);
        return 0;
    }
    shm_unlink(name);
    int ok = ftruncate(fd, (off_t)size) == 0;
    void *p = ok ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (p == MAP_FAILED) {
        snprintf(why, len, "%s of 1 MiB in /dev/shm: %s (errno %d)", ok ? "mmap" : "ftruncate",
                 strerror(errno), errno);
        close(fd);
        return 0;
    }
    memset(p, 1, size);
    munmap(p, size);
    close(fd);
    return 1;
}

/* Ranks of a node are siblings, not parent and child (which Yama's ptrace
 * scope 1 would allow): two children of ours try it, one reading the other,
 * after the one read has done what a rank does at init (MPIDI_SHM_cma_setup). */
static int try_cma(char *why, size_t len)
{
#if defined(__linux__) && defined(HAVE_PROCESS_VM_READV)
    static volatile long target = 0x5eed;
    int pfd[2], ready[2];
    if (pipe(pfd) != 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return 0;
    }
    if (pipe(ready) != 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return 0;
    }
    pid_t a = fork();
    if (a == 0) {
        /* Its answer is not needed: the read below tells what a rank would get. */
        char setup_why[160], c = (char)MPIDI_SHM_cma_setup(setup_why, sizeof(setup_why));
        close(pfd[0]);
        close(pfd[1]);
        close(ready[0]);
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        close(ready[1]);
        pause(); /* the process whose memory is read */
        _exit(0);
    }
    close(ready[1]);
    char c;
    if (a > 0 && read(ready[0], &c, 1) != 1) {
        waitpid(a, NULL, 0); /* it died before it was ready: nothing to read */
        a = -1;
    }
    close(ready[0]);
    pid_t b = a > 0 ? fork() : -1;
    if (b == 0) {
        long got = 0;
        struct iovec local = {&got, sizeof(got)}, remote = {(void *)&target, sizeof(target)};
        int err = process_vm_readv(a, &local, 1, &remote, 1, 0) == sizeof(got) && got == 0x5eed ? 0
                  : errno ? errno
                          : EIO;
        if (write(pfd[1], &err, sizeof(err)) < 0)
            _exit(1);
        _exit(0);
    }
    close(pfd[1]);
    int err = ECHILD;
    if (b > 0 && read(pfd[0], &err, sizeof(err)) != sizeof(err))
        err = ECHILD;
    close(pfd[0]);
    if (a > 0) {
        kill(a, SIGKILL);
        waitpid(a, NULL, 0);
    }
    if (b > 0)
        waitpid(b, NULL, 0);
    if (err == 0)
        return 1;
    snprintf(why, len, "process_vm_readv between two processes of this user: %s (errno %d)",
             strerror(err), err);
    return 0;
#else
    snprintf(why, len, "process_vm_readv is not available on this system");
    return 0;
#endif
}

int MPIDI_SHM_probe(char *buf, size_t len)
{
    char why[256];
    buf[0] = '\0';
    if (!try_segment(why, sizeof(why))) {
        MPIDU_probe_line(buf, len, "not usable: %s", why);
        MPIDU_probe_line(buf, len, "ranks of one node need a shared segment in /dev/shm");
        return 0;
    }
    int cma = try_cma(why, sizeof(why));
    long wanted = MPIDU_config_int("FERRY_SHM_CMA");
    MPIDU_probe_line(buf, len, "usable: segments in /dev/shm; large messages %s",
                     cma && wanted ? "by single copy (CMA)" : "through cells (copy pipeline)");
    if (cma)
        MPIDU_probe_line(buf, len, "CMA permitted%s",
                         wanted ? "" : ", but FERRY_SHM_CMA=0 turns it off");
    else
        MPIDU_probe_line(buf, len, "CMA not permitted: %s", why);
    int scope = MPIDI_SHM_yama_scope();
    if (scope >= 0)
        MPIDU_probe_line(buf, len, "kernel.yama.ptrace_scope = %d%s", scope,
                         scope == 1 && cma ? " (each rank lets its siblings read it: "
                                             "prctl(PR_SET_PTRACER))"
                         : scope >= 2 && !cma ? " (2 needs CAP_SYS_PTRACE, 3 forbids it)"
                                              : "");
    return 1;
}
