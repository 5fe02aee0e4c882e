/* ofi_dl.c: libfabric, opened at run time by the first fi_getinfo of the method.
 *
 * Why not linked into libmpi: Debian's libfabric brings libinfinipath (for its psm provider),
 * whose constructor replaces the dispositions of SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV and
 * SIGTERM with a handler that writes <program>.<pid>,<host>.btr into the current directory and
 * exits with status 1.  Linked, every process of every Ferry job had it: a rank that crashed, or
 * that mpiexec ended with SIGTERM, left a file and looked like exit(1) (test/errors segv_named
 * failed).  Opened here, only a job that asks for ofi loads libfabric, and the dispositions of
 * every signal are put back as they were before the open (IPATH_NO_BACKTRACE=1 would only stop
 * the handler when set before the process starts). */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>

#include "ofi_impl.h"

MPIDI_OFI_lib_t MPIDI_OFI_lib;

#define MPIDI_OFI_LIBRARY "libfabric.so.1"

int MPIDI_OFI_lib_open(char *why, size_t why_len)
{
    static void *handle;
    static struct sigaction before[NSIG];
    static int have[NSIG];
    if (handle)
        return 0;
    for (int s = 1; s < NSIG; s++)
        have[s] = sigaction(s, NULL, &before[s]) == 0;
    handle = dlopen(MPIDI_OFI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    for (int s = 1; s < NSIG; s++) {
        struct sigaction now;
        if (have[s] && sigaction(s, NULL, &now) == 0 &&
            (now.sa_handler != before[s].sa_handler || now.sa_flags != before[s].sa_flags))
            sigaction(s, &before[s], NULL);
    }
    if (!handle) {
        snprintf(why, why_len, "%s could not be opened: %s", MPIDI_OFI_LIBRARY, dlerror());
        return -1;
    }
    const struct {
        const char *name;
        void **fn;
    } table[] = {
        {"fi_getinfo", (void **)&MPIDI_OFI_lib.getinfo},
        {"fi_freeinfo", (void **)&MPIDI_OFI_lib.freeinfo},
        {"fi_dupinfo", (void **)&MPIDI_OFI_lib.dupinfo},
        {"fi_fabric", (void **)&MPIDI_OFI_lib.fabric},
        {"fi_strerror", (void **)&MPIDI_OFI_lib.strerror},
        {"fi_version", (void **)&MPIDI_OFI_lib.version},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        *table[i].fn = dlsym(handle, table[i].name);
        if (!*table[i].fn) {
            snprintf(why, why_len, "%s has no %s", MPIDI_OFI_LIBRARY, table[i].name);
            dlclose(handle);
            handle = NULL;
            return -1;
        }
    }
    return 0;
}
