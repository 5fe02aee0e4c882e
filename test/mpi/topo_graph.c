/* topo_graph.c: graph and distributed graph topologies.
 * Graph: MPI_Graph_create over all ranks and over fewer (the others get MPI_COMM_NULL; an
 * empty graph gives MPI_COMM_NULL everywhere), with a self-loop and a repeated edge;
 * Graphdims_get, Graph_get, Graph_neighbors_count and Graph_neighbors of
 * every node, Graph_map, Topo_test, and the topology kept by Comm_dup.
 * Distributed graph: Dist_graph_create_adjacent weighted and MPI_UNWEIGHTED (the lists come
 * back as given, in order); Dist_graph_create with the edges given by their source, all by rank
 * 0, or by a third process, with repeated edges and self-edges, weighted, MPI_UNWEIGHTED, and
 * with MPI_WEIGHTS_EMPTY from the processes that give no edge: each process's in- and out-edges
 * with their weights are the expected multisets (their order is the implementation's);
 * Topo_test; Comm_dup keeps it.  (Arrays shorter than the lists are left out: MPICH refuses
 * them, Open MPI returns the first entries.) */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

/* ---- Graph ---- */

/* The neighbours of node i of an n-node graph: a ring both ways, a double edge between 2m and
 * 2m+1, and a self-loop at node 0.  Symmetric: j appears in i's list as often as i in j's. */
static int graph_nbrs(int n, int i, int *out)
{
    int k = 0;
    out[k++] = (i + 1) % n;
    out[k++] = (i - 1 + n) % n;
    if (i % 2 == 0 && i + 1 < n)
        out[k++] = i + 1;
    if (i % 2 == 1)
        out[k++] = i - 1;
    if (i == 0)
        out[k++] = 0;
    return k;
}

static int check_graph(int nnodes)
{
    int errs = 0, *index = malloc(sizeof(int) * (nnodes + 1)),
        *edges = malloc(sizeof(int) * 8 * (nnodes + 1));
    int nedges = 0;
    for (int i = 0; i < nnodes; i++) {
        nedges += graph_nbrs(nnodes, i, edges + nedges);
        index[i] = nedges;
    }
    MPI_Comm g = MPI_COMM_NULL;
    int newrank = -1;
    MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g);
    MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &newrank);
#if defined(OPEN_MPI)
    /* Open MPI 4.1 gives a process outside the graph its own rank. */
    if (mtest_rank >= nnodes && newrank == mtest_rank) {
        printf("note: Open MPI's Graph_map gives a process outside the graph its rank\n");
        newrank = MPI_UNDEFINED;
    }
#endif
    MTEST_CHECK_INT(errs, mtest_rank < nnodes ? mtest_rank : MPI_UNDEFINED, newrank,
                    "Graph_map of %d nodes", nnodes);
    if (mtest_rank >= nnodes) {
        if (g != MPI_COMM_NULL)
            MTEST_FAIL(errs, "graph of %d nodes: rank %d got a communicator", nnodes, mtest_rank);
        goto out;
    }
    if (g == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "graph of %d nodes: MPI_COMM_NULL", nnodes);
        goto out;
    }
    MPI_Comm d;
    MPI_Comm_dup(g, &d);
    MPI_Comm comms[2] = {g, d};
    for (int c = 0; c < 2; c++) {
        const char *what = c ? "Comm_dup of a graph" : "graph";
        int status = -1, nn = -1, ne = -1, size = -1, rank = -1;
        MPI_Comm_size(comms[c], &size);
        MPI_Comm_rank(comms[c], &rank);
        MTEST_CHECK_INT(errs, nnodes, size, "%s of %d nodes: size", what, nnodes);
        MTEST_CHECK_INT(errs, mtest_rank, rank, "%s of %d nodes: rank", what, nnodes);
        MPI_Topo_test(comms[c], &status);
        MTEST_CHECK_INT(errs, MPI_GRAPH, status, "%s: Topo_test", what);
        MPI_Graphdims_get(comms[c], &nn, &ne);
        MTEST_CHECK_INT(errs, nnodes, nn, "%s: Graphdims_get nnodes", what);
        MTEST_CHECK_INT(errs, nedges, ne, "%s: Graphdims_get nedges", what);
        int *gi = malloc(sizeof(int) * (nnodes + 1)), *ge = malloc(sizeof(int) * (nedges + 1));
        MPI_Graph_get(comms[c], nnodes, nedges, gi, ge);
        for (int i = 0; i < nnodes; i++)
            MTEST_CHECK_INT(errs, index[i], gi[i], "%s: Graph_get index[%d]", what, i);
        for (int j = 0; j < nedges; j++)
            MTEST_CHECK_INT(errs, edges[j], ge[j], "%s: Graph_get edges[%d]", what, j);
        free(gi);
        free(ge);
        for (int r = 0; r < nnodes; r++) {
            int expect[8], got[8], ne_r = graph_nbrs(nnodes, r, expect), cnt = -1;
            MPI_Graph_neighbors_count(comms[c], r, &cnt);
            MTEST_CHECK_INT(errs, ne_r, cnt, "%s: Graph_neighbors_count(%d)", what, r);
            MPI_Graph_neighbors(comms[c], r, 8, got);
            for (int k = 0; k < ne_r && k < cnt; k++)
                MTEST_CHECK_INT(errs, expect[k], got[k], "%s: Graph_neighbors(%d)[%d]", what, r, k);
        }
    }
    /* The communicator works: each node sends its rank to its first neighbour. */
    int expect[8], got = -1, nb = graph_nbrs(nnodes, mtest_rank, expect);
    (void)nb;
    int from = (mtest_rank - 1 + nnodes) % nnodes;
    MPI_Sendrecv(&mtest_rank, 1, MPI_INT, expect[0], 0, &got, 1, MPI_INT, from, 0, g,
                 MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, from, got, "graph of %d nodes: value from the previous node", nnodes);
    MPI_Comm_free(&d);
    MPI_Comm_free(&g);
out:
    free(index);
    free(edges);
    return errs;
}

/* ---- Distributed graph ---- */

typedef struct {
    int peer, weight;
} edge_t;

static int by_edge(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    return x->peer != y->peer ? x->peer - y->peer : x->weight - y->weight;
}

/* The job's edges, the same list on every process: each rank r has out-edges to r+1 (twice,
 * weights differ), to itself, and to r+3; weight 100 * source + 10 * k + destination-ish. */
#define EDGES_PER_RANK 4
static void edge_of(int n, int r, int k, int *dst, int *w)
{
    static const int step[EDGES_PER_RANK] = {1, 1, 0, 3};
    *dst = (r + step[k]) % n;
    *w = 100 * r + 10 * k + 1;
}

/* Checks comm's lists (in any order) against the job's edges. */
static int check_dist(MPI_Comm comm, int weighted, const char *what)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    edge_t ein[EDGES_PER_RANK * 64], eout[EDGES_PER_RANK];
    int nin = 0, nout = 0;
    for (int r = 0; r < n; r++)
        for (int k = 0; k < EDGES_PER_RANK; k++) {
            int d, w;
            edge_of(n, r, k, &d, &w);
            if (d == me)
                ein[nin++] = (edge_t){r, w};
            if (r == me)
                eout[nout++] = (edge_t){d, w};
        }
    int status = -1, indeg = -1, outdeg = -1, wflag = -1;
    MPI_Topo_test(comm, &status);
    MTEST_CHECK_INT(errs, MPI_DIST_GRAPH, status, "%s: Topo_test", what);
    MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &wflag);
    MTEST_CHECK_INT(errs, nin, indeg, "%s: indegree", what);
    MTEST_CHECK_INT(errs, nout, outdeg, "%s: outdegree", what);
    MTEST_CHECK_INT(errs, weighted, !!wflag, "%s: weighted", what);
    if (indeg != nin || outdeg != nout)
        return errs;
    int src[EDGES_PER_RANK * 64], sw[EDGES_PER_RANK * 64], dst[EDGES_PER_RANK], dw[EDGES_PER_RANK];
    MPI_Dist_graph_neighbors(comm, nin, src, weighted ? sw : MPI_UNWEIGHTED, nout, dst,
                             weighted ? dw : MPI_UNWEIGHTED);
    edge_t gin[EDGES_PER_RANK * 64], gout[EDGES_PER_RANK];
    for (int i = 0; i < nin; i++)
        gin[i] = (edge_t){src[i], weighted ? sw[i] : 0};
    for (int i = 0; i < nout; i++)
        gout[i] = (edge_t){dst[i], weighted ? dw[i] : 0};
    if (!weighted) {
        for (int i = 0; i < nin; i++)
            ein[i].weight = 0;
        for (int i = 0; i < nout; i++)
            eout[i].weight = 0;
    }
    qsort(ein, nin, sizeof(edge_t), by_edge);
    qsort(gin, nin, sizeof(edge_t), by_edge);
    qsort(eout, nout, sizeof(edge_t), by_edge);
    qsort(gout, nout, sizeof(edge_t), by_edge);
    for (int i = 0; i < nin; i++) {
        MTEST_CHECK_INT(errs, ein[i].peer, gin[i].peer, "%s: sorted source %d", what, i);
        MTEST_CHECK_INT(errs, ein[i].weight, gin[i].weight, "%s: sorted source weight %d", what, i);
    }
    for (int i = 0; i < nout; i++) {
        MTEST_CHECK_INT(errs, eout[i].peer, gout[i].peer, "%s: sorted destination %d", what, i);
        MTEST_CHECK_INT(errs, eout[i].weight, gout[i].weight, "%s: sorted destination weight %d",
                        what, i);
    }
    return errs;
}

/* Dist_graph_create where rank `giver(r)` gives rank r's out-edges. */
static int check_general(int mode, int weighted, const char *what)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    int *sources = malloc(sizeof(int) * n), *degrees = malloc(sizeof(int) * n);
    int *dests = malloc(sizeof(int) * n * EDGES_PER_RANK);
    int *weights = malloc(sizeof(int) * n * EDGES_PER_RANK);
    int ns = 0, ne = 0;
    for (int r = 0; r < n; r++) {
        int giver = mode == 0 ? r : mode == 1 ? 0 : (r + 1) % n;
        if (giver != me)
            continue;
        sources[ns] = r;
        degrees[ns++] = EDGES_PER_RANK;
        for (int k = 0; k < EDGES_PER_RANK; k++, ne++)
            edge_of(n, r, k, &dests[ne], &weights[ne]);
    }
    const int *w = weights;
    if (!weighted)
        w = MPI_UNWEIGHTED;
    else if (ne == 0)
        w = MPI_WEIGHTS_EMPTY; /* MPI-3.0: the weights of no edge */
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Dist_graph_create(MPI_COMM_WORLD, ns, sources, degrees, dests, w, MPI_INFO_NULL, 0, &comm);
    if (comm == MPI_COMM_NULL)
        MTEST_FAIL(errs, "%s: MPI_COMM_NULL", what);
    else {
        int size = -1, rank = -1;
        MPI_Comm_size(comm, &size);
        MPI_Comm_rank(comm, &rank);
        MTEST_CHECK_INT(errs, n, size, "%s: size", what);
        MTEST_CHECK_INT(errs, me, rank, "%s: rank", what);
        errs += check_dist(comm, weighted, what);
        MPI_Comm d;
        MPI_Comm_dup(comm, &d);
        char wd[160];
        snprintf(wd, sizeof wd, "%s, Comm_dup", what);
        errs += check_dist(d, weighted, wd);
        MPI_Comm_free(&d);
        MPI_Comm_free(&comm);
    }
    free(sources);
    free(degrees);
    free(dests);
    free(weights);
    return errs;
}

static int check_adjacent(int weighted)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    const char *what = weighted ? "adjacent, weighted" : "adjacent, MPI_UNWEIGHTED";
    int src[EDGES_PER_RANK * 64], sw[EDGES_PER_RANK * 64], dst[EDGES_PER_RANK], dw[EDGES_PER_RANK],
        nin = 0;
    for (int r = n - 1; r >= 0; r--) /* the sources in an order of the caller's choosing */
        for (int k = 0; k < EDGES_PER_RANK; k++) {
            int d, w;
            edge_of(n, r, k, &d, &w);
            if (d == me) {
                src[nin] = r;
                sw[nin++] = w;
            }
        }
    for (int k = 0; k < EDGES_PER_RANK; k++)
        edge_of(n, me, k, &dst[k], &dw[k]);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, weighted ? sw : MPI_UNWEIGHTED,
                                   EDGES_PER_RANK, dst, weighted ? dw : MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &comm);
    if (comm == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "%s: MPI_COMM_NULL", what);
        return errs;
    }
    errs += check_dist(comm, weighted, what);
    /* The adjacent form keeps the lists as given, in order. */
    int gs[EDGES_PER_RANK * 64], gsw[EDGES_PER_RANK * 64], gd[EDGES_PER_RANK], gdw[EDGES_PER_RANK];
    MPI_Dist_graph_neighbors(comm, nin, gs, gsw, EDGES_PER_RANK, gd, gdw);
    for (int i = 0; i < nin; i++) {
        MTEST_CHECK_INT(errs, src[i], gs[i], "%s: sources[%d]", what, i);
        if (weighted)
            MTEST_CHECK_INT(errs, sw[i], gsw[i], "%s: sourceweights[%d]", what, i);
    }
    for (int i = 0; i < EDGES_PER_RANK; i++) {
        MTEST_CHECK_INT(errs, dst[i], gd[i], "%s: destinations[%d]", what, i);
        if (weighted)
            MTEST_CHECK_INT(errs, dw[i], gdw[i], "%s: destweights[%d]", what, i);
    }
    MPI_Comm_free(&comm);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);

    errs += check_graph(mtest_size);
    if (mtest_size > 2)
        errs += check_graph(mtest_size - 1);
    errs += check_graph(1);
    MPI_Comm empty = MPI_COMM_WORLD;
    MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &empty);
    if (empty != MPI_COMM_NULL)
        MTEST_FAIL(errs, "an empty graph gave a communicator");

    errs += check_adjacent(1);
    errs += check_adjacent(0);
    static const char *modes[] = {"by the source", "by rank 0", "by the next rank"};
    for (int mode = 0; mode < 3; mode++)
        for (int weighted = 1; weighted >= 0; weighted--) {
            char what[128];
            snprintf(what, sizeof what, "Dist_graph_create, edges given %s, %s", modes[mode],
                     weighted ? "weighted" : "MPI_UNWEIGHTED");
            errs += check_general(mode, weighted, what);
        }
    return MTest_Finalize(errs);
}
