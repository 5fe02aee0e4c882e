/* neighbor_coll.c: the neighbourhood collectives.  Every one (allgather, allgatherv, alltoall,
 * alltoallv, alltoallw) in its blocking, nonblocking (Ineighbor_*) and persistent
 * (Neighbor_*_init, started twice with new data) forms, on:
 *   Cartesian grids: periodic and not (MPI_PROC_NULL neighbours keep their untouched slots),
 *     with periodic dimensions of size 1 and 2 (the same process is the -1 and the +1
 *     neighbour: the block sent to the -1 neighbour must land in its +1 slot), and a grid
 *     leaving a rank out;
 *   a graph with a repeated edge and self-loops;
 *   distributed graphs (adjacent with repeated edges and self-edges, and the general form).
 * Each element received is checked against the sender, the sender's block and the element's
 * index; gaps between blocks (the v forms' displacements) keep their fill value.  A repeated
 * edge pairs the k-th message from a process with the k-th slot of that process. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define MAXDEG 16
#define CNT 3     /* elements per block in the fixed-count forms */
#define STRIDE 8  /* ints reserved per block */
#define FILL (-1) /* untouched receive memory */

typedef enum { OP_ALLGATHER, OP_ALLGATHERV, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW, NOPS } op_t;
static const char *op_name[] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
typedef enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_PERSISTENT, NFORMS } form_t;
static const char *form_name[] = {"blocking", "nonblocking", "persistent"};

/* Every process's neighbour lists, gathered so the expected data can be worked out. */
typedef struct {
    int is_cart;
    int indeg[64], outdeg[64];
    int in[64][MAXDEG], out[64][MAXDEG];
} lists_t;

static int value(int sender, int block, int j, int round)
{
    return 1 + j + 10 * block + 1000 * sender + 100000 * round;
}

/* The elements sender puts in its block b in the v forms. */
static int vcount(int sender, int b)
{
    return 1 + (sender + b) % 3;
}

/* The block of the sender of my slot k that lands there, or -1 (MPI_PROC_NULL). */
static int matched_block(const lists_t *L, int me, int k)
{
    int src = L->in[me][k];
    if (src == MPI_PROC_NULL)
        return -1;
    if (L->is_cart)
        return k ^ 1; /* the -1 slot of a dimension holds what went to the +1 side */
    int occ = 0;
    for (int i = 0; i < k; i++)
        occ += L->in[me][i] == src;
    for (int b = 0; b < L->outdeg[src]; b++)
        if (L->out[src][b] == me && occ-- == 0)
            return b;
    return -2; /* inconsistent lists: reported by the caller */
}

static int my_lists(MPI_Comm comm, int *indeg, int *in, int *outdeg, int *out)
{
    int status;
    MPI_Topo_test(comm, &status);
    if (status == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(comm, d, 1, &in[2 * d], &in[2 * d + 1]);
        *indeg = *outdeg = 2 * nd;
        memcpy(out, in, sizeof(int) * 2 * nd);
    } else if (status == MPI_GRAPH) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        MPI_Graph_neighbors_count(comm, rank, indeg);
        MPI_Graph_neighbors(comm, rank, MAXDEG, in);
        *outdeg = *indeg;
        memcpy(out, in, sizeof(int) * *indeg);
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
        MPI_Dist_graph_neighbors(comm, MAXDEG, in, MPI_UNWEIGHTED, MAXDEG, out, MPI_UNWEIGHTED);
    }
    return status == MPI_CART;
}

static void gather_lists(MPI_Comm comm, lists_t *L)
{
    int mine[2 + 2 * MAXDEG] = {0}, *all, size;
    MPI_Comm_size(comm, &size);
    L->is_cart = my_lists(comm, &mine[0], mine + 2, &mine[1], mine + 2 + MAXDEG);
    all = malloc(sizeof(mine) * size);
    MPI_Allgather(mine, 2 + 2 * MAXDEG, MPI_INT, all, 2 + 2 * MAXDEG, MPI_INT, comm);
    for (int r = 0; r < size; r++) {
        int *p = all + r * (2 + 2 * MAXDEG);
        L->indeg[r] = p[0];
        L->outdeg[r] = p[1];
        memcpy(L->in[r], p + 2, sizeof(int) * MAXDEG);
        memcpy(L->out[r], p + 2 + MAXDEG, sizeof(int) * MAXDEG);
    }
    free(all);
}

/* The buffers and arguments of one call. */
typedef struct {
    int send[MAXDEG * STRIDE], recv[MAXDEG * STRIDE];
    int scounts[MAXDEG], sdispls[MAXDEG], rcounts[MAXDEG], rdispls[MAXDEG];
    MPI_Aint sdw[MAXDEG], rdw[MAXDEG];
    MPI_Datatype stypes[MAXDEG], rtypes[MAXDEG];
} bufs_t;

static MPI_Datatype strided; /* CNT ints, every other one (alltoallw) */

/* Fills the send side for round and sets up every argument array. */
static void prepare(op_t op, const lists_t *L, int me, int round, bufs_t *B)
{
    int outdeg = L->outdeg[me], indeg = L->indeg[me];
    for (int i = 0; i < MAXDEG * STRIDE; i++)
        B->send[i] = -3, B->recv[i] = FILL;
    switch (op) {
    case OP_ALLGATHER:
        for (int j = 0; j < CNT; j++)
            B->send[j] = value(me, 0, j, round);
        break;
    case OP_ALLGATHERV:
        for (int j = 0; j < vcount(me, 0); j++)
            B->send[j] = value(me, 0, j, round);
        for (int k = 0; k < indeg; k++) {
            int src = L->in[me][k];
            B->rcounts[k] = src == MPI_PROC_NULL ? 2 : vcount(src, 0);
            B->rdispls[k] = STRIDE * (indeg - 1 - k) + 1; /* blocks in reverse, after a gap */
        }
        break;
    case OP_ALLTOALL:
        for (int b = 0; b < outdeg; b++)
            for (int j = 0; j < CNT; j++)
                B->send[b * CNT + j] = value(me, b, j, round);
        break;
    case OP_ALLTOALLV:
        for (int b = 0; b < outdeg; b++) {
            B->scounts[b] = vcount(me, b);
            B->sdispls[b] = STRIDE * b + 2;
            for (int j = 0; j < B->scounts[b]; j++)
                B->send[B->sdispls[b] + j] = value(me, b, j, round);
        }
        for (int k = 0; k < indeg; k++) {
            int mb = matched_block(L, me, k);
            B->rcounts[k] = mb < 0 ? 1 : vcount(L->in[me][k], mb);
            B->rdispls[k] = STRIDE * (indeg - 1 - k) + 1;
        }
        break;
    case OP_ALLTOALLW:
        /* Even blocks sent strided, odd ones contiguous; received the other way round. */
        for (int b = 0; b < outdeg; b++) {
            B->sdw[b] = sizeof(int) * STRIDE * b;
            B->stypes[b] = b % 2 ? MPI_INT : strided;
            B->scounts[b] = b % 2 ? CNT : 1;
            for (int j = 0; j < CNT; j++)
                B->send[STRIDE * b + (b % 2 ? j : 2 * j)] = value(me, b, j, round);
        }
        for (int k = 0; k < indeg; k++) {
            B->rdw[k] = sizeof(int) * STRIDE * (indeg - 1 - k);
            B->rtypes[k] = k % 2 ? strided : MPI_INT;
            B->rcounts[k] = k % 2 ? 1 : CNT;
        }
        break;
    case NOPS:
        break;
    }
}

static int start(op_t op, form_t form, bufs_t *B, const lists_t *L, int me, MPI_Comm comm,
                 MPI_Request *req)
{
    (void)L;
    (void)me;
    MPI_Info info = MPI_INFO_NULL;
    switch (op) {
    case OP_ALLGATHER:
        if (form == FORM_BLOCKING)
            return MPI_Neighbor_allgather(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm);
        if (form == FORM_NONBLOCKING)
            return MPI_Ineighbor_allgather(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm, req);
#if MPI_VERSION >= 4
        return MPI_Neighbor_allgather_init(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm, info,
                                           req);
#else
        return MPI_ERR_OTHER; /* not reached: no persistent form before MPI 4 */
#endif
    case OP_ALLGATHERV: {
        int sc = vcount(me, 0);
        if (form == FORM_BLOCKING)
            return MPI_Neighbor_allgatherv(B->send, sc, MPI_INT, B->recv, B->rcounts, B->rdispls,
                                           MPI_INT, comm);
        if (form == FORM_NONBLOCKING)
            return MPI_Ineighbor_allgatherv(B->send, sc, MPI_INT, B->recv, B->rcounts, B->rdispls,
                                            MPI_INT, comm, req);
#if MPI_VERSION >= 4
        return MPI_Neighbor_allgatherv_init(B->send, sc, MPI_INT, B->recv, B->rcounts, B->rdispls,
                                            MPI_INT, comm, info, req);
#else
        return MPI_ERR_OTHER; /* not reached: no persistent form before MPI 4 */
#endif
    }
    case OP_ALLTOALL:
        if (form == FORM_BLOCKING)
            return MPI_Neighbor_alltoall(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm);
        if (form == FORM_NONBLOCKING)
            return MPI_Ineighbor_alltoall(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm, req);
#if MPI_VERSION >= 4
        return MPI_Neighbor_alltoall_init(B->send, CNT, MPI_INT, B->recv, CNT, MPI_INT, comm, info,
                                          req);
#else
        return MPI_ERR_OTHER; /* not reached: no persistent form before MPI 4 */
#endif
    case OP_ALLTOALLV:
        if (form == FORM_BLOCKING)
            return MPI_Neighbor_alltoallv(B->send, B->scounts, B->sdispls, MPI_INT, B->recv,
                                          B->rcounts, B->rdispls, MPI_INT, comm);
        if (form == FORM_NONBLOCKING)
            return MPI_Ineighbor_alltoallv(B->send, B->scounts, B->sdispls, MPI_INT, B->recv,
                                           B->rcounts, B->rdispls, MPI_INT, comm, req);
#if MPI_VERSION >= 4
        return MPI_Neighbor_alltoallv_init(B->send, B->scounts, B->sdispls, MPI_INT, B->recv,
                                           B->rcounts, B->rdispls, MPI_INT, comm, info, req);
#else
        return MPI_ERR_OTHER; /* not reached: no persistent form before MPI 4 */
#endif
    case OP_ALLTOALLW:
        if (form == FORM_BLOCKING)
            return MPI_Neighbor_alltoallw(B->send, B->scounts, B->sdw, B->stypes, B->recv,
                                          B->rcounts, B->rdw, B->rtypes, comm);
        if (form == FORM_NONBLOCKING)
            return MPI_Ineighbor_alltoallw(B->send, B->scounts, B->sdw, B->stypes, B->recv,
                                           B->rcounts, B->rdw, B->rtypes, comm, req);
#if MPI_VERSION >= 4
        return MPI_Neighbor_alltoallw_init(B->send, B->scounts, B->sdw, B->stypes, B->recv,
                                           B->rcounts, B->rdw, B->rtypes, comm, info, req);
#else
        return MPI_ERR_OTHER; /* not reached: no persistent form before MPI 4 */
#endif
    case NOPS:
        break;
    }
    return MPI_ERR_OTHER;
}

/* Whether some process has a neighbour twice (a pairing rule decides which block goes where). */
static int has_duplicates(const lists_t *L, int size)
{
    for (int r = 0; r < size; r++)
        for (int i = 0; i < L->indeg[r]; i++)
            for (int j = 0; j < i; j++)
                if (L->in[r][i] == L->in[r][j] && L->in[r][i] != MPI_PROC_NULL)
                    return 1;
    return 0;
}

/* MPICH before 5.0 pairs repeated neighbours otherwise than MPI-4.1 sec. 8.6 (Cartesian
 * periodic dimensions of size 1 and 2: pmodels/mpich#2194, #5777; repeated graph edges in the
 * nonblocking and persistent forms: pmodels/mpich#7945): there such mismatches are a note. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 50000000
static const int lenient_impl = 1;
#else
static const int lenient_impl = 0;
#endif
/* Open MPI's nonblocking neighbourhood collectives (coll/libnbc) pair them otherwise too, up to
 * a truncation error (open-mpi/ompi#14416, after 5.0): those runs are skipped there. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 6
static const int skip_nonblocking_dups = 1;
#else
static const int skip_nonblocking_dups = 0;
#endif

/* Checks the receive buffer after round (quiet: counts the mismatches without reporting). */
static int check(op_t op, const lists_t *L, int me, int round, const bufs_t *B, const char *what,
                 int quiet)
{
    int errs = 0, indeg = L->indeg[me], expect[MAXDEG * STRIDE];
    for (int i = 0; i < MAXDEG * STRIDE; i++)
        expect[i] = FILL;
    for (int k = 0; k < indeg; k++) {
        int src = L->in[me][k], mb = matched_block(L, me, k);
        if (mb == -2) {
            MTEST_FAIL(errs, "%s: the lists do not pair slot %d (from %d)", what, k, src);
            continue;
        }
        if (src == MPI_PROC_NULL)
            continue;
        switch (op) {
        case OP_ALLGATHER:
            for (int j = 0; j < CNT; j++)
                expect[k * CNT + j] = value(src, 0, j, round);
            break;
        case OP_ALLGATHERV:
            for (int j = 0; j < vcount(src, 0); j++)
                expect[B->rdispls[k] + j] = value(src, 0, j, round);
            break;
        case OP_ALLTOALL:
            for (int j = 0; j < CNT; j++)
                expect[k * CNT + j] = value(src, mb, j, round);
            break;
        case OP_ALLTOALLV:
            for (int j = 0; j < vcount(src, mb); j++)
                expect[B->rdispls[k] + j] = value(src, mb, j, round);
            break;
        case OP_ALLTOALLW:
            for (int j = 0; j < CNT; j++)
                expect[STRIDE * (indeg - 1 - k) + (k % 2 ? 2 * j : j)] = value(src, mb, j, round);
            break;
        case NOPS:
            break;
        }
    }
    for (int i = 0; i < MAXDEG * STRIDE; i++)
        if (expect[i] != B->recv[i] && quiet)
            errs++;
        else if (expect[i] != B->recv[i]) {
            MTEST_FAIL(errs, "%s: recv[%d]: expected %d, saw %d", what, i, expect[i], B->recv[i]);
            if (errs > 8)
                break;
        }
    return errs;
}

static int run_all(MPI_Comm comm, const char *topo)
{
    int errs = 0, me, size;
    lists_t *L = calloc(1, sizeof(*L));
    bufs_t *B = calloc(1, sizeof(*B));
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    gather_lists(comm, L);
    int lenient = lenient_impl && has_duplicates(L, size);
    for (op_t op = 0; op < NOPS; op++)
        for (form_t form = 0; form < NFORMS; form++) {
            char what[200];
            MPI_Request req = MPI_REQUEST_NULL;
            int rounds = form == FORM_PERSISTENT ? 2 : 1;
            if (skip_nonblocking_dups && form != FORM_BLOCKING && has_duplicates(L, size)) {
                if (me == 0)
                    printf("note: %s: %s %s skipped (Open MPI's pairing)\n", topo, form_name[form],
                           op_name[op]);
                continue;
            }
#if MPI_VERSION < 4
            if (form == FORM_PERSISTENT) /* MPI-4.0 (Open MPI 4.1 has MPI 3.1) */
                continue;
#endif
            for (int round = 0; round < rounds; round++) {
                snprintf(what, sizeof what, "%s: %s %s round %d", topo, form_name[form],
                         op_name[op], round);
                prepare(op, L, me, round, B);
                int rc = MPI_SUCCESS;
                if (form != FORM_PERSISTENT || round == 0)
                    rc = start(op, form, B, L, me, comm, &req);
                MTEST_CHECK_RC(errs, rc, "%s", what);
                if (form == FORM_PERSISTENT)
                    MPI_Start(&req);
                if (form != FORM_BLOCKING)
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                int bad = check(op, L, me, round, B, what, lenient);
                if (lenient && bad)
                    printf("note: %s: %d elements paired otherwise (MPICH before 5.0)\n", what,
                           bad);
                else
                    errs += bad;
            }
            if (form == FORM_PERSISTENT)
                MPI_Request_free(&req);
        }
    free(L);
    free(B);
    return errs;
}

static int run_cart(int ndims, const int *dims, const int *periods)
{
    int errs = 0, n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    if (n > mtest_size)
        return 0;
    char what[128];
    int len = snprintf(what, sizeof what, "cart [");
    for (int i = 0; i < ndims; i++)
        len += snprintf(what + len, sizeof what - len, "%s%d%s", i ? " " : "", dims[i],
                        periods[i] ? "p" : "");
    snprintf(what + len, sizeof what - len, "]");
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
    if (cart == MPI_COMM_NULL)
        return 0;
    errs += run_all(cart, what);
    MPI_Comm_free(&cart);
    return errs;
}

/* Node i of the graph: a ring both ways, a double edge between 2m and 2m+1, a self-loop at
 * every third node.  Symmetric, as neighbourhood collectives on a graph need. */
static int graph_nbrs(int n, int i, int *out)
{
    int k = 0;
    out[k++] = (i + 1) % n;
    out[k++] = (i - 1 + n) % n;
    if (i % 2 == 0 && i + 1 < n)
        out[k++] = i + 1;
    if (i % 2 == 1)
        out[k++] = i - 1;
    if (i % 3 == 0)
        out[k++] = i;
    return k;
}

static int run_graph(void)
{
    int n = mtest_size, *index = malloc(sizeof(int) * n), *edges = malloc(sizeof(int) * 8 * n);
    int ne = 0, errs = 0;
    for (int i = 0; i < n; i++) {
        ne += graph_nbrs(n, i, edges + ne);
        index[i] = ne;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
    errs += run_all(g, "graph");
    MPI_Comm_free(&g);
    free(index);
    free(edges);
    return errs;
}

/* Directed: rank r sends to r+1 twice, to itself, and to r+2. */
#define DOUT 4
static int dist_dest(int n, int r, int k)
{
    static const int step[DOUT] = {1, 1, 0, 2};
    return (r + step[k]) % n;
}

static int run_dist(int general)
{
    int n = mtest_size, me = mtest_rank, errs = 0;
    int in[MAXDEG], out[DOUT], nin = 0;
    for (int r = 0; r < n; r++) /* sources listed by rank, each edge once */
        for (int k = 0; k < DOUT; k++)
            if (dist_dest(n, r, k) == me)
                in[nin++] = r;
    for (int k = 0; k < DOUT; k++)
        out[k] = dist_dest(n, me, k);
    MPI_Comm comm;
    if (general) {
        /* Each rank gives the out-edges of the next rank. */
        int src = (me + 1) % n, deg = DOUT, d[DOUT];
        for (int k = 0; k < DOUT; k++)
            d[k] = dist_dest(n, src, k);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, d, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                              &comm);
    } else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, DOUT, out,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
    errs += run_all(comm, general ? "dist graph (general)" : "dist graph (adjacent)");
    MPI_Comm_free(&comm);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, n;
    MTest_Init(&argc, &argv);
    n = mtest_size;
    MPI_Type_vector(CNT, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);

    int d1[1] = {n}, p0[3] = {0, 0, 0}, p1[3] = {1, 1, 1};
    errs += run_cart(1, d1, p1);
    errs += run_cart(1, d1, p0);
    int d2[2] = {0, 0}, p10[2] = {1, 0};
    MPI_Dims_create(n, 2, d2);
    errs += run_cart(2, d2, p10);
    /* Periodic dimensions of size 1 and 2: one process is both neighbours. */
    int one[2] = {1, n}, two[2] = {2, n / 2}, self[3] = {1, 1, 1};
    errs += run_cart(2, one, p10);
    if (n % 2 == 0)
        errs += run_cart(2, two, p1);
    errs += run_cart(3, self, p1);
    if (n > 1) { /* a rank left out */
        int d[1] = {n - 1};
        errs += run_cart(1, d, p1);
    }
    errs += run_graph();
    errs += run_dist(0);
    errs += run_dist(1);

    /* A neighbour's slots in a Cartesian alltoall, spelled out: in a periodic dimension of
     * size 2, the block sent to the -1 neighbour arrives in its +1 slot. */
    if (n >= 2) {
        int d[1] = {2}, p[1] = {1};
        MPI_Comm c;
        MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &c);
        if (c != MPI_COMM_NULL) {
            int sb[2] = {10 * mtest_rank + 0, 10 * mtest_rank + 1}, rb[2] = {-1, -1};
            int other = 1 - mtest_rank;
            MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
            if (lenient_impl && rb[0] == 10 * other && rb[1] == 10 * other + 1)
                printf("note: size-2 ring: the slots swapped (MPICH before 5.0)\n");
            else {
                MTEST_CHECK_INT(errs, 10 * other + 1, rb[0], "size-2 ring: the -1 slot");
                MTEST_CHECK_INT(errs, 10 * other + 0, rb[1], "size-2 ring: the +1 slot");
            }
            MPI_Comm_free(&c);
        }
    }
    MPI_Type_free(&strided);
    return MTest_Finalize(errs);
}
