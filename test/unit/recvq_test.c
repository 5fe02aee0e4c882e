/* recvq_test.c: the matching engine: wildcards, posting and arrival order, contexts, cancel. */
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

static MPIR_Request *posted(int ctx, int src, int tag)
{
    MPIR_Request *r = MPIR_Request_create(MPIR_REQ_RECV);
    r->context_id = ctx;
    r->rank = src;
    r->tag = tag;
    MPIDI_recvq_append_posted(r);
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

    if (errors) {
        fprintf(stderr, "%d errors\n", errors);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
