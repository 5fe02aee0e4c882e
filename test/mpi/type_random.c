/* type_random.c: send/recv of random nested derived datatypes (type_gen.h) between rank pairs,
 * the receiver using a different type with the same type signature (another random type, or a
 * contiguous run of the basic type); both directions, every size from empty to about 1 MiB so
 * every protocol is crossed.  The received memory must equal the reference unpack of the
 * reference pack of the sent memory, bytes outside the type map untouched; status count and
 * elements are checked; the sender sometimes frees its type while the send is pending.
 *
 *   type_random [NTYPES [SEED]]   (default 150 types, seed 1; a failure prints its seed and
 *                                  the two types) */
#include "mtest.h"
#include "type_gen.h"

#include <stdlib.h>
#include <string.h>

static long gcd(long a, long b)
{
    return b ? gcd(b, a % b) : a;
}

/* A random type over one basic type, its elements placed by the library's extents. */
static tg_type *make(tg_rng_t *r, int basic, int contiguous)
{
    tg_opts_t o = {.max_depth = 4, .max_el = 600, .single_basic = basic};
    tg_type *t = contiguous ? tg_basic(r, &o) : tg_gen(r, (int)tg_range(r, 1, 4), o.max_el, &o);
    if (tg_build(t) != MPI_SUCCESS)
        return t;
    if (t->comb != MPI_COMBINER_NAMED)
        MPI_Type_commit(&t->h);
    tg_use_lib_extents(t);
    return t;
}

typedef struct {
    unsigned char *mem, *origin;
    size_t len;
} region_t;

static void region(region_t *g, const tg_map_t *m)
{
    MPI_Aint lo, hi;
    tg_map_span(m, &lo, &hi);
    g->len = (size_t)(hi - lo) + 64;
    g->mem = mtest_malloc(g->len);
    g->origin = g->mem + 32 - lo;
}

/* One exchange: sender uses (ts, cs), receiver (tr, cr).  Returns errors. */
static int exchange(unsigned long long seed, int sender, int receiver, int tag)
{
    int errs = 0, me = mtest_rank;
    tg_rng_t r;
    tg_seed(&r, seed);
    int basic = (int)tg_range(&r, 0, TG_NBASICS - 1);
    /* Not long double: its 6 padding bytes need not travel (MPICH does not send them). */
    if (tg_has_padding(tg_basics[basic].dt))
        basic = 0;
    int shape = (int)tg_range(&r, 0, 3); /* 0 both derived, 1 contig sender, 2 contig receiver */
    tg_type *ts = make(&r, basic, shape == 1);
    tg_type *tr = make(&r, basic, shape == 2);
    tg_map_t ms = {0}, mr = {0};
    tg_map(ts, 1, &ms);
    tg_map(tr, 1, &mr);
    char desc[2][2048];
    tg_describe(ts, desc[0], sizeof desc[0]);
    tg_describe(tr, desc[1], sizeof desc[1]);
    if (ms.n == 0 || mr.n == 0) {
        /* An empty type: nothing to match counts with. */
        free(ms.e);
        free(mr.e);
        tg_free(ts);
        tg_free(tr);
        return 0;
    }
    /* Equal signatures: cs * ns == cr * nr entries, about `target` bytes in all. */
    long g = gcd(ms.n, mr.n), us = mr.n / g, ur = ms.n / g;
    long unit = us * tg_map_bytes(&ms);
    long target = tg_range(&r, 0, 3) == 0 ? tg_range(&r, 0, 512) : tg_range(&r, 0, 1 << 20);
    long k = unit > 0 ? target / unit : 0;
    if (k > 40000 / (ms.n * us) + 1)
        k = 40000 / (ms.n * us) + 1; /* bound the reference's work */
    int cs = (int)(k * us), cr = (int)(k * ur);
    tg_map(ts, cs, &ms);
    tg_map(tr, cr, &mr);
    int overlap = 0;
    MPI_Aint lo, hi;
    tg_map_span(&mr, &lo, &hi);
    if (cr > 0 && tg_map_overlaps(&mr, lo, hi))
        overlap = 1; /* not a valid receive type: receive the bytes contiguously instead */
    long bytes = tg_map_bytes(&ms);
    int free_early = tg_range(&r, 0, 3) == 0;
    int mode = (int)tg_range(&r, 0, 2);

    if (me == sender) {
        region_t s;
        region(&s, &ms);
        mtest_fill_bytes(s.mem, s.len, (int)(seed & 0x7fffffff));
        MPI_Request req;
        int rc;
        if (mode == 0) {
            rc = MPI_Send(s.origin, cs, ts->h, receiver, tag, MPI_COMM_WORLD);
        } else {
            rc = mode == 1 ? MPI_Isend(s.origin, cs, ts->h, receiver, tag, MPI_COMM_WORLD, &req)
                           : MPI_Issend(s.origin, cs, ts->h, receiver, tag, MPI_COMM_WORLD, &req);
            if (free_early && ts->comb != MPI_COMBINER_NAMED)
                MPI_Type_free(&ts->h); /* the pending send keeps the type alive */
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MTEST_CHECK_RC(errs, rc, "send seed %llu of %d elements", seed, cs);
        free(s.mem);
    } else if (me == receiver) {
        /* The expected memory, from the sender's memory by the reference. */
        region_t s, d, x;
        region(&s, &ms);
        mtest_fill_bytes(s.mem, s.len, (int)(seed & 0x7fffffff));
        unsigned char *stream = mtest_malloc(bytes + 1);
        tg_ref_pack(&ms, s.origin, stream);
        MPI_Status st;
        int rc;
        if (overlap) {
            unsigned char *got = mtest_malloc(bytes + 1);
            rc = MPI_Recv(got, (int)bytes, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &st);
            if (memcmp(got, stream, bytes))
                MTEST_FAIL(errs, "seed %llu: %d x %s received as %ld bytes differ", seed, cs,
                           desc[0], bytes);
            free(got);
        } else {
            region(&d, &mr);
            region(&x, &mr);
            mtest_fill_guard(d.mem, d.len);
            memcpy(x.mem, d.mem, d.len);
            tg_ref_unpack(&mr, x.origin, stream);
            rc = MPI_Recv(d.origin, cr, tr->h, sender, tag, MPI_COMM_WORLD, &st);
            if (memcmp(d.mem, x.mem, d.len)) {
                size_t i = 0;
                while (d.mem[i] == x.mem[i])
                    i++;
                MTEST_FAIL(errs,
                           "seed %llu: %d x %s received as %d x %s: memory differs first at "
                           "byte %ld of the type (%#x, expected %#x), %ld bytes sent",
                           seed, cs, desc[0], cr, desc[1], (long)(i - (x.origin - x.mem)), d.mem[i],
                           x.mem[i], bytes);
            }
            int count = -1, elems = (int)mr.n;
            MPI_Get_count(&st, tr->h, &count);
            /* (MPICH 4.0.2 divides by zero in MPI_Get_elements of a type made of pair
             * types; test/unit/dtype_random checks those elements in Ferry.) */
            if (!tg_basics[basic].pair_off)
                MPI_Get_elements(&st, tr->h, &elems);
            if (count != cr || elems != mr.n)
                MTEST_FAIL(errs, "seed %llu: status count %d elements %d, expected %d and %ld",
                           seed, count, elems, cr, mr.n);
            free(d.mem);
            free(x.mem);
        }
        MTEST_CHECK_RC(errs, rc, "recv seed %llu", seed);
        free(stream);
        free(s.mem);
    }
    free(ms.e);
    free(mr.e);
    tg_free(ts);
    tg_free(tr);
    return errs;
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    long ntypes = argc > 1 ? atol(argv[1]) : 150;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    int errs = 0;
    int partner = mtest_rank ^ 1;
    if (partner < mtest_size) {
        for (long i = 0; i < ntypes; i++) {
            unsigned long long s = seed * 1000003ull + (unsigned long long)i;
            /* Both directions, so each rank sends and receives. */
            int lo = mtest_rank & ~1;
            errs += exchange(s, lo, lo + 1, (int)(i % 1000));
            errs += exchange(s ^ 0x5555, lo + 1, lo, (int)(i % 1000));
        }
    }
    return MTest_Finalize(errs);
}
