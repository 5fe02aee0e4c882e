/* methods.c: the methods compiled into this library, in default order of preference. */
#include "method.h"

extern const MPIDI_method_ops_t MPIDI_self_ops;
#ifdef FERRY_HAVE_SHM
extern const MPIDI_method_ops_t MPIDI_shm_ops;
#endif
#ifdef FERRY_HAVE_TCP
extern const MPIDI_method_ops_t MPIDI_tcp_ops;
#endif
#ifdef FERRY_HAVE_VERBS
extern MPIDI_method_ops_t MPIDI_verbs_ops; /* filled from its module (methods/module.h) */
#endif
#ifdef FERRY_HAVE_OFI
extern const MPIDI_method_ops_t MPIDI_ofi_ops;
#endif
#ifdef FERRY_HAVE_STUB
extern const MPIDI_method_ops_t MPIDI_stub_ops;
#endif

const MPIDI_method_ops_t *const MPIDI_methods_all[] = {
    &MPIDI_self_ops,
#ifdef FERRY_HAVE_SHM
    &MPIDI_shm_ops,
#endif
#ifdef FERRY_HAVE_TCP
    &MPIDI_tcp_ops,
#endif
#ifdef FERRY_HAVE_VERBS
    &MPIDI_verbs_ops,
#endif
#ifdef FERRY_HAVE_OFI
    &MPIDI_ofi_ops,
#endif
#ifdef FERRY_HAVE_STUB
    &MPIDI_stub_ops,
#endif
    NULL,
};

/* Methods added by MPIDU_method_add (tests), after the built-in ones. */
#define MPIDI_MAX_ADDED 4
static const MPIDI_method_ops_t *added[MPIDI_MAX_ADDED];
static int nadded;
int MPIDI_methods_frozen; /* set by MPI_Init: the table is in use */

int MPIDU_method_add(const MPIDI_method_ops_t *ops)
{
    if (MPIDI_methods_frozen || nadded == MPIDI_MAX_ADDED || !ops ||
        ops->size != sizeof(MPIDI_method_ops_t))
        return -1;
    added[nadded++] = ops;
    return 0;
}

const MPIDI_method_ops_t *MPIDI_method_at(int i)
{
    int nbuilt = (int)(sizeof(MPIDI_methods_all) / sizeof(MPIDI_methods_all[0])) - 1;
    if (i < nbuilt)
        return MPIDI_methods_all[i];
    return i - nbuilt < nadded ? added[i - nbuilt] : NULL;
}
