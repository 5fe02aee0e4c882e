/* verbs_load.c: the verbs method's table in the library, until its module (ferry_verbs.so,
 * the rest of methods/verbs) is loaded: only a process on a machine with an RDMA device, or
 * one that FERRY_METHODS=verbs names, loads rdma-core.  Linked into libmpi, libibverbs,
 * librdmacm and libnl cost every process about 3 ms at exec (doc/pmi.md). */
#include <dirent.h>
#include <stddef.h>

#include "module.h"

/* A device of any kind shows in sysfs, where rdma-core looks for them too. */
static int device_present(const char **why_p)
{
    DIR *d = opendir("/sys/class/infiniband");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL)
        found = e->d_name[0] != '.';
    if (d)
        closedir(d);
    if (!found)
        *why_p = "no RDMA device";
    return found;
}

static int load_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
static int load_probe(char *buf, size_t len);

MPIDI_method_ops_t MPIDI_verbs_ops = MPIDI_MODULE_STUB("verbs", load_init, load_probe);

static MPIDI_module_t module = {
    .file = "ferry_verbs.so",
    .worth_loading = device_present,
    .ops = &MPIDI_verbs_ops,
};

static int load_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    return MPIDI_module_init(&module, job, caps_p);
}

static int load_probe(char *buf, size_t len)
{
    return MPIDI_module_probe(&module, buf, len);
}
