/* pmi_mapping.c: MPICH's PMI_process_mapping value (which node each rank runs on) parsed into a
 * node map, so a rank learns the whole job's locality from one PMI get. */
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One "(start,nodes,ppn)" block: nodes consecutive node ids from start, each
 * taking ppn consecutive ranks. */
typedef struct block {
    long start, nodes, ppn;
} block_t;

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Reads a non-negative decimal at *p_p followed by blanks; -1 if there is none. */
static long read_count(const char **p_p)
{
    const char *p = skip_blanks(*p_p);
    char *end;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || v > INT_MAX)
        return -1;
    *p_p = skip_blanks(end);
    return v;
}

/* Expects the character c after blanks; advances past it. */
static int expect(const char **p_p, char c)
{
    const char *p = skip_blanks(*p_p);
    if (*p != c)
        return -1;
    *p_p = p + 1;
    return 0;
}

int PMIU_parse_process_mapping(const char *value, int size, int *node_of, int *nnodes_p)
{
    block_t blocks[PMIU_MAXLINE / 8]; /* a block takes at least "(0,1,1)," */
    int nblocks = 0;
    const char *p = value;

    if (size < 1) {
        PMIU_set_error("PMI_process_mapping for a job of %d ranks", size);
        return -1;
    }
    if (expect(&p, '(') != 0 || strncmp(skip_blanks(p), "vector", 6) != 0)
        goto fn_bad;
    p = skip_blanks(p) + 6;
    while (expect(&p, ',') == 0) {
        block_t b;
        if (nblocks == (int)(sizeof(blocks) / sizeof(blocks[0])) || expect(&p, '(') != 0 ||
            (b.start = read_count(&p)) < 0 || expect(&p, ',') != 0 ||
            (b.nodes = read_count(&p)) < 1 || expect(&p, ',') != 0 ||
            (b.ppn = read_count(&p)) < 1 || expect(&p, ')') != 0)
            goto fn_bad;
        blocks[nblocks++] = b;
    }
    if (nblocks == 0 || expect(&p, ')') != 0 || *skip_blanks(p) != '\0')
        goto fn_bad;

    /* As MPICH reads it: the blocks place ranks in order, and start over from
     * the first block until every rank has a node (a cyclic placement over
     * two nodes is "(vector,(0,2,1))" for any job size). */
    int rank = 0, nnodes = 0;
    while (rank < size) {
        for (int k = 0; k < nblocks && rank < size; k++)
            for (long n = 0; n < blocks[k].nodes && rank < size; n++)
                for (long i = 0; i < blocks[k].ppn && rank < size; i++) {
                    long node = blocks[k].start + n;
                    if (node >= size) {
                        /* Node ids beyond the job size: not a map of this job. */
                        PMIU_set_error("PMI_process_mapping=%.200s names node %ld in a job of "
                                       "%d ranks",
                                       value, node, size);
                        return -1;
                    }
                    node_of[rank++] = (int)node;
                    if (node >= nnodes)
                        nnodes = (int)node + 1;
                }
    }
    /* Node ids must be dense (every id below the highest used), since methods
     * number shared objects by node id. */
    char *used = calloc((size_t)nnodes, 1);
    if (used == NULL) {
        PMIU_set_error("out of memory for a node map of %d nodes", nnodes);
        return -1;
    }
    for (int r = 0; r < size; r++)
        used[node_of[r]] = 1;
    for (int n = 0; n < nnodes; n++)
        if (!used[n]) {
            free(used);
            PMIU_set_error("PMI_process_mapping=%.200s leaves node %d of %d without ranks", value,
                           n, nnodes);
            return -1;
        }
    free(used);
    if (nnodes_p)
        *nnodes_p = nnodes;
    return 0;

fn_bad:
    PMIU_set_error("PMI_process_mapping=%.200s is not (vector,(start,nodes,ppn),...)", value);
    return -1;
}
