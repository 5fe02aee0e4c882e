/* contextid.c: context ids: each process's mask of free blocks, and the agreement of a
 * communicator's members on a block free on all of them, run as a state machine that the
 * progress engine advances (so MPI_Comm_idup is nonblocking and agreements may overlap).
 *
 * An agreement goes in rounds of two combinations (an AND over the members, binomial tree to a
 * leader and back, the leaders of an intercommunicator's two groups swapping in between):
 *
 *   masks: every member contributes its free mask; the lowest common bit b is the candidate.
 *   vote:  a member to which b is still free holds it (takes it from its mask, so nothing else
 *          on that process can take it) and votes yes; the round succeeds if every member did.
 *
 * A failed round gives the held block back and starts again.  The vote is needed because other
 * agreements advance while this one waits: between contributing and learning the result,
 * another agreement on this process may have taken or be holding b.  Two agreements that hold
 * the same candidate on different processes both fail; the one with the larger key (parent
 * context and tag, the same on every member) then leaves that block out of its next masks, so
 * they do not collide on it again. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* Context ids come in blocks of MPIR_CONTEXT_BLOCK; disjoint results of one MPI_Comm_split
 * share their block, as they have no member in common. */
#define NBLOCKS (MPIR_CONTEXT_MAX / MPIR_CONTEXT_BLOCK)
#define MASK_WORDS (NBLOCKS / 32)
/* A combination carries the mask and one word of flags. */
#define VEC_WORDS (MASK_WORDS + 1)
#define FLAG_WORD MASK_WORDS
enum {
    FLAG_AVOIDS_NOTHING = 1, /* masks round: this member left no free block out */
    FLAG_VOTE_YES = 1,       /* vote round: this member holds the candidate */
};

static uint32_t free_mask[MASK_WORDS];

static int block_is_free(int block)
{
    return (free_mask[block / 32] >> (block % 32)) & 1;
}
static void block_take(int block)
{
    free_mask[block / 32] &= ~(1u << (block % 32));
}
static void block_give(int block)
{
    free_mask[block / 32] |= 1u << (block % 32);
}

void MPIR_Context_init(void)
{
    memset(free_mask, 0xff, sizeof(free_mask));
}

void MPIR_Context_take(int ctx)
{
    if (ctx >= 0 && ctx % MPIR_CONTEXT_BLOCK == 0)
        block_take(ctx / MPIR_CONTEXT_BLOCK);
}

void MPIR_Context_release(int ctx)
{
    if (ctx >= 0 && ctx % MPIR_CONTEXT_BLOCK == 0)
        block_give(ctx / MPIR_CONTEXT_BLOCK);
}

typedef enum {
    STEP_REDUCE, /* receiving from the children in the tree, then sending to the parent */
    STEP_BRIDGE, /* the leader swaps with the other group's leader */
    STEP_BCAST_RECV,
    STEP_BCAST_SEND,
    STEP_DONE,
} combine_step_t;

typedef enum { ROUND_MASKS, ROUND_VOTE } round_t;

typedef struct agree {
    struct agree *next;
    /* Where the combination runs: a tree over n ranks of local rooted at leader (on local's
     * collective context, with local_tag), and for two groups the leader's swap with
     * bridge_rank of bridge (bridge_tag).  The tree's ranks are members[i] of local (all of
     * local when members is NULL). */
    MPIR_Comm *local;
    int n;
    const int *members;
    int leader, local_tag;
    MPIR_Comm *bridge;
    int bridge_rank, bridge_tag;
    uint64_t key; /* orders colliding agreements; the same on every member */
    /* The combination under way. */
    combine_step_t step;
    int vr; /* rank relative to the leader */
    int m;  /* the tree step */
    uint32_t vec[VEC_WORDS], in[VEC_WORDS];
    MPIR_Request *reqs[2];
    int nreqs, and_in;
    /* The agreement. */
    round_t round;
    int held; /* the block this agreement holds, or -1 */
    uint32_t avoid[MASK_WORDS];
    int done, err, ctx;
    void (*on_done)(void *arg, int err, int ctx);
    void *arg;
} agree_t;

static agree_t *pending; /* agreements under way, advanced by MPIR_Context_progress */

static void post(agree_t *a, int is_recv, uint32_t *buf, MPIR_Comm *comm, int rank, int tag)
{
    MPIR_Request *r = NULL;
    int err = is_recv ? MPID_Irecv(buf, sizeof(a->vec), MPI_BYTE, rank, tag, comm,
                                   MPIR_CONTEXT_COLL_OFFSET, &r)
                      : MPID_Isend(buf, sizeof(a->vec), MPI_BYTE, rank, tag, comm,
                                   MPIR_CONTEXT_COLL_OFFSET, 0, &r);
    if (r)
        a->reqs[a->nreqs++] = r;
    else if (!a->err)
        a->err = err;
}

static int local_rank(const agree_t *a, int vr)
{
    int i = (vr + a->leader) % a->n;
    return a->members ? a->members[i] : i;
}

/* Posts the next step's messages, or moves on when a step has none. */
static void combine_step(agree_t *a)
{
    int n = a->n;
    switch (a->step) {
    case STEP_REDUCE:
        if (a->m < n && !(a->vr & a->m)) {
            if (a->vr + a->m < n) {
                post(a, 1, a->in, a->local, local_rank(a, a->vr + a->m), a->local_tag);
                a->and_in = 1;
            }
            a->m <<= 1;
        } else if (a->vr) {
            post(a, 0, a->vec, a->local, local_rank(a, a->vr - a->m), a->local_tag);
            a->step = STEP_BCAST_RECV;
        } else
            a->step = STEP_BRIDGE;
        break;
    case STEP_BRIDGE:
        if (a->bridge) {
            post(a, 1, a->in, a->bridge, a->bridge_rank, a->bridge_tag);
            post(a, 0, a->vec, a->bridge, a->bridge_rank, a->bridge_tag);
            a->and_in = 1;
        }
        a->step = STEP_BCAST_RECV;
        break;
    case STEP_BCAST_RECV:
        if (a->vr) {
            a->m = a->vr & -a->vr;
            post(a, 1, a->vec, a->local, local_rank(a, a->vr - a->m), a->local_tag);
        } else
            for (a->m = 1; a->m < n; a->m <<= 1)
                ;
        a->step = STEP_BCAST_SEND;
        break;
    case STEP_BCAST_SEND:
        a->m >>= 1;
        if (!a->m)
            a->step = STEP_DONE;
        else if (a->vr + a->m < n)
            post(a, 0, a->vec, a->local, local_rank(a, a->vr + a->m), a->local_tag);
        break;
    case STEP_DONE:
        break;
    }
}

/* Runs the combination until it must wait for a message; returns 1 if anything happened. */
static int combine_advance(agree_t *a)
{
    int made = 0;
    while (a->step != STEP_DONE || a->nreqs) {
        if (a->err && a->step != STEP_DONE) {
            /* The members that wait for this one will not hear from it, and it waits for
             * nobody: a receive not matched yet is withdrawn. */
            for (int i = 0; i < a->nreqs; i++)
                if (a->reqs[i]->kind == MPIR_REQ_RECV)
                    MPID_Cancel_recv(a->reqs[i]);
            a->step = STEP_DONE;
        }
        if (a->nreqs) {
            for (int i = 0; i < a->nreqs; i++)
                if (!MPIR_Request_is_complete(a->reqs[i]))
                    return made;
            for (int i = 0; i < a->nreqs; i++) {
                if (!a->err)
                    a->err = a->reqs[i]->status.MPI_ERROR;
                MPIR_Request_release(a->reqs[i]);
            }
            a->nreqs = 0;
            made = 1;
            if (a->and_in)
                for (int w = 0; w < VEC_WORDS; w++)
                    a->vec[w] &= a->in[w];
            a->and_in = 0;
        } else if (a->step != STEP_DONE)
            combine_step(a);
    }
    return made;
}

static void combine_start(agree_t *a)
{
    a->step = STEP_REDUCE;
    a->m = 1;
    combine_advance(a);
}

static void start_masks(agree_t *a)
{
    int avoids = 0;
    for (int w = 0; w < MASK_WORDS; w++) {
        a->vec[w] = free_mask[w] & ~a->avoid[w];
        avoids |= a->avoid[w] != 0;
    }
    a->vec[FLAG_WORD] = avoids ? 0 : FLAG_AVOIDS_NOTHING;
    a->round = ROUND_MASKS;
    combine_start(a);
}

static int lowest_bit(const uint32_t *mask)
{
    for (int w = 0; w < MASK_WORDS; w++)
        if (mask[w])
            return w * 32 + __builtin_ctz(mask[w]);
    return -1;
}

static const agree_t *holder_of(int block)
{
    for (const agree_t *h = pending; h; h = h->next)
        if (h->held == block)
            return h;
    return NULL;
}

/* The masks are combined: hold the candidate if it is still free here, and vote. */
static void start_vote(agree_t *a)
{
    int b = lowest_bit(a->vec);
    if (b < 0) {
        if (a->vec[FLAG_WORD] & FLAG_AVOIDS_NOTHING) {
            a->err = MPIR_Err_create(MPI_ERR_OTHER,
                                     "no context id left: too many communicators (%d at most)",
                                     NBLOCKS - 2);
            a->done = 1;
            return;
        }
        memset(a->avoid, 0, sizeof(a->avoid)); /* the blocks left out may be all there is */
        start_masks(a);
        return;
    }
    int yes = block_is_free(b);
    if (yes) {
        block_take(b);
        a->held = b;
    } else {
        const agree_t *h = holder_of(b);
        if (h && h->key < a->key)
            a->avoid[b / 32] |= 1u << (b % 32);
    }
    memset(a->vec, 0, sizeof(a->vec));
    a->vec[FLAG_WORD] = yes ? FLAG_VOTE_YES : 0;
    a->round = ROUND_VOTE;
    combine_start(a);
}

/* Advances one agreement as far as it goes; returns 1 if anything happened. */
static int agree_advance(agree_t *a)
{
    int made = combine_advance(a);
    while (!a->done && a->step == STEP_DONE && !a->nreqs) {
        made = 1;
        if (a->err) {
            a->done = 1;
        } else if (a->round == ROUND_MASKS) {
            start_vote(a);
        } else if (a->vec[FLAG_WORD] & FLAG_VOTE_YES) {
            a->ctx = a->held * MPIR_CONTEXT_BLOCK;
            a->held = -1; /* the caller's now */
            a->done = 1;
        } else {
            if (a->held >= 0)
                block_give(a->held);
            a->held = -1;
            start_masks(a);
        }
    }
    if (a->done && a->held >= 0) { /* failed while holding */
        block_give(a->held);
        a->held = -1;
    }
    return made;
}

static void unlink_agree(agree_t *a)
{
    for (agree_t **p = &pending; *p; p = &(*p)->next) {
        if (*p == a) {
            *p = a->next;
            MPIR_upper_work--;
            return;
        }
    }
}

int MPIR_Context_progress(void)
{
    static int running; /* nothing below calls the agent, but a guard costs nothing */
    if (!pending || running)
        return 0;
    running = 1;
    int made = 0;
    for (agree_t *a = pending, *next; a; a = next) {
        next = a->next;
        made |= agree_advance(a);
        if (a->done && a->on_done) {
            unlink_agree(a);
            a->on_done(a->arg, a->err, a->ctx);
            free(a);
        }
    }
    running = 0;
    return made;
}

/* An agreement over local (all of it, or the tree members[0..n-1] with the caller at index)
 * and, from its leader, bridge; it starts at once. */
static void agree_init(agree_t *a, MPIR_Comm *local, int n, const int *members, int index,
                       int leader, int tag, MPIR_Comm *bridge, int bridge_rank, int bridge_tag)
{
    memset(a, 0, sizeof(*a));
    a->local = local;
    a->n = n;
    a->members = members;
    a->leader = leader;
    a->local_tag = local->coll_tag_base + tag;
    a->bridge = bridge;
    a->bridge_rank = bridge_rank;
    a->bridge_tag = bridge ? bridge->coll_tag_base + bridge_tag : 0;
    a->key = (uint64_t)(uint32_t)local->context_id << 32 | (uint32_t)a->local_tag;
    a->vr = (index - leader + n) % n;
    a->held = -1;
    a->next = pending;
    pending = a;
    MPIR_upper_work++;
    start_masks(a);
}

/* The agreement over all of comm (both groups of an intercommunicator). */
static void agree_init_comm(agree_t *a, MPIR_Comm *comm, int tag)
{
    if (comm->is_inter) {
        MPIR_Comm *lc = comm->local_comm;
        agree_init(a, lc, lc->size, NULL, lc->rank, 0, tag, lc->rank == 0 ? comm : NULL, 0, tag);
    } else
        agree_init(a, comm, comm->size, NULL, comm->rank, 0, tag, NULL, 0, 0);
}

static int agree_done(void *arg)
{
    return ((agree_t *)arg)->done;
}

/* Runs an agreement to its end; the block is the caller's (MPIR_Context_release gives it back
 * if no communicator takes it). */
static int agree_wait(agree_t *a, int *ctx_p)
{
    agree_advance(a);
    MPID_Progress_wait(agree_done, a);
    unlink_agree(a);
    *ctx_p = a->ctx;
    return a->err;
}

int MPIR_Context_agree(MPIR_Comm *comm, int *ctx_p)
{
    agree_t a;
    agree_init_comm(&a, comm, MPIR_TAG_CONTEXT);
    return agree_wait(&a, ctx_p);
}

int MPIR_Context_agree_group(MPIR_Comm *comm, const int *members, int n, int index, int *ctx_p)
{
    agree_t a;
    agree_init(&a, comm, n, members, index, 0, MPIR_TAG_CONTEXT, NULL, 0, 0);
    return agree_wait(&a, ctx_p);
}

int MPIR_Context_agree_masks(MPIR_Comm *local, int local_leader, MPIR_Comm *peer, int remote_leader,
                             int *ctx_p)
{
    agree_t a;
    agree_init(&a, local, local->size, NULL, local->rank, local_leader, MPIR_TAG_CONTEXT, peer,
               remote_leader, MPIR_TAG_CONTEXT);
    return agree_wait(&a, ctx_p);
}

int MPIR_Context_agree_start(MPIR_Comm *comm, int tag, void (*on_done)(void *arg, int err, int ctx),
                             void *arg)
{
    agree_t *a = malloc(sizeof(*a));
    if (!a)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory starting a context agreement");
    agree_init_comm(a, comm, tag);
    a->on_done = on_done;
    a->arg = arg;
    MPIR_Context_progress(); /* a communicator of one is done at once */
    return MPI_SUCCESS;
}
