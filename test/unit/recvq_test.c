/* recvq_test.c: the matching engine: wildcards, posting and arrival order, contexts, cancel,
 * the bins against a plain-list model, lost peers. */
#include <stdio.h>
#include <stdlib.h>
#include "adi_impl.h"

static int errors;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);                            \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            errors++;                                                                          \
        }                                                                                      \
    } while (0)

/* What MPID_Irecv does: a receive request searches the unexpected messages
 * and is posted in the same bin if nothing fits; returns the message taken. */
static MPIR_Request *receive(int ctx, int src, int tag, MPIR_Request **r_p, int *err_p)
{
    MPIR_Request *r = MPIR_Request_create(MPIR_REQ_RECV);
    r->context_id = ctx;
    r->rank = src;
    r->tag = tag;
    *r_p = r;
    return MPIDI_recvq_take_unexp_or_post(r, 0, err_p);
}

static MPIR_Request *posted(int ctx, int src, int tag)
{
    MPIR_Request *r;
    int err;
    MPIR_Request *u = receive(ctx, src, tag, &r, &err);
    EXPECT(u == NULL && err == MPI_SUCCESS && r->in_posted,
           "posting (%d,%d,%d) took a message or failed (error %#x)", ctx, src, tag, err);
    return r;
}

static MPIR_Request *arrived(int ctx, int src, int tag)
{
    MPIR_Request *u = MPIR_Request_create(MPIR_REQ_UNEXP);
    u->context_id = ctx;
    u->rank = src;
    u->tag = tag;
    MPIDI_recvq_append_unexp(u);
    return u;
}

/* ---- a reference model: the two plain lists the engine must behave like ---- */

#define MODEL_MAX 4096
typedef struct {
    MPIR_Request *r;
    int ctx, src, tag;
} entry_t;
static entry_t mposted[MODEL_MAX], munexp[MODEL_MAX];
static int nmposted, nmunexp;

static int fits(int want_src, int want_tag, int src, int tag)
{
    return (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

static MPIR_Request *model_take(entry_t *q, int *n, int i)
{
    MPIR_Request *r = q[i].r;
    for (int j = i + 1; j < *n; j++)
        q[j - 1] = q[j];
    (*n)--;
    return r;
}

/* Random posts, arrivals, probes and cancels over three contexts, five
 * sources and four tags, wildcards included: the binned engine must pick
 * exactly what one posting-order list and one arrival-order list pick. */
static void differential(unsigned seed, int steps)
{
    srand(seed);
    for (int step = 0; step < steps; step++) {
        int ctx = rand() % 3, src = rand() % 5, tag = rand() % 4, op = rand() % 10;
        if (op < 4 && nmposted < MODEL_MAX) { /* a receive is posted (or matches) */
            int wsrc = rand() % 4 == 0 ? MPI_ANY_SOURCE : src;
            int wtag = rand() % 4 == 0 ? MPI_ANY_TAG : tag;
            MPIR_Request *want = NULL;
            for (int i = 0; i < nmunexp && !want; i++)
                if (munexp[i].ctx == ctx && fits(wsrc, wtag, munexp[i].src, munexp[i].tag))
                    want = model_take(munexp, &nmunexp, i);
            MPIR_Request *r;
            int err;
            MPIR_Request *got = receive(ctx, wsrc, wtag, &r, &err);
            EXPECT(got == want && err == MPI_SUCCESS && r->in_posted == !got,
                   "seed %u step %d: receive (%d,%d,%d) took %p, model %p (error %#x)", seed,
                   step, ctx, wsrc, wtag, (void *)got, (void *)want, err);
            if (!got)
                mposted[nmposted++] = (entry_t){r, ctx, wsrc, wtag};
        } else if (op < 8 && nmunexp < MODEL_MAX) { /* a message arrives */
            MPIR_Request *want = NULL;
            for (int i = 0; i < nmposted && !want; i++)
                if (mposted[i].ctx == ctx && fits(mposted[i].src, mposted[i].tag, src, tag))
                    want = model_take(mposted, &nmposted, i);
            MPIR_Request *got = MPIDI_recvq_find_posted(ctx, src, tag);
            EXPECT(got == want, "seed %u step %d: message (%d,%d,%d) matched %p, model %p", seed,
                   step, ctx, src, tag, (void *)got, (void *)want);
            if (!got) {
                MPIR_Request *u = arrived(ctx, src, tag);
                munexp[nmunexp++] = (entry_t){u, ctx, src, tag};
            }
        } else if (op == 8) { /* a probe, wildcard or not */
            int wsrc = rand() % 2 ? MPI_ANY_SOURCE : src;
            int wtag = rand() % 2 ? MPI_ANY_TAG : tag;
            MPIR_Request *want = NULL;
            for (int i = 0; i < nmunexp && !want; i++)
                if (munexp[i].ctx == ctx && fits(wsrc, wtag, munexp[i].src, munexp[i].tag))
                    want = munexp[i].r;
            MPIR_Request *got = MPIDI_recvq_find_unexp(ctx, wsrc, wtag, 0);
            EXPECT(got == want, "seed %u step %d: probe (%d,%d,%d) saw %p, model %p", seed, step,
                   ctx, wsrc, wtag, (void *)got, (void *)want);
        } else if (nmposted > 0) { /* a posted receive is cancelled */
            int i = rand() % nmposted;
            MPIR_Request *r = model_take(mposted, &nmposted, i);
            EXPECT(MPIDI_recvq_remove_posted(r) == 1, "seed %u step %d: cancel failed", seed, step);
        }
    }
    /* Drain both, so the next round starts empty. */
    while (nmposted > 0)
        MPIDI_recvq_remove_posted(model_take(mposted, &nmposted, 0));
    while (nmunexp > 0) {
        entry_t e = munexp[0];
        MPIR_Request *got = MPIDI_recvq_find_unexp(e.ctx, e.src, e.tag, 1);
        EXPECT(got == model_take(munexp, &nmunexp, 0), "seed %u: drain out of order", seed);
    }
}

static const char *name(const MPIR_Request *r, MPIR_Request *const *all, int n)
{
    static char buf[32];
    for (int i = 0; i < n; i++)
        if (all[i] == r) {
            snprintf(buf, sizeof(buf), "R%d", i);
            return buf;
        }
    return r ? "another request" : "none";
}

int main(void)
{
    /* Posted receives match in posting order, wildcards included. */
    MPIR_Request *p[4];
    p[0] = posted(0, MPI_ANY_SOURCE, 5);
    p[1] = posted(0, 1, MPI_ANY_TAG);
    p[2] = posted(0, 1, 5);
    p[3] = posted(2, 1, 5); /* another context */
    MPIR_Request *m;
    m = MPIDI_recvq_find_posted(0, 1, 5);
    EXPECT(m == p[0], "first (0,1,5) should match R0 (ANY_SOURCE), got %s", name(m, p, 4));
    m = MPIDI_recvq_find_posted(0, 1, 5);
    EXPECT(m == p[1], "second (0,1,5) should match R1 (ANY_TAG), got %s", name(m, p, 4));
    m = MPIDI_recvq_find_posted(0, 2, 6);
    EXPECT(m == NULL, "(0,2,6) matches nothing, got %s", name(m, p, 4));
    m = MPIDI_recvq_find_posted(0, 1, 5);
    EXPECT(m == p[2], "third (0,1,5) should match R2, got %s", name(m, p, 4));
    m = MPIDI_recvq_find_posted(0, 1, 5);
    EXPECT(m == NULL, "context 2's receive must not match context 0, got %s", name(m, p, 4));
    m = MPIDI_recvq_find_posted(2, 1, 5);
    EXPECT(m == p[3], "(2,1,5) should match R3, got %s", name(m, p, 4));

    /* Cancel: a posted receive leaves the queue once, then is gone. */
    MPIR_Request *c = posted(0, 3, 9);
    EXPECT(MPIDI_recvq_remove_posted(c) == 1, "cancel of a posted receive should remove it");
    EXPECT(MPIDI_recvq_remove_posted(c) == 0, "second cancel should find nothing");
    m = MPIDI_recvq_find_posted(0, 3, 9);
    EXPECT(m == NULL, "a cancelled receive must not match, got %s", m ? "a match" : "none");
    /* Cancel in the middle keeps the others in order. */
    MPIR_Request *q[3] = {posted(0, 4, 1), posted(0, 4, 1), posted(0, 4, 1)};
    MPIDI_recvq_remove_posted(q[1]);
    m = MPIDI_recvq_find_posted(0, 4, 1);
    EXPECT(m == q[0], "after cancelling the middle one, R0 first; got %s", name(m, q, 3));
    m = MPIDI_recvq_find_posted(0, 4, 1);
    EXPECT(m == q[2], "then R2; got %s", name(m, q, 3));

    /* Unexpected messages match in arrival order; probing does not remove. */
    MPIR_Request *u[4] = {arrived(0, 2, 7), arrived(0, 3, 8), arrived(0, 2, 7), arrived(4, 2, 7)};
    m = MPIDI_recvq_find_unexp(0, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    EXPECT(m == u[0], "probe (ANY,ANY) should see U0, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(0, 3, MPI_ANY_TAG, 1);
    EXPECT(m == u[1], "(3,ANY) should take U1, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(0, MPI_ANY_SOURCE, 7, 1);
    EXPECT(m == u[0], "(ANY,7) should take U0 first, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(0, 2, 7, 1);
    EXPECT(m == u[2], "(2,7) should take U2 next, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(0, 2, 7, 1);
    EXPECT(m == NULL, "context 4's message must not match context 0, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(4, 2, MPI_ANY_TAG, 1);
    EXPECT(m == u[3], "(ctx 4) should take U3, got %s", name(m, u, 4));
    m = MPIDI_recvq_find_unexp(0, MPI_ANY_SOURCE, 8, 0);
    EXPECT(m == NULL, "nothing is left to probe, got %s", name(m, u, 4));

    /* A specific tag never matches another tag, wildcard source or not. */
    arrived(0, 5, 1);
    m = MPIDI_recvq_find_unexp(0, MPI_ANY_SOURCE, 2, 0);
    EXPECT(m == NULL, "(ANY,2) must not match tag 1");
    m = MPIDI_recvq_find_unexp(0, 6, MPI_ANY_TAG, 0);
    EXPECT(m == NULL, "(6,ANY) must not match source 5");

    /* Drain what the cases above left. */
    while (MPIDI_recvq_find_unexp(0, MPI_ANY_SOURCE, MPI_ANY_TAG, 1))
        ;

    /* A wildcard receive posted between two specific ones: a message from
     * any source takes whichever fitting receive was posted first. */
    MPIR_Request *w[3] = {posted(7, 1, 3), posted(7, MPI_ANY_SOURCE, 3), posted(7, 2, 3)};
    m = MPIDI_recvq_find_posted(7, 2, 3);
    EXPECT(m == w[1], "(7,2,3) should take the wildcard R1 posted before R2, got %s",
           name(m, w, 3));
    m = MPIDI_recvq_find_posted(7, 2, 3);
    EXPECT(m == w[2], "then R2, got %s", name(m, w, 3));
    m = MPIDI_recvq_find_posted(7, 1, 3);
    EXPECT(m == w[0], "(7,1,3) takes R0, got %s", name(m, w, 3));

    /* A wildcard receive takes the earliest arrival over every source. */
    MPIR_Request *a[3] = {arrived(8, 4, 0), arrived(8, 1, 0), arrived(8, 4, 0)};
    m = MPIDI_recvq_find_unexp(8, 1, MPI_ANY_TAG, 1);
    EXPECT(m == a[1], "(8,1) takes U1 out of the middle, got %s", name(m, a, 3));
    m = MPIDI_recvq_find_unexp(8, MPI_ANY_SOURCE, MPI_ANY_TAG, 1);
    EXPECT(m == a[0], "(8,ANY) then takes U0, got %s", name(m, a, 3));
    m = MPIDI_recvq_find_unexp(8, MPI_ANY_SOURCE, MPI_ANY_TAG, 1);
    EXPECT(m == a[2], "(8,ANY) then U2, got %s", name(m, a, 3));

    for (unsigned seed = 1; seed <= 40; seed++)
        differential(seed, 3000);

    /* Many sources, one at a time (the flood): every message is found at
     * the head of its bin, in order. */
    enum { NSRC = 50, NPER = 200 };
    static MPIR_Request *flood[NSRC][NPER];
    for (int k = 0; k < NPER; k++)
        for (int s = 0; s < NSRC; s++)
            flood[s][k] = arrived(9, s, k % 7);
    for (int s = 0; s < NSRC; s++)
        for (int k = 0; k < NPER; k++) {
            m = MPIDI_recvq_find_unexp(9, s, MPI_ANY_TAG, 1);
            EXPECT(m == flood[s][k], "flood: source %d message %d out of order", s, k);
        }
    EXPECT(MPIDI_recvq_unexp_bytes() == 0, "no bytes held, %zu counted", MPIDI_recvq_unexp_bytes());

    /* A lost peer: receives naming it fail with its code, wildcard ones on a
     * communicator holding it with the wildcard code; others stay posted. */
    int world2[2] = {5, 6};
    MPIR_Comm with = {.size = 2, .world_ranks = world2}, without = {.size = 1};
    MPIR_Request *named = posted(10, 1, 0), *wild = posted(10, MPI_ANY_SOURCE, 0),
                 *other = posted(11, MPI_ANY_SOURCE, 0), *alive = posted(10, 0, 0);
    named->peer = 6;
    named->comm = &with;
    wild->comm = &with;
    other->comm = &without; /* world rank 0 only */
    alive->peer = 5;
    alive->comm = &with;
    named->ref = wild->ref = other->ref = alive->ref = 3; /* keep them for inspection */
    MPIDI_recvq_fail_peer(6, 1111 << 7 | MPI_ERR_OTHER, 2222 << 7 | MPI_ERR_OTHER);
    EXPECT(named->cc == 0 && named->status.MPI_ERROR == (1111 << 7 | MPI_ERR_OTHER),
           "the receive naming the lost peer fails with its code (cc %d, error %#x)", named->cc,
           named->status.MPI_ERROR);
    EXPECT(wild->cc == 0 && wild->status.MPI_ERROR == (2222 << 7 | MPI_ERR_OTHER),
           "the wildcard receive on its communicator fails with the wildcard code (cc %d, "
           "error %#x)",
           wild->cc, wild->status.MPI_ERROR);
    EXPECT(other->cc == 1 && other->in_posted, "a wildcard receive elsewhere stays posted");
    EXPECT(alive->cc == 1 && alive->in_posted, "a receive from a live peer stays posted");
    /* A receive that finds nothing and is refused (its peer is lost) is not posted, and a
     * message that fits is still taken. */
    MPIR_Request *refused = MPIR_Request_create(MPIR_REQ_RECV);
    refused->context_id = 12;
    refused->rank = 6;
    int rerr;
    m = MPIDI_recvq_take_unexp_or_post(refused, 3333 << 7 | MPI_ERR_OTHER, &rerr);
    EXPECT(m == NULL && rerr == (3333 << 7 | MPI_ERR_OTHER) && !refused->in_posted,
           "a refused receive is not posted and gets the code (error %#x)", rerr);
    MPIR_Request *early = arrived(12, 6, 0);
    m = MPIDI_recvq_take_unexp_or_post(refused, 3333 << 7 | MPI_ERR_OTHER, &rerr);
    EXPECT(m == early && rerr == MPI_SUCCESS && !refused->in_posted,
           "a message already there is taken even from a lost peer (error %#x)", rerr);
    int lost[2] = {3, 6};
    EXPECT(MPIDI_recvq_comm_lost_peer(&with, lost, 2) == 6, "the communicator holds lost rank 6");
    EXPECT(MPIDI_recvq_comm_lost_peer(&without, lost, 2) == -1, "world rank 0 is not lost");
    MPIDI_recvq_remove_posted(other);
    MPIDI_recvq_remove_posted(alive);
    MPIDI_recvq_finalize();

    if (errors) {
        fprintf(stderr, "%d errors\n", errors);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
