/* peer.c: method start-up and the per-peer table: each peer is bound to one method. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adi_impl.h"
#include "mpidi_config.h"
#include "pmi.h"

MPIDI_peer_t *MPIDI_peers;
MPIDI_active_method_t MPIDI_active[MPIDI_MAX_METHODS];
int MPIDI_nactive;

static int in_list(const char *list, const char *name, int *pos_p)
{
    int pos = 0;
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        if (n == strlen(name) && strncmp(s, name, n) == 0) {
            *pos_p = pos;
            return 1;
        }
        pos++;
        s += n + (s[n] == ',');
    }
    return 0;
}

/* A method's capabilities must be ones the core can use. */
static int check_caps(const MPIDI_method_ops_t *ops, const MPIDI_method_caps_t *c)
{
    const char *bad = NULL;
    if (c->max_hdr < MPIDI_MAX_HDR)
        bad = "max_hdr is below the core's largest header";
    else if (c->max_send == 0 || c->eager_limit > c->max_send)
        bad = "eager_limit exceeds max_send";
    else if (!(c->rndv_modes & MPIDI_RNDV_PIPELINE))
        bad = "the pipeline is not among its rendezvous modes";
    else if ((c->needs_reg || c->needs_local_reg) && (!ops->mem_reg || !ops->mem_dereg))
        bad = "it needs registration but has no mem_reg/mem_dereg";
    else if (c->addr_mode == MPIDI_ADDR_OFFSET && !c->needs_reg)
        bad = "offset addressing without registration";
    else if (c->key_size > 8)
        bad = "keys longer than 64 bits";
    if (!bad)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_INTERN, "method %s reports unusable capabilities: %s", ops->name,
                           bad);
}

/* Whether a method started so far reaches every rank of its node. */
static int node_method_running(void)
{
    for (int i = 0; i < MPIDI_nactive; i++)
        if (MPIDI_active[i].caps.scope == MPIDI_SCOPE_NODE)
            return 1;
    return 0;
}

/* Starts the methods FERRY_METHODS names (all built ones if it is empty), in
 * the order it gives; without it, by exclusivity.  Methods flagged
 * MPIDI_METHOD_ALWAYS (self: a rank always reaches itself) always run.
 * Without a list, a job all on one node does not start the methods flagged
 * MPIDI_METHOD_OFF_NODE once a node method (shm, earlier in the table) runs:
 * they would carry nothing, and tcp's listener, interface scan and card
 * cost every rank a socket, a netlink dump and a PMI put. */
int MPIDI_methods_init(const MPIDI_job_t *job)
{
    MPIDI_methods_frozen = 1;
    const char *list = MPIDI_config_str("FERRY_METHODS");
    int order[MPIDI_MAX_METHODS];
    /* Reject names we do not have before starting anything. */
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        int found = 0;
        for (int i = 0; MPIDI_method_at(i); i++)
            found |= strlen(MPIDI_method_at(i)->name) == n &&
                     strncmp(MPIDI_method_at(i)->name, s, n) == 0;
        if (!found) {
            char avail[256] = "";
            for (int i = 0; MPIDI_method_at(i); i++)
                snprintf(avail + strlen(avail), sizeof(avail) - strlen(avail), "%s%s", i ? "," : "",
                         MPIDI_method_at(i)->name);
            return MPIR_Err_create(MPI_ERR_ARG,
                                   "FERRY_METHODS=\"%s\": method \"%.*s\" is not built in "
                                   "(available: %s)",
                                   list, (int)n, s, avail);
        }
        s += n + (s[n] == ',');
    }
    for (int i = 0; MPIDI_method_at(i); i++) {
        const MPIDI_method_ops_t *ops = MPIDI_method_at(i);
        int pos = 0;
        int named = *list && in_list(list, ops->name, &pos);
        if (*list && !named && !(ops->flags & MPIDI_METHOD_ALWAYS))
            continue;
        if (!*list && (ops->flags & MPIDI_METHOD_OFF_NODE) && job->nlocal == job->size &&
            node_method_running())
            continue;
        MPIDI_active_method_t *a = &MPIDI_active[MPIDI_nactive];
        memset(a, 0, sizeof(*a));
        a->ops = ops;
        a->caps.size = sizeof(a->caps);
        MPIDI_job_t j = *job;
        j.forced = named;
        int err = ops->init(&j, &a->caps);
        if (!err)
            err = check_caps(ops, &a->caps);
        if (err) {
            /* A method cleans up its own failed init; the ones before it
             * are finalized here. */
            MPIDI_methods_finalize();
            return err;
        }
        /* Listed methods in list order; an unlisted ALWAYS method before them
         * (it reaches only what nothing else should carry: self). */
        order[MPIDI_nactive] = !*list ? -a->caps.exclusivity : named ? pos : -1;
        MPIDI_nactive++;
    }
    /* Sort by preference (insertion sort: a handful of entries). */
    for (int i = 1; i < MPIDI_nactive; i++) {
        for (int j = i; j > 0 && order[j] < order[j - 1]; j--) {
            MPIDI_active_method_t t = MPIDI_active[j];
            MPIDI_active[j] = MPIDI_active[j - 1];
            MPIDI_active[j - 1] = t;
            int o = order[j];
            order[j] = order[j - 1];
            order[j - 1] = o;
        }
    }
    MPIDI_progress_methods_set();
    MPIDI_peers = calloc(job->size, sizeof(*MPIDI_peers));
    MPIDI_lost_peers = malloc(sizeof(int) * (size_t)job->size);
    MPIDI_nlost = MPIDI_nlost_failed = 0;
    if (!MPIDI_peers || !MPIDI_lost_peers) {
        MPIDI_methods_finalize();
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d peers", job->size);
    }
    return MPI_SUCCESS;
}

int MPIDI_methods_publish(void)
{
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        char key[64], card[1024];
        if (MPIDI_active[i].caps.cardless)
            continue;
        if (ops->get_business_card(card, sizeof(card)) != MPI_SUCCESS)
            return MPIR_Err_create(MPI_ERR_OTHER, "method %s gave no business card", ops->name);
        snprintf(key, sizeof(key), "P%d-%s", MPIDI_world.rank, ops->name);
        if (PMI_KVS_Put(MPIDI_world.kvsname, key, card) != PMI_SUCCESS)
            return MPIR_Err_create(MPI_ERR_OTHER, "PMI put of %s failed: %s", key,
                                   PMIU_last_error());
    }
    return PMI_KVS_Commit(MPIDI_world.kvsname) == PMI_SUCCESS
               ? MPI_SUCCESS
               : MPIR_Err_create(MPI_ERR_OTHER, "PMI commit failed: %s", PMIU_last_error());
}

int MPIDI_methods_post_init(void)
{
    for (int i = 0; i < MPIDI_nactive; i++) {
        if (MPIDI_active[i].ops->post_init) {
            int err = MPIDI_active[i].ops->post_init();
            if (err)
                return err;
        }
    }
    return MPI_SUCCESS;
}

int MPIDI_methods_finalize(void)
{
    int ret = MPI_SUCCESS;
    for (int i = 0; i < MPIDI_nactive; i++) {
        int err = MPIDI_active[i].ops->finalize();
        if (err && !ret)
            ret = err;
    }
    MPIDI_nactive = 0;
    MPIDI_progress_methods_set();
    free(MPIDI_peers);
    MPIDI_peers = NULL;
    free(MPIDI_lost_peers);
    MPIDI_lost_peers = NULL;
    MPIDI_nlost = MPIDI_nlost_failed = 0;
    return ret;
}

size_t MPIDI_peer_eager_limit(const MPIDI_peer_t *p)
{
    long forced = MPIDI_config_int("FERRY_EAGER_LIMIT");
    if (forced < 0)
        return p->caps->eager_limit;
    /* One eager message is one am_send, so a larger forced limit is capped. */
    return (size_t)forced < p->caps->max_send ? (size_t)forced : p->caps->max_send;
}

/* Whether a method's scope can hold the peer: decided without its card. */
static int in_scope(const MPIDI_method_caps_t *caps, int peer)
{
    switch (caps->scope) {
    case MPIDI_SCOPE_SELF:
        return peer == MPIDI_world.rank;
    case MPIDI_SCOPE_NODE:
        return MPIDI_node_of(peer) == MPIDI_node_of(MPIDI_world.rank);
    case MPIDI_SCOPE_ANY:
        break;
    }
    return 1;
}

/* Binds the peer to the first method, in preference order, that reaches it.
 * Called at the first message to or from the peer: the peer's card is
 * fetched then (one PMI get), not for every rank at start-up. */
static int bind_peer(int peer, MPIDI_peer_t *p, int *unreachable_p)
{
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        char key[64], card[1024];
        if (!in_scope(&MPIDI_active[i].caps, peer))
            continue;
        snprintf(key, sizeof(key), "P%d-%s", peer, ops->name);
        if (MPIDI_active[i].caps.cardless)
            card[0] = '\0';
        else if (PMI_KVS_Get(MPIDI_world.kvsname, key, card, sizeof(card)) != PMI_SUCCESS) {
            /* The peer does not run this method (or its card cannot be read). */
            if (MPIDI_config_int("FERRY_VERBOSE") >= 2)
                fprintf(stderr, "ferry: rank %d: no %s card for rank %d: %s\n", MPIDI_world.rank,
                        ops->name, peer, PMIU_last_error());
            continue;
        }
        if (!ops->reachable(peer, card))
            continue;
        int err = ops->connect(peer, card);
        if (err)
            return err;
        p->method = ops;
        p->caps = &MPIDI_active[i].caps;
        p->stats = &MPIDI_active[i].stats;
        p->eager_limit = MPIDI_peer_eager_limit(p);
        if (MPIDI_config_int("FERRY_VERBOSE"))
            fprintf(stderr, "ferry: rank %d reaches rank %d by %s (eager limit %zu)\n",
                    MPIDI_world.rank, peer, ops->name, p->eager_limit);
        return MPI_SUCCESS;
    }
    *unreachable_p = 1;
    char names[256] = "";
    for (int i = 0; i < MPIDI_nactive; i++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "," : "",
                 MPIDI_active[i].ops->name);
    return MPIR_Err_create(MPI_ERR_OTHER,
                           "rank %d: no method reaches rank %d (methods in use: %s; see "
                           "FERRY_METHODS)",
                           MPIDI_world.rank, peer, names);
}

MPIDI_peer_t *MPIDI_peer_bind(int peer, int *errp)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    if (p->failed_code) {
        *errp = p->failed_code;
        return NULL;
    }
    int unreachable = 0;
    int err = bind_peer(peer, p, &unreachable);
    if (err) {
        /* Nothing can come from a peer that no method reaches either: the
         * receives waiting for it fail (at the next progress), as for a
         * lost peer, instead of waiting forever.  A connect that failed
         * (out of descriptors) may work later: only this send fails. */
        if (unreachable)
            MPIDU_peer_failed(peer, err, MPIR_Err_string(err));
        *errp = err;
        return NULL;
    }
    return p;
}
