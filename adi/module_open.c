/* module_open.c: finds and opens one of Ferry's loadable modules.
 *
 * Libraries that are heavy to load (libpmix with libevent and hwloc; rdma-core with libnl;
 * libfabric with its providers) are not linked into libmpi: the code that needs them is a
 * module, opened only by a process that will use it.  Linked in, every process of every job
 * paid for loading and relocating them at exec (measured in doc/pmi.md). */
/* dladdr needs _GNU_SOURCE, which config.h defines. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "module_open.h"

void *MPIDU_module_open(const char *file, char *tried, size_t len)
{
    char dirs[2][PATH_MAX];
    int ndirs = 0;
    Dl_info info;

    if (dladdr((void *)MPIDU_module_open, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL)
            snprintf(dirs[ndirs++], PATH_MAX, "%.*s/ferry", (int)(slash - info.dli_fname),
                     info.dli_fname);
    }
    snprintf(dirs[ndirs++], PATH_MAX, "%s", FERRY_PKGLIBDIR);

    size_t used = 0;
    tried[0] = '\0';
    for (int i = 0; i < ndirs; i++) {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dirs[i], file);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
        const char *why = dlerror();
        if (used < len)
            used += (size_t)snprintf(tried + used, len - used, "%s%s (%s)", i ? "; " : "", path,
                                     why ? why : "no reason given");
    }
    return NULL;
}
