/* chaos.h: the fake chaos method (chaos_method.c) and what the traffic test reads of it. */
#ifndef CHAOS_H_INCLUDED
#define CHAOS_H_INCLUDED

#include "method.h"

enum {
    CHAOS_AM_CALLS,
    CHAOS_AM_AGAIN,
    CHAOS_AM_INPROGRESS,
    CHAOS_RDMA_CALLS,
    CHAOS_RDMA_AGAIN,
    CHAOS_RDMA_INPROGRESS,
    CHAOS_RDMA_REFUSED,
    CHAOS_REGS,
    CHAOS_RCACHE_HITS,
    CHAOS_NCOUNTS
};

extern const MPIDI_method_ops_t chaos_ops;
extern unsigned long long chaos_seed;
unsigned long long chaos_count(int which);
/* Prints the counts (rank, seed) to stderr; called at finalize. */
void chaos_report(void);

#endif /* CHAOS_H_INCLUDED */
