/* module.c: a method's table in the library until its module is loaded (module.h). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "module.h"
#include "module_open.h"

/* Opens the module and copies its table over the library's stubs.  MPI
 * error code on failure, with the paths tried and why. */
static int load(MPIDI_module_t *m)
{
    if (m->loaded)
        return MPI_SUCCESS;
    char tried[2 * PATH_MAX];
    void *h = MPIDU_module_open(m->file, tried, sizeof(tried));
    if (h == NULL)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "the %s method's module could not be loaded: tried %s%s",
                                m->ops->name, tried,
                                strstr(tried, "undefined symbol")
                                    ? "; a program linked with libmpi.a must be linked with "
                                      "-rdynamic for modules to find the library"
                                    : "");
    MPIDI_module_entry_t entry = (MPIDI_module_entry_t)dlsym(h, MPIDI_MODULE_ENTRY);
    const MPIDI_method_ops_t *ops = entry ? entry(sizeof(MPIDI_method_ops_t)) : NULL;
    if (ops == NULL || ops->size != sizeof(MPIDI_method_ops_t) ||
        strcmp(ops->name, m->ops->name) != 0) {
        dlclose(h);
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "the %s method's module %s does not match this library (%s): "
                                "reinstall Ferry",
                                m->ops->name, m->file,
                                entry ? "another version" : "no entry point");
    }
    /* Never closed: device libraries keep threads and registrations of
     * their own, and the memory hooks may point into them. */
    *m->ops = *ops;
    m->loaded = 1;
    return MPI_SUCCESS;
}

/* The core's largest header (MPIDI_MAX_HDR in adi/am.h), which every
 * method must accept. */
#define MPIDI_MODULE_INERT_MAX_HDR 64

/* Capabilities the core accepts from a method that reaches nobody. */
static void inert_caps(MPIDI_method_caps_t *caps)
{
    caps->max_hdr = MPIDI_MODULE_INERT_MAX_HDR;
    caps->eager_limit = 0;
    caps->max_send = 1;
    caps->rndv_modes = MPIDI_RNDV_PIPELINE;
    caps->scope = MPIDI_SCOPE_ANY;
    caps->cardless = 1;
}

int MPIDI_module_init(MPIDI_module_t *m, const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    const char *why = NULL;
    if (!job->forced && m->worth_loading && !m->worth_loading(&why)) {
        if (MPIDU_config_int("FERRY_VERBOSE"))
            fprintf(stderr, "ferry: rank %d: %s unavailable: %s\n", job->rank, m->ops->name, why);
        inert_caps(caps_p);
        return MPI_SUCCESS;
    }
    int err = load(m);
    if (err && job->forced)
        return err;
    if (err) {
        /* Something to work with here, but a broken installation: said
         * always, since the job would silently lose its fast network. */
        fprintf(stderr, "ferry: rank %d: %s\n", job->rank, MPIDU_err_string(err));
        inert_caps(caps_p);
        return MPI_SUCCESS;
    }
    return m->ops->init(job, caps_p);
}

int MPIDI_module_probe(MPIDI_module_t *m, char *buf, size_t len)
{
    int err = load(m);
    if (err) {
        buf[0] = '\0';
        MPIDU_probe_line(buf, len, "not usable: %s", MPIDU_err_string(err));
        return 0;
    }
    return m->ops->probe ? m->ops->probe(buf, len) : 1;
}

int MPIDI_module_inert_card(char *buf, size_t len)
{
    snprintf(buf, len, "none");
    return MPI_SUCCESS;
}

int MPIDI_module_inert_finalize(void)
{
    return MPI_SUCCESS;
}

int MPIDI_module_inert_reachable(int peer, const char *card)
{
    (void)peer;
    (void)card;
    return 0;
}

int MPIDI_module_inert_connect(int peer, const char *card)
{
    (void)card;
    return MPIDU_err_create(MPI_ERR_INTERN, "connect to rank %d through a method not loaded", peer);
}

int MPIDI_module_inert_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                               const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                               void *cookie)
{
    (void)handler, (void)hdr, (void)hdr_len, (void)seg, (void)first, (void)last, (void)flags,
        (void)cookie;
    return MPIDU_err_create(MPI_ERR_INTERN, "send to rank %d through a method not loaded", peer);
}

int MPIDI_module_inert_progress(int *made_progress_p)
{
    *made_progress_p = 0;
    return MPI_SUCCESS;
}
