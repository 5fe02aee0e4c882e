/* type_create.c: derived datatype objects: handles, references, the internal constructors and
 * how they compute size, bounds (with the standard's sticky markers), alignment and contents. */
#include <stdlib.h>
#include <string.h>
#include "datatype.h"
#include "dataloop.h"

/* ---- handles ---- */

/* Slot i holds the derived type with handle index MPIR_DT_DERIVED_BASE + i.  A
 * slot is reused only once its object is gone (every reference dropped). */
static MPIR_Datatype **slots;
static int nslots, slots_cap;
static int *free_slots, nfree;
static int live;

MPIR_Datatype *MPIR_Datatype_get_derived(MPI_Datatype type)
{
    if ((type & 0xfc000000) != MPIR_HANDLE_KIND_DATATYPE)
        return NULL;
    int idx = (type & MPIR_DT_INDEX_MASK) - MPIR_DT_DERIVED_BASE;
    if (idx < 0 || idx >= nslots)
        return NULL;
    return slots[idx];
}

int MPIR_Datatype_register(MPIR_Datatype *dt)
{
    int idx;
    if (nfree > 0) {
        idx = free_slots[--nfree];
    } else {
        if (nslots == slots_cap) {
            int cap = slots_cap ? 2 * slots_cap : 256;
            if (cap > MPIR_DT_INDEX_MASK - MPIR_DT_DERIVED_BASE)
                return MPI_ERR_NO_MEM;
            MPIR_Datatype **s = realloc(slots, cap * sizeof(*s));
            if (!s)
                return MPI_ERR_NO_MEM;
            slots = s;
            int *f = realloc(free_slots, cap * sizeof(*f));
            if (!f)
                return MPI_ERR_NO_MEM;
            free_slots = f;
            slots_cap = cap;
        }
        idx = nslots++;
    }
    slots[idx] = dt;
    dt->handle = MPIR_HANDLE_KIND_DATATYPE | (MPIR_DT_DERIVED_BASE + idx);
    return MPI_SUCCESS;
}

MPI_Datatype MPIR_Datatype_f90_named(MPI_Datatype type)
{
    if (MPIR_Datatype_is_builtin(type))
        return type;
    MPIR_Datatype *dt = MPIR_Datatype_get_derived(type);
    return dt && MPIR_Datatype_is_f90(dt) ? dt->child->handle : type;
}

int MPIR_Datatype_live(void)
{
    return live;
}

void MPIR_Datatype_destroy(MPIR_Datatype *dt)
{
    if (dt->handle) {
        int idx = (dt->handle & MPIR_DT_INDEX_MASK) - MPIR_DT_DERIVED_BASE;
        slots[idx] = NULL;
        free_slots[nfree++] = idx;
    }
    MPIR_Dataloop_free(dt->loop);
    MPIR_Datatype_release(dt->child);
    if (dt->children)
        for (MPI_Aint i = 0; i < dt->count; i++)
            MPIR_Datatype_release(dt->children[i]);
    for (int i = 0; i < dt->n_types; i++)
        MPIR_Datatype_release(dt->types[i]);
    free(dt->children);
    free(dt->types);
    free(dt->ints);
    free(dt->aints);
    free(dt->counts);
    free(dt->blocklens);
    free(dt->displs);
    free(dt);
    live--;
}

/* ---- bounds ---- */

/* The bounds of a type are those of its typemap (MPI-4.1 5.1, 5.1.7): the
 * typemap is the children's typemaps copied to their displacements, markers
 * included.  If it holds lb markers (a resized, subarray or darray type, or MPI_LB, inside)
 * lb is the least of them, else the least displacement of its data; if it
 * holds ub markers ub is the greatest of them, else the greatest end of its
 * data plus the alignment epsilon.  Resized types put a pair of markers, MPI-1's
 * MPI_LB and MPI_UB one each, so either may be missing.  A block of
 * zero elements, or an element with neither data nor markers, puts nothing in
 * the typemap, so it adds no bound (an empty type has lb = ub = 0).  The
 * epsilon pads the data's own span: a child's padding is not data, so it is
 * not carried up (hindexed({0, 20}, struct{double; char}) has extent 32). */
typedef struct bounds {
    int any_data, slb, sub;
    MPI_Aint slb_v, sub_v, tlb, tub;
} bounds_t;

static void bound_block(bounds_t *b, const MPIR_Datatype *c, MPI_Aint n, MPI_Aint d)
{
    if (n <= 0)
        return;
    MPI_Aint span = (n - 1) * c->extent;
    MPI_Aint lo = d + (span < 0 ? span : 0), hi = d + (span > 0 ? span : 0);
    if (c->sticky_lb && (!b->slb || lo + c->lb < b->slb_v)) {
        b->slb_v = lo + c->lb;
        b->slb = 1;
    }
    if (c->sticky_ub && (!b->sub || hi + c->ub > b->sub_v)) {
        b->sub_v = hi + c->ub;
        b->sub = 1;
    }
    if (c->size > 0) {
        MPI_Aint tl = lo + c->true_lb, tu = hi + c->true_ub;
        if (!b->any_data || tl < b->tlb)
            b->tlb = tl;
        if (!b->any_data || tu > b->tub)
            b->tub = tu;
        b->any_data = 1;
    }
}

static void bound_finish(MPIR_Datatype *t, const bounds_t *b)
{
    t->true_lb = b->any_data ? b->tlb : 0;
    t->true_ub = b->any_data ? b->tub : 0;
    t->lb = b->slb ? b->slb_v : t->true_lb;
    t->ub = b->sub ? b->sub_v : t->true_ub;
    t->sticky_lb = b->slb;
    t->sticky_ub = b->sub;
    t->extent = t->ub - t->lb;
    /* The epsilon: the extent rounded up to the alignment of the most aligned
     * basic type inside, for every constructor as the standard says (Open MPI
     * does too; MPICH pads structs only), so an array of them keeps each field
     * aligned as a C array of the matching struct would.  An explicit upper
     * bound (a ub marker) is taken as it is. */
    if (!t->sticky_ub && t->extent > 0 && t->extent % t->align) {
        t->ub += t->align - t->extent % t->align;
        t->extent = t->ub - t->lb;
    }
}

/* Adds the per-element sums of n elements of c. */
static void sum_block(MPIR_Datatype *t, const MPIR_Datatype *c, MPI_Aint n)
{
    if (n <= 0)
        return;
    t->size += n * c->size;
    t->n_elements += n * c->n_elements;
    t->ext32_size += n * c->ext32_size;
    if (c->align > t->align)
        t->align = c->align;
    if (c->depth + 1 > t->depth)
        t->depth = c->depth + 1;
}

static MPIR_Datatype *new_type(MPIR_Datatype_kind_t kind)
{
    MPIR_Datatype *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = kind;
    t->ref = 1;
    t->align = 1;
    t->depth = 1;
    live++;
    return t;
}

static MPI_Aint *dup_aints(const MPI_Aint *a, MPI_Aint n)
{
    MPI_Aint *c = malloc((n > 0 ? n : 1) * sizeof(*c));
    if (c && n > 0)
        memcpy(c, a, n * sizeof(*c));
    return c;
}

MPIR_Datatype *MPIR_Type_vector(MPI_Aint count, MPI_Aint blocklen, MPI_Aint stride,
                                MPIR_Datatype *child)
{
    MPIR_Datatype *t = new_type(MPIR_DT_VECTOR);
    if (!t)
        return NULL;
    t->count = count;
    t->blocklen = blocklen;
    t->stride = stride;
    t->child = child;
    MPIR_Datatype_add_ref(child);
    bounds_t b = {0};
    if (count > 0) {
        /* Displacements grow linearly, so the first and last blocks bound them all. */
        bound_block(&b, child, blocklen, 0);
        bound_block(&b, child, blocklen, (count - 1) * stride);
        sum_block(t, child, count * blocklen);
    }
    bound_finish(t, &b);
    return t;
}

MPIR_Datatype *MPIR_Type_blkidx(MPI_Aint count, MPI_Aint blocklen, const MPI_Aint *displs,
                                MPIR_Datatype *child)
{
    MPIR_Datatype *t = new_type(MPIR_DT_BLKIDX);
    if (!t)
        return NULL;
    if (!(t->displs = dup_aints(displs, count))) {
        free(t);
        live--;
        return NULL;
    }
    t->count = count;
    t->blocklen = blocklen;
    t->child = child;
    MPIR_Datatype_add_ref(child);
    bounds_t b = {0};
    for (MPI_Aint i = 0; i < count; i++)
        bound_block(&b, child, blocklen, displs[i]);
    if (count > 0)
        sum_block(t, child, count * blocklen);
    bound_finish(t, &b);
    return t;
}

MPIR_Datatype *MPIR_Type_indexed(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                                 MPIR_Datatype *child)
{
    MPIR_Datatype *t = new_type(MPIR_DT_INDEXED);
    if (!t)
        return NULL;
    t->displs = dup_aints(displs, count);
    t->blocklens = dup_aints(blocklens, count);
    if (!t->displs || !t->blocklens) {
        free(t->displs);
        free(t->blocklens);
        free(t);
        live--;
        return NULL;
    }
    t->count = count;
    t->child = child;
    MPIR_Datatype_add_ref(child);
    bounds_t b = {0};
    MPI_Aint n = 0;
    for (MPI_Aint i = 0; i < count; i++) {
        bound_block(&b, child, blocklens[i], displs[i]);
        n += blocklens[i];
    }
    if (count > 0)
        sum_block(t, child, n);
    bound_finish(t, &b);
    return t;
}

MPIR_Datatype *MPIR_Type_struct(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                                MPIR_Datatype *const *children)
{
    MPIR_Datatype *t = new_type(MPIR_DT_STRUCT);
    if (!t)
        return NULL;
    t->displs = dup_aints(displs, count);
    t->blocklens = dup_aints(blocklens, count);
    t->children = calloc(count > 0 ? count : 1, sizeof(*t->children));
    if (!t->displs || !t->blocklens || !t->children) {
        free(t->displs);
        free(t->blocklens);
        free(t->children);
        free(t);
        live--;
        return NULL;
    }
    t->count = count;
    bounds_t b = {0};
    for (MPI_Aint i = 0; i < count; i++) {
        t->children[i] = children[i];
        MPIR_Datatype_add_ref(children[i]);
        bound_block(&b, children[i], blocklens[i], displs[i]);
        sum_block(t, children[i], blocklens[i]);
    }
    bound_finish(t, &b);
    return t;
}

MPIR_Datatype *MPIR_Type_alias(MPIR_Datatype *child, int set, MPI_Aint lb, MPI_Aint extent)
{
    MPIR_Datatype *t = new_type(MPIR_DT_ALIAS);
    if (!t)
        return NULL;
    t->child = child;
    MPIR_Datatype_add_ref(child);
    t->count = 1;
    sum_block(t, child, 1);
    t->lb = child->lb;
    t->ub = child->ub;
    t->extent = child->extent;
    t->sticky_lb = child->sticky_lb;
    t->sticky_ub = child->sticky_ub;
    t->true_lb = child->true_lb;
    t->true_ub = child->true_ub;
    if (set) {
        t->lb = lb;
        t->extent = extent;
        t->ub = lb + extent;
        t->sticky_lb = t->sticky_ub = 1;
    }
    return t;
}

int MPIR_Type_set_contents(MPIR_Datatype *dt, int combiner, int ni, const int *ints, int na,
                           const MPI_Aint *aints, int nc, const MPI_Count *counts, int nt,
                           const MPI_Datatype *types)
{
    dt->combiner = combiner;
    dt->ints = malloc((ni > 0 ? ni : 1) * sizeof(int));
    dt->aints = malloc((na > 0 ? na : 1) * sizeof(MPI_Aint));
    dt->counts = malloc((nc > 0 ? nc : 1) * sizeof(MPI_Count));
    dt->types = calloc(nt > 0 ? nt : 1, sizeof(*dt->types));
    if (!dt->ints || !dt->aints || !dt->counts || !dt->types)
        return MPI_ERR_NO_MEM;
    if (ni > 0)
        memcpy(dt->ints, ints, ni * sizeof(int));
    if (na > 0)
        memcpy(dt->aints, aints, na * sizeof(MPI_Aint));
    if (nc > 0)
        memcpy(dt->counts, counts, nc * sizeof(MPI_Count));
    for (int i = 0; i < nt; i++) {
        dt->types[i] = MPIR_Datatype_get(types[i]);
        MPIR_Datatype_add_ref(dt->types[i]);
    }
    dt->n_ints = ni;
    dt->n_aints = na;
    dt->n_counts = nc;
    dt->n_types = nt;
    return MPI_SUCCESS;
}

int MPIR_Type_commit(MPIR_Datatype *dt)
{
    if (!MPIR_Datatype_loop(dt))
        return MPI_ERR_NO_MEM;
    dt->committed = 1;
    return MPI_SUCCESS;
}

const MPIR_Dataloop *MPIR_Datatype_loop(MPIR_Datatype *dt)
{
    if (!dt->loop) {
        dt->loop = MPIR_Dataloop_build(dt);
        if (dt->loop)
            dt->is_contig = MPIR_Dataloop_is_contig(dt->loop);
    }
    return dt->loop;
}
