/* topo.c: process topologies (Cartesian, graph, distributed graph): their constructors, their
 * queries, MPI_Topo_test, and the neighbour lists the neighbourhood collectives follow
 * (mpi/coll_neighbor.c).
 *
 * reorder is ignored: a process keeps its rank in the new communicator, which holds the first
 * ranks of the old one (all of them for a distributed graph).  That is what MPI_Cart_map and
 * MPI_Graph_map answer too. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* What MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point at (mpi.h). */
int MPIR_weights_markers[2];

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "Cartesian";
    case MPI_GRAPH:
        return "graph";
    case MPI_DIST_GRAPH:
        return "distributed graph";
    }
    return "any";
}

/* A topology with room for nints ints of arrays in data (NULL when out of memory). */
static MPIR_Topo *topo_alloc(int kind, size_t nints)
{
    MPIR_Topo *t = calloc(1, sizeof(*t) + sizeof(int) * (nints ? nints : 1));
    if (t) {
        t->kind = kind;
        t->nints = nints;
    }
    return t;
}

static int *rebase(int *p, const MPIR_Topo *from, MPIR_Topo *to)
{
    return p ? to->data + (p - from->data) : NULL;
}

MPIR_Topo *MPIR_Topo_dup(const MPIR_Topo *t)
{
    MPIR_Topo *n = malloc(sizeof(*t) + sizeof(int) * (t->nints ? t->nints : 1));
    if (!n)
        return NULL;
    memcpy(n, t, sizeof(*t) + sizeof(int) * t->nints);
    n->cart.dims = rebase(t->cart.dims, t, n);
    n->cart.periods = rebase(t->cart.periods, t, n);
    n->cart.coords = rebase(t->cart.coords, t, n);
    n->graph.index = rebase(t->graph.index, t, n);
    n->graph.edges = rebase(t->graph.edges, t, n);
    n->dist.sweights = rebase(t->dist.sweights, t, n);
    n->dist.dweights = rebase(t->dist.dweights, t, n);
    n->in = rebase(t->in, t, n);
    n->out = rebase(t->out, t, n);
    return n;
}

/* comm's topology, which must be of kind (0: any); MPI_ERR_TOPOLOGY names what it has. */
static int get_topo(MPI_Comm comm, int kind, MPIR_Comm **c_p, MPIR_Topo **t_p)
{
    int err = MPIR_Check_comm(comm, c_p);
    if (err)
        return err;
    MPIR_Topo *t = (*c_p)->topo;
    if (!t)
        return MPIR_Err_create(MPI_ERR_TOPOLOGY, "the communicator has no topology (%s needed)",
                               kind_name(kind));
    if (kind && t->kind != kind)
        return MPIR_Err_create(MPI_ERR_TOPOLOGY, "the communicator has a %s topology, not a %s one",
                               kind_name(t->kind), kind_name(kind));
    *t_p = t;
    return MPI_SUCCESS;
}

/* The checks every constructor begins with. */
static int check_old(MPI_Comm comm, MPIR_Comm **c_p, const void *newcomm)
{
    int err = MPIR_Check_comm(comm, c_p);
    if (!err && (*c_p)->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "a topology needs an intracommunicator");
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "the new communicator's pointer is NULL");
    return err;
}

/* The new communicator of a topology constructor: c's members of color, ordered by key (the
 * callers make each key the member's new rank), with c's error handler (MPI-4.1 sec. 9.3) and
 * topology t, owned from now on (also on failure; NULL where color is MPI_UNDEFINED).
 * Collective over c. */
static int topo_split(MPIR_Comm *c, int color, int key, MPIR_Topo *t, MPIR_Comm **newcomm_p)
{
    MPIR_Comm *n = NULL;
    int err = MPIR_Comm_split_impl(c, color, key, &n);
    *newcomm_p = n;
    if (err || !n) {
        free(t);
        return err;
    }
    n->topo = t;
    MPIR_Comm_inherit_errhandler(n, c);
    return MPI_SUCCESS;
}

/* The end of a constructor: on error n (if any) goes and the error goes to c's handler;
 * otherwise *newcomm is n (MPI_COMM_NULL where this process is not in it). */
static int topo_finish(MPIR_Comm *c, const char *fname, int err, MPIR_Comm *n, MPI_Comm *newcomm)
{
    if (err) {
        if (n)
            MPIR_Comm_release(n);
        return MPIR_Err_return(c, fname, err);
    }
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---- Cartesian ---- */

/* The rank at coords; a coordinate outside a non-periodic dimension is MPI_ERR_ARG. */
static int cart_rank(const MPIR_Topo *t, const int *coords, int *rank_p)
{
    int rank = 0;
    for (int i = 0; i < t->cart.ndims; i++) {
        int n = t->cart.dims[i], x = coords[i];
        if (t->cart.periods[i])
            x = ((x % n) + n) % n;
        else if (x < 0 || x >= n)
            return MPIR_Err_create(MPI_ERR_ARG,
                                   "coords[%d] = %d is outside the non-periodic dimension of "
                                   "size %d",
                                   i, x, n);
        rank = rank * n + x;
    }
    *rank_p = rank;
    return MPI_SUCCESS;
}

static void cart_coords(const MPIR_Topo *t, int rank, int *coords)
{
    for (int i = t->cart.ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->cart.dims[i];
        rank /= t->cart.dims[i];
    }
}

/* The ranks disp steps back and forward along dim; MPI_PROC_NULL off a non-periodic edge. */
static void cart_shift(const MPIR_Topo *t, int dim, int disp, int *src, int *dst)
{
    int n = t->cart.dims[dim], x = t->cart.coords[dim], pos[t->cart.ndims], *out[2] = {src, dst};
    memcpy(pos, t->cart.coords, sizeof(pos));
    for (int k = 0; k < 2; k++) {
        long y = (long)x + (k ? (long)disp : -(long)disp); /* disp may be any int */
        if (!t->cart.periods[dim] && (y < 0 || y >= n)) {
            *out[k] = MPI_PROC_NULL;
            continue;
        }
        pos[dim] = (int)(((y % n) + n) % n);
        cart_rank(t, pos, out[k]);
    }
}

/* The grid's size, with each dimension checked: MPI_ERR_DIMS for one not positive,
 * MPI_ERR_ARG for a product beyond size. */
static int check_grid(int ndims, const int *dims, const int *periods, int size, int *nnodes_p)
{
    if (ndims < 0)
        return MPIR_Err_create(MPI_ERR_ARG, "Invalid ndims %d (must be >= 0)", ndims);
    if (ndims > 0 && (!dims || !periods))
        return MPIR_Err_create(MPI_ERR_ARG, "dims or periods is NULL");
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return MPIR_Err_create(MPI_ERR_DIMS, "dims[%d] = %d (must be > 0)", i, dims[i]);
        if ((n *= dims[i]) > size)
            return MPIR_Err_create(
                MPI_ERR_ARG, "the grid needs more processes than the communicator's %d", size);
    }
    *nnodes_p = (int)n;
    return MPI_SUCCESS;
}

/* A Cartesian topology of ndims dimensions for the process at rank. */
static MPIR_Topo *cart_new(int ndims, const int *dims, const int *periods, int nnodes, int rank)
{
    MPIR_Topo *t = topo_alloc(MPI_CART, 5 * (size_t)ndims);
    if (!t)
        return NULL;
    t->cart.ndims = ndims;
    t->cart.nnodes = nnodes;
    t->cart.dims = t->data;
    t->cart.periods = t->data + ndims;
    t->cart.coords = t->data + 2 * ndims;
    for (int i = 0; i < ndims; i++) {
        t->cart.dims[i] = dims[i];
        t->cart.periods[i] = periods[i] != 0;
    }
    cart_coords(t, rank, t->cart.coords);
    /* For each dimension the -1 then the +1 neighbour, at displacement 1. */
    t->in = t->out = t->data + 3 * ndims;
    t->indegree = t->outdegree = 2 * ndims;
    for (int i = 0; i < ndims; i++)
        cart_shift(t, i, 1, &t->in[2 * i], &t->in[2 * i + 1]);
    return t;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    MPIR_CHECK_INIT("MPI_Cart_create");
    MPIR_Comm *c, *n = NULL;
    MPIR_Topo *t = NULL;
    int nnodes = 0;
    int err = check_old(comm_old, &c, comm_cart);
    if (!err)
        err = check_grid(ndims, dims, periods, c->size, &nnodes);
    /* A zero-dimensional grid has one process (MPI-4.1 sec. 8.5.1). */
    int member = !err && c->rank < nnodes;
    if (member && !(t = cart_new(ndims, dims, periods, nnodes, c->rank)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a Cartesian topology");
    /* Every member joins the split, also one that failed to allocate (the others wait). */
    if (!err || (member && !t)) {
        int e = topo_split(c, member ? 0 : MPI_UNDEFINED, c->rank, t, &n);
        err = err ? err : e;
    }
    (void)reorder;
    return topo_finish(c, "MPI_Cart_create", err, n, comm_cart);
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    MPIR_CHECK_INIT("MPI_Cart_coords");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && (rank < 0 || rank >= c->size))
        err =
            MPIR_Err_create(MPI_ERR_RANK, "Invalid rank %d (communicator size %d)", rank, c->size);
    if (!err && maxdims < t->cart.ndims)
        err = MPIR_Err_create(MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims,
                              t->cart.ndims);
    if (!err && t->cart.ndims > 0 && !coords)
        err = MPIR_Err_create(MPI_ERR_ARG, "coords is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Cart_coords", err);
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    MPIR_CHECK_INIT("MPI_Cart_rank");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && (!rank || (t->cart.ndims > 0 && !coords)))
        err = MPIR_Err_create(MPI_ERR_ARG, "coords or rank is NULL");
    if (!err)
        err = cart_rank(t, coords, rank);
    return MPIR_Err_return(c, "MPI_Cart_rank", err);
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    MPIR_CHECK_INIT("MPI_Cart_shift");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && (direction < 0 || direction >= t->cart.ndims))
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid direction %d (the grid has %d dimensions)",
                              direction, t->cart.ndims);
    if (!err && (!rank_source || !rank_dest))
        err = MPIR_Err_create(MPI_ERR_ARG, "rank_source or rank_dest is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Cart_shift", err);
    cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* The grid splits along the dimensions dropped: the members that share their coordinates
 * there form a subgrid of the dimensions kept, ranked in row-major order over them.  With none
 * kept, each process is a zero-dimensional grid of its own (MPI-4.1 sec. 8.5.7). */
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Cart_sub");
    MPIR_Comm *c, *n = NULL;
    MPIR_Topo *t = NULL, *sub = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && (!newcomm || (t->cart.ndims > 0 && !remain_dims)))
        err = MPIR_Err_create(MPI_ERR_ARG, "remain_dims or newcomm is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Cart_sub", err);
    int nd = 0, dims[t->cart.ndims + 1], periods[t->cart.ndims + 1], color = 0, key = 0, size = 1;
    for (int i = 0; i < t->cart.ndims; i++) {
        if (remain_dims[i]) {
            dims[nd] = t->cart.dims[i];
            periods[nd++] = t->cart.periods[i];
            key = key * t->cart.dims[i] + t->cart.coords[i];
            size *= t->cart.dims[i];
        } else
            color = color * t->cart.dims[i] + t->cart.coords[i];
    }
    if (!(sub = cart_new(nd, dims, periods, size, key)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a Cartesian topology");
    int e = topo_split(c, color, key, sub, &n);
    err = err ? err : e;
    return topo_finish(c, "MPI_Cart_sub", err, n, newcomm);
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    MPIR_CHECK_INIT("MPI_Cart_get");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && maxdims < t->cart.ndims)
        err = MPIR_Err_create(MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims,
                              t->cart.ndims);
    if (!err && t->cart.ndims > 0 && (!dims || !periods || !coords))
        err = MPIR_Err_create(MPI_ERR_ARG, "dims, periods or coords is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Cart_get", err);
    for (int i = 0; i < t->cart.ndims; i++) {
        dims[i] = t->cart.dims[i];
        periods[i] = t->cart.periods[i];
        coords[i] = t->cart.coords[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    MPIR_CHECK_INIT("MPI_Cartdim_get");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_CART, &c, &t);
    if (!err && !ndims)
        err = MPIR_Err_create(MPI_ERR_ARG, "ndims is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Cartdim_get", err);
    *ndims = t->cart.ndims;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    MPIR_CHECK_INIT("MPI_Cart_map");
    MPIR_Comm *c;
    int nnodes = 0;
    int err = check_old(comm, &c, newrank);
    if (!err)
        err = check_grid(ndims, dims, periods, c->size, &nnodes);
    if (err)
        return MPIR_Err_return(c, "MPI_Cart_map", err);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Graph ---- */

/* nnodes nodes, node i's neighbours at edges[index[i-1] .. index[i]) (index[-1] = 0). */
static int check_graph(int nnodes, const int *index, const int *edges, int size)
{
    if (nnodes < 0 || nnodes > size)
        return MPIR_Err_create(MPI_ERR_ARG, "Invalid nnodes %d (communicator size %d)", nnodes,
                               size);
    if (nnodes > 0 && !index)
        return MPIR_Err_create(MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return MPIR_Err_create(MPI_ERR_ARG, "index[%d] = %d is less than the one before", i,
                                   index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return MPIR_Err_create(MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < nedges; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return MPIR_Err_create(MPI_ERR_ARG, "edges[%d] = %d is not a node (0..%d)", j, edges[j],
                                   nnodes - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    MPIR_CHECK_INIT("MPI_Graph_create");
    MPIR_Comm *c, *n = NULL;
    MPIR_Topo *t = NULL;
    int err = check_old(comm_old, &c, comm_graph);
    if (!err)
        err = check_graph(nnodes, index, edges, c->size);
    if (err)
        return MPIR_Err_return(c, "MPI_Graph_create", err);
    /* An empty graph gives MPI_COMM_NULL everywhere (MPI-4.1 sec. 8.5.3). */
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int me = c->rank, member = me < nnodes, nedges = index[nnodes - 1];
    if (member && (t = topo_alloc(MPI_GRAPH, (size_t)nnodes + nedges))) {
        t->graph.nnodes = nnodes;
        t->graph.nedges = nedges;
        t->graph.index = t->data;
        t->graph.edges = t->data + nnodes;
        memcpy(t->graph.index, index, sizeof(int) * nnodes);
        memcpy(t->graph.edges, edges, sizeof(int) * nedges);
        int first = me ? index[me - 1] : 0;
        t->in = t->out = t->graph.edges + first;
        t->indegree = t->outdegree = index[me] - first;
    } else if (member)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a graph topology");
    int e = topo_split(c, member ? 0 : MPI_UNDEFINED, me, t, &n);
    err = err ? err : e;
    (void)reorder;
    return topo_finish(c, "MPI_Graph_create", err, n, comm_graph);
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    MPIR_CHECK_INIT("MPI_Graphdims_get");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_GRAPH, &c, &t);
    if (!err && (!nnodes || !nedges))
        err = MPIR_Err_create(MPI_ERR_ARG, "nnodes or nedges is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Graphdims_get", err);
    *nnodes = t->graph.nnodes;
    *nedges = t->graph.nedges;
    return MPI_SUCCESS;
}

/* The arrays' first maxindex and maxedges entries: the lengths the caller gave. */
#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    MPIR_CHECK_INIT("MPI_Graph_get");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_GRAPH, &c, &t);
    if (!err && (maxindex < 0 || maxedges < 0))
        err =
            MPIR_Err_create(MPI_ERR_ARG, "Invalid maxindex %d or maxedges %d", maxindex, maxedges);
    int ni = 0, ne = 0;
    if (!err) {
        ni = maxindex < t->graph.nnodes ? maxindex : t->graph.nnodes;
        ne = maxedges < t->graph.nedges ? maxedges : t->graph.nedges;
        if ((ni > 0 && !index) || (ne > 0 && !edges))
            err = MPIR_Err_create(MPI_ERR_ARG, "index or edges is NULL");
    }
    if (err)
        return MPIR_Err_return(c, "MPI_Graph_get", err);
    if (ni)
        memcpy(index, t->graph.index, sizeof(int) * ni);
    if (ne)
        memcpy(edges, t->graph.edges, sizeof(int) * ne);
    return MPI_SUCCESS;
}

static int graph_node(const MPIR_Comm *c, const MPIR_Topo *t, int rank, int *first, int *count)
{
    if (rank < 0 || rank >= t->graph.nnodes)
        return MPIR_Err_create(MPI_ERR_RANK, "Invalid rank %d (the graph has %d nodes)", rank,
                               t->graph.nnodes);
    *first = rank ? t->graph.index[rank - 1] : 0;
    *count = t->graph.index[rank] - *first;
    (void)c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    MPIR_CHECK_INIT("MPI_Graph_neighbors_count");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int first = 0, count = 0;
    int err = get_topo(comm, MPI_GRAPH, &c, &t);
    if (!err)
        err = graph_node(c, t, rank, &first, &count);
    if (!err && !nneighbors)
        err = MPIR_Err_create(MPI_ERR_ARG, "nneighbors is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Graph_neighbors_count", err);
    *nneighbors = count;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    MPIR_CHECK_INIT("MPI_Graph_neighbors");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int first = 0, count = 0;
    int err = get_topo(comm, MPI_GRAPH, &c, &t);
    if (!err)
        err = graph_node(c, t, rank, &first, &count);
    if (!err && maxneighbors < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid maxneighbors %d", maxneighbors);
    if (!err && maxneighbors < count)
        count = maxneighbors;
    if (!err && count > 0 && !neighbors)
        err = MPIR_Err_create(MPI_ERR_ARG, "neighbors is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Graph_neighbors", err);
    if (count)
        memcpy(neighbors, t->graph.edges + first, sizeof(int) * count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    MPIR_CHECK_INIT("MPI_Graph_map");
    MPIR_Comm *c;
    int err = check_old(comm, &c, newrank);
    if (!err)
        err = check_graph(nnodes, index, edges, c->size);
    if (err)
        return MPIR_Err_return(c, "MPI_Graph_map", err);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Distributed graph ---- */

/* A weights argument that holds no array: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (degree 0). */
static int no_weights(const int *w)
{
    return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY;
}

/* n ranks, each checked to be one of comm's; weights (when an array) not negative. */
static int check_edges(const char *what, int n, const int *ranks, const int *weights, int size)
{
    if (n < 0)
        return MPIR_Err_create(MPI_ERR_ARG, "Invalid %s degree %d", what, n);
    if (n > 0 && (!ranks || !weights))
        return MPIR_Err_create(MPI_ERR_ARG, "the %s ranks or weights are NULL", what);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= size)
            return MPIR_Err_create(MPI_ERR_RANK, "%s[%d] = %d is not a rank (size %d)", what, i,
                                   ranks[i], size);
        if (!no_weights(weights) && weights[i] < 0)
            return MPIR_Err_create(MPI_ERR_ARG, "%s weight %d is negative (%d)", what, i,
                                   weights[i]);
    }
    return MPI_SUCCESS;
}

/* A distributed graph topology with the given in- and out-edges; weights NULL: all 1. */
static MPIR_Topo *dist_new(int indegree, const int *sources, const int *sweights, int outdegree,
                           const int *dests, const int *dweights, int weighted)
{
    MPIR_Topo *t = topo_alloc(MPI_DIST_GRAPH, 2 * ((size_t)indegree + outdegree));
    if (!t)
        return NULL;
    t->dist.weighted = weighted;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->in = t->data;
    t->dist.sweights = t->in + indegree;
    t->out = t->dist.sweights + indegree;
    t->dist.dweights = t->out + outdegree;
    for (int i = 0; i < indegree; i++) {
        t->in[i] = sources[i];
        t->dist.sweights[i] = sweights ? sweights[i] : 1;
    }
    for (int i = 0; i < outdegree; i++) {
        t->out[i] = dests[i];
        t->dist.dweights[i] = dweights ? dweights[i] : 1;
    }
    return t;
}

/* The new communicator of a distributed graph: a duplicate of c (all its processes, ranks
 * kept) with topology t, owned from now on.  Collective over c. */
static int dist_comm(MPIR_Comm *c, MPIR_Topo *t, MPIR_Comm **newcomm_p)
{
    int err = MPIR_Comm_dup_impl(c, newcomm_p);
    if (err) {
        free(t);
        return err;
    }
    free((*newcomm_p)->topo); /* c's, copied by the duplicate */
    (*newcomm_p)->topo = t;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    MPIR_CHECK_INIT("MPI_Dist_graph_create_adjacent");
    MPIR_Comm *c, *n = NULL;
    MPIR_Topo *t = NULL;
    int err = check_old(comm_old, &c, comm_dist_graph);
    if (!err)
        err = MPIR_Check_info_or_null(info);
    if (!err)
        err = check_edges("sources", indegree, sources, sourceweights, c->size);
    if (!err)
        err = check_edges("destinations", outdegree, destinations, destweights, c->size);
    if (err)
        return MPIR_Err_return(c, "MPI_Dist_graph_create_adjacent", err);
    /* MPI_UNWEIGHTED on either side: the graph is unweighted (the standard has every process
     * give it for both or for neither). */
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (!(t = dist_new(indegree, sources, no_weights(sourceweights) ? NULL : sourceweights,
                       outdegree, destinations, no_weights(destweights) ? NULL : destweights,
                       weighted)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a distributed graph");
    /* Every process takes part in the duplicate, also one that failed above. */
    int e = dist_comm(c, t, &n);
    err = err ? err : e;
    (void)reorder;
    return topo_finish(c, "MPI_Dist_graph_create_adjacent", err, n, comm_dist_graph);
}

/* MPI_Dist_graph_create's exchange: each edge s -> d given anywhere becomes an out-edge of s
 * and an in-edge of d.  Its giver sends a record (kind, other end, weight) to each end: first
 * every process learns how many records each other one sends it (and whether that one gave
 * MPI_UNWEIGHTED), then the records go.  Each end files them in the givers' rank order, each
 * giver's in the order it gave them, so the k-th of several edges s -> d is the k-th at both
 * ends (a multigraph's edges pair up in order, as the collectives' messages match). */
enum { EDGE_IN, EDGE_OUT, EDGE_FIELDS = 3 };

static int exchange(MPIR_Comm *c, const int *sendbuf, const int *scounts, int *recvbuf,
                    const int *rcounts, int unit)
{
    MPIR_Sched_t *s;
    int err = MPIR_Sched_create(c, MPIR_COLL_BLOCKING, MPIR_TAG_ALLTOALL, &s);
    if (err)
        return err;
    MPI_Aint off = 0;
    for (int r = 0; r < c->size; r++) {
        MPIR_Sched_recv(s, recvbuf + off, (MPI_Aint)rcounts[r] * unit, MPI_INT, r);
        off += (MPI_Aint)rcounts[r] * unit;
    }
    off = 0;
    for (int r = 0; r < c->size; r++) {
        MPIR_Sched_send(s, sendbuf + off, (MPI_Aint)scounts[r] * unit, MPI_INT, r);
        off += (MPI_Aint)scounts[r] * unit;
    }
    return MPIR_Sched_finish(s, NULL);
}

/* The records for every edge given here, grouped by the process they go to. */
static int dist_records(MPIR_Comm *c, int n, const int *sources, const int *degrees,
                        const int *dests, const int *weights, int *nsend, int **recs_p)
{
    int size = c->size, total = 0;
    for (int i = 0; i < n; i++)
        total += degrees[i];
    int *recs = malloc(sizeof(int) * EDGE_FIELDS * 2 * (total ? total : 1));
    int *fill = calloc(size, sizeof(int));
    if (!recs || !fill) {
        free(recs);
        free(fill);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d edges", total);
    }
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            nsend[sources[i]]++;
            nsend[dests[k]]++;
        }
    for (int r = 1; r < size; r++)
        fill[r] = fill[r - 1] + nsend[r - 1];
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int w = no_weights(weights) ? 1 : weights[k];
            int *o = recs + EDGE_FIELDS * fill[sources[i]]++;
            o[0] = EDGE_OUT, o[1] = dests[k], o[2] = w;
            int *in = recs + EDGE_FIELDS * fill[dests[k]]++;
            in[0] = EDGE_IN, in[1] = sources[i], in[2] = w;
        }
    free(fill);
    *recs_p = recs;
    return MPI_SUCCESS;
}

static int dist_gather(MPIR_Comm *c, int n, const int *sources, const int *degrees,
                       const int *dests, const int *weights, MPIR_Topo **t_p)
{
    int size = c->size, *recs = NULL, *got = NULL, *lists = NULL, err;
    /* per process: records, then a flag of MPI_UNWEIGHTED given */
    int *scounts = calloc(2 * (size_t)size, sizeof(int));
    int *rcounts = calloc(2 * (size_t)size, sizeof(int));
    int *nsend = calloc(size, sizeof(int)), *nrecv = calloc(size, sizeof(int));
    if (!scounts || !rcounts || !nsend || !nrecv)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Dist_graph_create");
    else
        err = dist_records(c, n, sources, degrees, dests, weights, nsend, &recs);
    for (int r = 0; !err && r < size; r++) {
        scounts[2 * r] = nsend[r];
        scounts[2 * r + 1] = weights == MPI_UNWEIGHTED;
        nsend[r] = nrecv[r] = 2;
    }
    if (!err)
        err = exchange(c, scounts, nsend, rcounts, nrecv, 1);
    int nrec = 0, unweighted = 0;
    for (int r = 0; !err && r < size; r++) {
        nsend[r] = scounts[2 * r];
        nrecv[r] = rcounts[2 * r];
        nrec += nrecv[r];
        unweighted |= rcounts[2 * r + 1];
    }
    if (!err && !(got = malloc(sizeof(int) * EDGE_FIELDS * (nrec ? nrec : 1))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d edges", nrec);
    if (!err)
        err = exchange(c, recs, nsend, got, nrecv, EDGE_FIELDS);
    /* in-edges first, then out-edges, each list with its weights */
    int nin = 0, nout = 0;
    for (int i = 0; !err && i < nrec; i++)
        nin += got[EDGE_FIELDS * i] == EDGE_IN;
    nout = nrec - nin;
    if (!err && !(lists = malloc(sizeof(int) * 2 * (nrec ? nrec : 1))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d edges", nrec);
    if (!err) {
        int *src = lists, *sw = lists + nin, *dst = lists + 2 * nin, *dw = dst + nout, a = 0, b = 0;
        for (int i = 0; i < nrec; i++) {
            const int *g = got + EDGE_FIELDS * i;
            if (g[0] == EDGE_IN)
                src[a] = g[1], sw[a++] = g[2];
            else
                dst[b] = g[1], dw[b++] = g[2];
        }
        if (!(*t_p = dist_new(nin, src, sw, nout, dst, dw, !unweighted)))
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a distributed graph");
    }
    free(lists);
    free(got);
    free(recs);
    free(scounts);
    free(rcounts);
    free(nsend);
    free(nrecv);
    return err;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    MPIR_CHECK_INIT("MPI_Dist_graph_create");
    MPIR_Comm *c, *nc = NULL;
    MPIR_Topo *t = NULL;
    int err = check_old(comm_old, &c, comm_dist_graph);
    if (!err)
        err = MPIR_Check_info_or_null(info);
    if (!err && n < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid n %d (must be >= 0)", n);
    if (!err && n > 0 && (!sources || !degrees))
        err = MPIR_Err_create(MPI_ERR_ARG, "sources or degrees is NULL");
    int k = 0;
    for (int i = 0; !err && i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size)
            err = MPIR_Err_create(MPI_ERR_RANK, "sources[%d] = %d is not a rank (size %d)", i,
                                  sources[i], c->size);
        else if (degrees[i] < 0)
            err = MPIR_Err_create(MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
        else if (degrees[i] > INT_MAX / 2 - k)
            err = MPIR_Err_create(MPI_ERR_ARG, "too many edges");
        else
            k += degrees[i];
    }
    if (!err)
        err = check_edges("destinations", k, destinations, weights, c->size);
    if (err)
        return MPIR_Err_return(c, "MPI_Dist_graph_create", err);
    err = dist_gather(c, n, sources, degrees, destinations, weights, &t);
    if (!err)
        err = dist_comm(c, t, &nc);
    (void)reorder;
    return topo_finish(c, "MPI_Dist_graph_create", err, nc, comm_dist_graph);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    MPIR_CHECK_INIT("MPI_Dist_graph_neighbors_count");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_DIST_GRAPH, &c, &t);
    if (!err && (!indegree || !outdegree || !weighted))
        err = MPIR_Err_create(MPI_ERR_ARG, "indegree, outdegree or weighted is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Dist_graph_neighbors_count", err);
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->dist.weighted;
    return MPI_SUCCESS;
}

/* The first maxindegree and maxoutdegree neighbours (MPI-4.1 sec. 8.5.5: a shorter array gets
 * the first part of the list); the weights only of a weighted graph, into arrays given. */
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    MPIR_CHECK_INIT("MPI_Dist_graph_neighbors");
    MPIR_Comm *c;
    MPIR_Topo *t = NULL;
    int err = get_topo(comm, MPI_DIST_GRAPH, &c, &t);
    if (!err && (maxindegree < 0 || maxoutdegree < 0))
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid maxindegree %d or maxoutdegree %d", maxindegree,
                              maxoutdegree);
    int nin = 0, nout = 0;
    if (!err) {
        nin = maxindegree < t->indegree ? maxindegree : t->indegree;
        nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
        if ((nin > 0 && !sources) || (nout > 0 && !destinations))
            err = MPIR_Err_create(MPI_ERR_ARG, "sources or destinations is NULL");
    }
    if (err)
        return MPIR_Err_return(c, "MPI_Dist_graph_neighbors", err);
    for (int i = 0; i < nin; i++) {
        sources[i] = t->in[i];
        if (t->dist.weighted && sourceweights && !no_weights(sourceweights))
            sourceweights[i] = t->dist.sweights[i];
    }
    for (int i = 0; i < nout; i++) {
        destinations[i] = t->out[i];
        if (t->dist.weighted && destweights && !no_weights(destweights))
            destweights[i] = t->dist.dweights[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    MPIR_CHECK_INIT("MPI_Topo_test");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !status)
        err = MPIR_Err_create(MPI_ERR_ARG, "status is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Topo_test", err);
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
