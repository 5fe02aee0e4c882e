/* dataloop_build.c: commit: turn a type tree into a normalised dataloop (format in
 * segment/dataloop.h, rules in doc/datatypes.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "datatype.h"
#include "dataloop.h"

void MPIR_Dataloop_free(MPIR_Dataloop *L)
{
    if (!L)
        return;
    MPIR_Dataloop_free(L->child);
    if (L->children)
        for (MPI_Aint i = 0; i < L->count; i++)
            MPIR_Dataloop_free(L->children[i]);
    free(L->children);
    free(L->displs);
    free(L->blocklens);
    free(L->offsets);
    free(L);
}

static MPIR_Dataloop *dl_new(MPIR_Dataloop_kind_t kind)
{
    MPIR_Dataloop *L = calloc(1, sizeof(*L));
    if (L) {
        L->kind = kind;
        L->el_size = L->el_extent = 1;
    }
    return L;
}

/* A leaf VECTOR of one block: `bytes` contiguous bytes at disp. */
static MPIR_Dataloop *dl_contig(MPI_Aint bytes, MPI_Aint disp)
{
    MPIR_Dataloop *L = dl_new(MPIR_DL_VECTOR);
    if (L) {
        L->count = bytes > 0;
        L->blocklen = bytes;
        L->disp0 = disp;
        L->size = bytes;
    }
    return L;
}

static int is_leaf_contig(const MPIR_Dataloop *L)
{
    return L && L->kind == MPIR_DL_VECTOR && !L->child && L->count == 1;
}

int MPIR_Dataloop_is_contig(const MPIR_Dataloop *L)
{
    return L->size == 0 || is_leaf_contig(L);
}

/* Turns L into the empty loop (no blocks), freeing what it held. */
static void make_empty(MPIR_Dataloop *L)
{
    MPIR_Dataloop_free(L->child);
    if (L->children)
        for (MPI_Aint i = 0; i < L->count; i++)
            MPIR_Dataloop_free(L->children[i]);
    free(L->children);
    free(L->displs);
    free(L->blocklens);
    free(L->offsets);
    MPI_Aint extent = L->extent;
    memset(L, 0, sizeof(*L));
    L->kind = MPIR_DL_VECTOR;
    L->el_size = L->el_extent = 1;
    L->extent = extent;
}

static void shift(MPIR_Dataloop *L, MPI_Aint d)
{
    if (L->kind == MPIR_DL_VECTOR)
        L->disp0 += d;
    else
        for (MPI_Aint i = 0; i < L->count; i++)
            L->displs[i] += d;
}

/* Replaces L by its child (shifted by d); L's own node is freed. */
static MPIR_Dataloop *take_child(MPIR_Dataloop *L, MPI_Aint d)
{
    MPIR_Dataloop *c = L->child;
    L->child = NULL;
    shift(c, d);
    MPIR_Dataloop_free(L);
    return c;
}

static MPIR_Dataloop *normalize(MPIR_Dataloop *L);
static int finish(MPIR_Dataloop *L);

/* The rules for a VECTOR, in order; each either finishes or falls through. */
static MPIR_Dataloop *norm_vector(MPIR_Dataloop *L)
{
    MPIR_Dataloop *c = L->child;
    if (L->count == 0 || L->blocklen == 0 || (c && c->size == 0)) {
        make_empty(L);
        return L;
    }
    /* A contiguous child merges into the blocks when its elements abut (or a
     * block holds one): a block is then plain bytes. */
    if (is_leaf_contig(c) && (L->el_extent == c->blocklen || L->blocklen == 1)) {
        L->blocklen *= c->blocklen;
        L->disp0 += c->disp0;
        L->child = NULL;
        L->el_size = L->el_extent = 1;
        MPIR_Dataloop_free(c);
        c = NULL;
    }
    /* A block of several leaf vectors that continue each other's stride is one
     * longer leaf vector. */
    if (c && !c->child && c->kind == MPIR_DL_VECTOR && L->blocklen > 1 &&
        L->el_extent == c->count * c->stride) {
        c->count *= L->blocklen;
        L->blocklen = 1;
        finish(c);
        L->el_size = c->size;
    }
    if (c && L->blocklen == 1 && c->kind == MPIR_DL_VECTOR && !c->child) {
        if (L->count == 1)
            return take_child(L, L->disp0);
        if (L->stride == c->count * c->stride) {
            c->count *= L->count;
            return take_child(L, L->disp0);
        }
    }
    if (!L->child) {
        if (L->count > 1 && L->stride == L->blocklen) {
            L->blocklen *= L->count;
            L->count = 1;
        }
    } else if (L->count == 1 && L->blocklen == 1) {
        return take_child(L, L->disp0);
    }
    return L;
}

/* BLKIDX and INDEXED with one block, or evenly spaced equal blocks, are vectors. */
static MPIR_Dataloop *blkidx_to_vector(MPIR_Dataloop *L)
{
    MPI_Aint n = L->count, stride = n > 1 ? L->displs[1] - L->displs[0] : 0;
    for (MPI_Aint i = 2; i < n; i++)
        if (L->displs[i] - L->displs[i - 1] != stride)
            return L;
    L->kind = MPIR_DL_VECTOR;
    L->disp0 = L->displs[0];
    L->stride = stride;
    free(L->displs);
    L->displs = NULL;
    return norm_vector(L);
}

static MPIR_Dataloop *norm_indexed(MPIR_Dataloop *L);

static MPIR_Dataloop *norm_blkidx(MPIR_Dataloop *L)
{
    MPIR_Dataloop *c = L->child;
    if (L->count == 0 || L->blocklen == 0 || (c && c->size == 0)) {
        make_empty(L);
        return L;
    }
    if (is_leaf_contig(c) && (L->el_extent == c->blocklen || L->blocklen == 1)) {
        L->blocklen *= c->blocklen;
        for (MPI_Aint i = 0; i < L->count; i++)
            L->displs[i] += c->disp0;
        L->child = NULL;
        L->el_size = L->el_extent = 1;
        MPIR_Dataloop_free(c);
    }
    MPIR_Dataloop *v = blkidx_to_vector(L);
    if (v != L || v->kind == MPIR_DL_VECTOR)
        return v;
    /* Abutting blocks: let INDEXED merge them. */
    MPI_Aint span = L->blocklen * L->el_extent;
    for (MPI_Aint i = 1; i < L->count; i++) {
        if (L->displs[i - 1] + span == L->displs[i]) {
            L->blocklens = malloc(L->count * sizeof(MPI_Aint));
            if (!L->blocklens)
                return L; /* still correct, only less merged */
            for (MPI_Aint k = 0; k < L->count; k++)
                L->blocklens[k] = L->blocklen;
            L->kind = MPIR_DL_INDEXED;
            return norm_indexed(L);
        }
    }
    return L;
}

static MPIR_Dataloop *norm_indexed(MPIR_Dataloop *L)
{
    MPIR_Dataloop *c = L->child;
    if (c && c->size == 0) {
        make_empty(L);
        return L;
    }
    int all_ones = 1;
    for (MPI_Aint i = 0; i < L->count; i++)
        all_ones &= L->blocklens[i] <= 1;
    if (is_leaf_contig(c) && (L->el_extent == c->blocklen || all_ones)) {
        for (MPI_Aint i = 0; i < L->count; i++) {
            L->blocklens[i] *= c->blocklen;
            L->displs[i] += c->disp0;
        }
        L->child = NULL;
        L->el_size = L->el_extent = 1;
        MPIR_Dataloop_free(c);
    }
    /* Drop empty blocks and merge abutting ones, in place. */
    MPI_Aint n = 0;
    for (MPI_Aint i = 0; i < L->count; i++) {
        if (L->blocklens[i] == 0)
            continue;
        if (n > 0 && L->displs[n - 1] + L->blocklens[n - 1] * L->el_extent == L->displs[i]) {
            L->blocklens[n - 1] += L->blocklens[i];
            continue;
        }
        L->displs[n] = L->displs[i];
        L->blocklens[n] = L->blocklens[i];
        n++;
    }
    L->count = n;
    if (n == 0) {
        make_empty(L);
        return L;
    }
    for (MPI_Aint i = 1; i < n; i++)
        if (L->blocklens[i] != L->blocklens[0])
            return L;
    L->kind = MPIR_DL_BLKIDX;
    L->blocklen = L->blocklens[0];
    free(L->blocklens);
    L->blocklens = NULL;
    return norm_blkidx(L);
}

static MPIR_Dataloop *norm_struct(MPIR_Dataloop *L)
{
    MPI_Aint n = 0;
    int all_bytes = 1;
    for (MPI_Aint i = 0; i < L->count; i++) {
        MPIR_Dataloop *c = L->children[i];
        MPI_Aint bl = L->blocklens[i], d = L->displs[i];
        if (bl == 0 || (c && c->size == 0)) {
            MPIR_Dataloop_free(c);
            continue;
        }
        if (is_leaf_contig(c) && (c->extent == c->blocklen || bl == 1)) {
            bl *= c->blocklen;
            d += c->disp0;
            MPIR_Dataloop_free(c);
            c = NULL;
        }
        all_bytes &= c == NULL;
        L->children[n] = c;
        L->blocklens[n] = bl;
        L->displs[n] = d;
        n++;
    }
    L->count = n;
    if (n == 0) {
        make_empty(L);
        return L;
    }
    if (all_bytes || n == 1) {
        /* One child kind left: an INDEXED of it. */
        L->child = L->children[0];
        if (L->child) {
            L->el_size = L->child->size;
            L->el_extent = L->child->extent;
        }
        free(L->children);
        L->children = NULL;
        L->kind = MPIR_DL_INDEXED;
        return norm_indexed(L);
    }
    return L;
}

static MPIR_Dataloop *normalize(MPIR_Dataloop *L)
{
    switch (L->kind) {
    case MPIR_DL_VECTOR:
        return norm_vector(L);
    case MPIR_DL_BLKIDX:
        return norm_blkidx(L);
    case MPIR_DL_INDEXED:
        return norm_indexed(L);
    case MPIR_DL_STRUCT:
        return norm_struct(L);
    }
    return L;
}

/* Fills size, nblocks and the seek table of a normalised node. */
static int finish(MPIR_Dataloop *L)
{
    MPI_Aint cb = L->child ? L->child->nblocks : 1;
    switch (L->kind) {
    case MPIR_DL_VECTOR:
    case MPIR_DL_BLKIDX:
        L->size = L->count * L->blocklen * L->el_size;
        L->nblocks = L->child ? L->count * L->blocklen * cb : L->count;
        return 0;
    case MPIR_DL_INDEXED:
    case MPIR_DL_STRUCT:
        free(L->offsets);
        L->offsets = malloc((L->count + 1) * sizeof(MPI_Aint));
        if (!L->offsets)
            return -1;
        L->offsets[0] = 0;
        L->nblocks = 0;
        for (MPI_Aint i = 0; i < L->count; i++) {
            const MPIR_Dataloop *c = L->children ? L->children[i] : L->child;
            MPI_Aint es = c ? c->size : 1;
            L->offsets[i + 1] = L->offsets[i] + L->blocklens[i] * es;
            L->nblocks += c ? L->blocklens[i] * c->nblocks : 1;
        }
        L->size = L->offsets[L->count];
        return 0;
    }
    return 0;
}

static MPIR_Dataloop *build(const MPIR_Datatype *t);

/* Child loop and element geometry shared by the single-child kinds. */
static MPIR_Dataloop *with_child(MPIR_Dataloop_kind_t kind, const MPIR_Datatype *t)
{
    MPIR_Dataloop *L = dl_new(kind);
    if (!L)
        return NULL;
    L->child = build(t->child);
    if (!L->child) {
        free(L);
        return NULL;
    }
    L->el_size = t->child->size;
    L->el_extent = t->child->extent;
    L->count = t->count;
    return L;
}

static MPI_Aint *copy_aints(const MPI_Aint *a, MPI_Aint n)
{
    MPI_Aint *c = malloc((n > 0 ? n : 1) * sizeof(*c));
    if (c && n > 0)
        memcpy(c, a, n * sizeof(*c));
    return c;
}

static MPIR_Dataloop *build(const MPIR_Datatype *t)
{
    MPIR_Dataloop *L = NULL;
    switch (t->kind) {
    case MPIR_DT_BUILTIN:
        if (t->pair_first && t->true_ub != t->size) {
            /* A pair type with padding between its fields (MPI_SHORT_INT). */
            L = dl_new(MPIR_DL_INDEXED);
            if (!L)
                return NULL;
            L->count = 2;
            L->displs = malloc(2 * sizeof(MPI_Aint));
            L->blocklens = malloc(2 * sizeof(MPI_Aint));
            if (!L->displs || !L->blocklens)
                goto fail;
            L->displs[0] = 0;
            L->blocklens[0] = t->size - (MPI_Aint)sizeof(int);
            L->displs[1] = t->pair_off2;
            L->blocklens[1] = sizeof(int);
        } else {
            L = dl_contig(t->size, 0);
        }
        break;
    case MPIR_DT_VECTOR:
        if (!(L = with_child(MPIR_DL_VECTOR, t)))
            return NULL;
        L->blocklen = t->blocklen;
        L->stride = t->stride;
        break;
    case MPIR_DT_BLKIDX:
        if (!(L = with_child(MPIR_DL_BLKIDX, t)))
            return NULL;
        L->blocklen = t->blocklen;
        if (!(L->displs = copy_aints(t->displs, t->count)))
            goto fail;
        break;
    case MPIR_DT_INDEXED:
        if (!(L = with_child(MPIR_DL_INDEXED, t)))
            return NULL;
        L->displs = copy_aints(t->displs, t->count);
        L->blocklens = copy_aints(t->blocklens, t->count);
        if (!L->displs || !L->blocklens)
            goto fail;
        break;
    case MPIR_DT_STRUCT:
        if (!(L = dl_new(MPIR_DL_STRUCT)))
            return NULL;
        L->count = t->count;
        L->displs = copy_aints(t->displs, t->count);
        L->blocklens = copy_aints(t->blocklens, t->count);
        L->children = calloc(t->count > 0 ? t->count : 1, sizeof(*L->children));
        if (!L->displs || !L->blocklens || !L->children)
            goto fail;
        for (MPI_Aint i = 0; i < t->count; i++)
            if (!(L->children[i] = build(t->children[i])))
                goto fail;
        break;
    case MPIR_DT_ALIAS:
        L = build(t->child);
        if (!L)
            return NULL;
        break;
    }
    if (!L)
        return NULL;
    L->extent = t->extent;
    L = normalize(L);
    L->extent = t->extent;
    if (finish(L) != 0)
        goto fail;
    return L;
fail:
    MPIR_Dataloop_free(L);
    return NULL;
}

MPIR_Dataloop *MPIR_Dataloop_build(MPIR_Datatype *dt)
{
    return build(dt);
}

static size_t print_node(const MPIR_Dataloop *L, char *buf, size_t len, int depth)
{
    static const char *names[] = {"vector", "blkidx", "indexed", "struct"};
    size_t n = 0;
#define OUT(...)                                                                                   \
    do {                                                                                           \
        int k_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__);                            \
        n += k_ > 0 ? (size_t)k_ : 0;                                                              \
    } while (0)
    OUT("%*s%s count %ld", 2 * depth, "", names[L->kind], (long)L->count);
    if (L->kind == MPIR_DL_VECTOR)
        OUT(" blocklen %ld stride %ld disp0 %ld", (long)L->blocklen, (long)L->stride,
            (long)L->disp0);
    if (L->kind == MPIR_DL_BLKIDX)
        OUT(" blocklen %ld", (long)L->blocklen);
    OUT(" size %ld extent %ld%s\n", (long)L->size, (long)L->extent,
        L->child || L->children ? "" : " (bytes)");
    if (L->child)
        n += print_node(L->child, buf + (n < len ? n : len), n < len ? len - n : 0, depth + 1);
    for (MPI_Aint i = 0; L->children && i < L->count; i++)
        if (L->children[i])
            n += print_node(L->children[i], buf + (n < len ? n : len), n < len ? len - n : 0,
                            depth + 1);
#undef OUT
    return n;
}

void MPIR_Dataloop_print(const MPIR_Dataloop *L, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    print_node(L, buf, len, 0);
}
