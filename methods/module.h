/* module.h: methods built as loadable modules (PKGLIBDIR/ferry_<name>.so).
 *
 * A method whose library is heavy to load (verbs: rdma-core and libnl; ofi: libfabric and its
 * providers) lives in a module.  libmpi holds only the method's table, which starts out filled
 * with the stubs below: its init first makes a cheap check that needs no library (is there an
 * RDMA device at all?), and only then opens the module and replaces the whole table with the
 * module's, so that after start-up the core calls the method directly.  A method that is not
 * worth loading, or whose module cannot be loaded, stays inert for the job: it reaches nobody
 * and costs nothing.  doc/method-api.md, "Methods as modules". */
#ifndef MODULE_H_INCLUDED
#define MODULE_H_INCLUDED

#include "method.h"

/* What a module exports: its table, checked against the library's size of it. */
#define MPIDI_MODULE_ENTRY "ferry_method_ops"
typedef const MPIDI_method_ops_t *(*MPIDI_module_entry_t)(size_t ops_size);

typedef struct MPIDI_module {
    const char *file; /* "ferry_verbs.so" */
    /* Optional cheap check, made without loading anything: 0 with *why_p
     * set when the method has nothing to work with here (no device), so
     * that a start that did not name it skips it (one line with
     * FERRY_VERBOSE=1).  A start that names the method loads it anyway,
     * and the module's own init says what is wrong. */
    int (*worth_loading)(const char **why_p);
    MPIDI_method_ops_t *ops; /* the library's table: stubs until loaded */
    int loaded;
} MPIDI_module_t;

/* The stubs' bodies, for a method's table in the library (see
 * methods/verbs/verbs_load.c): init and probe load the module. */
int MPIDI_module_init(MPIDI_module_t *m, const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
int MPIDI_module_probe(MPIDI_module_t *m, char *buf, size_t len);
int MPIDI_module_inert_card(char *buf, size_t len);
int MPIDI_module_inert_finalize(void);
int MPIDI_module_inert_reachable(int peer, const char *card);
int MPIDI_module_inert_connect(int peer, const char *card);
int MPIDI_module_inert_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                               const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                               void *cookie);
int MPIDI_module_inert_progress(int *made_progress_p);

/* A method table before its module is loaded. */
#define MPIDI_MODULE_STUB(NAME, INIT, PROBE)                                                       \
    {                                                                                              \
        .size = sizeof(MPIDI_method_ops_t), .name = (NAME), .init = (INIT),                        \
        .get_business_card = MPIDI_module_inert_card, .finalize = MPIDI_module_inert_finalize,     \
        .reachable = MPIDI_module_inert_reachable, .connect = MPIDI_module_inert_connect,          \
        .am_send = MPIDI_module_inert_am_send, .progress = MPIDI_module_inert_progress,            \
        .probe = (PROBE),                                                                          \
    }

#endif
