/* methods.c: the methods compiled into this library, in default order of preference. */
#include "method.h"

extern const MPIDI_method_ops_t MPIDI_self_ops;
#ifdef FERRY_HAVE_SHM
extern const MPIDI_method_ops_t MPIDI_shm_ops;
#endif
#ifdef FERRY_HAVE_TCP
extern const MPIDI_method_ops_t MPIDI_tcp_ops;
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
#ifdef FERRY_HAVE_STUB
    &MPIDI_stub_ops,
#endif
    NULL,
};
