/* op_user.c: user-defined reduction operations (MPI_Op_create, MPI_Op_create_c, MPI_Op_free,
 * MPI_Op_commutative) and the one function that applies any operation, predefined or
 * user-defined, to a buffer (MPIR_Reduce_apply). */
#include <limits.h>
#include <stdlib.h>
#include "mpiimpl.h"
#include "op.h"

/* User operations have handle indexes from USER_BASE up, above every predefined one. */
#define USER_BASE 64
#define MAX_USER_OPS 4096

typedef struct {
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
    int commute;
    int ref;   /* the user's handle (until MPI_Op_free) and each schedule that names it */
    int freed; /* MPI_Op_free came: the handle is no longer the user's to use */
} user_op_t;

static user_op_t *user_ops[MAX_USER_OPS];
/* One past the highest slot ever used: finalize reads no further (reading the
 * untouched rest of the table faults in its pages in every process at exit). */
static int user_ops_used;

static user_op_t *user_op(MPI_Op op)
{
    if ((op & 0xfc000000) != MPIR_HANDLE_KIND_OP)
        return NULL;
    int idx = (op & 0x03ffffff) - USER_BASE;
    return idx >= 0 && idx < MAX_USER_OPS ? user_ops[idx] : NULL;
}

/* An op the user may still name. */
static user_op_t *live_op(MPI_Op op)
{
    user_op_t *u = user_op(op);
    return u && !u->freed ? u : NULL;
}

static void op_drop(MPI_Op op, user_op_t *u)
{
    if (--u->ref > 0)
        return;
    user_ops[(op & 0x03ffffff) - USER_BASE] = NULL;
    free(u);
}

void MPIR_Op_add_ref(MPI_Op op)
{
    user_op_t *u = user_op(op);
    if (u)
        u->ref++;
}

void MPIR_Op_release(MPI_Op op)
{
    user_op_t *u = user_op(op);
    if (u)
        op_drop(op, u);
}

int MPIR_Op_check_reduce(MPI_Op op, MPI_Datatype type)
{
    if (live_op(op)) /* a user function takes any datatype (MPI-4.1 sec. 6.9.5) */
        return MPIR_Check_comm_type(type);
    int err = MPIR_Op_check(op, MPIR_Datatype_f90_named(type));
    if (err == MPI_ERR_TYPE && MPIR_Check_type(type) == MPI_SUCCESS)
        return MPIR_Err_create(MPI_ERR_TYPE,
                               "the predefined operation %#x is defined on predefined datatypes "
                               "only, not on the derived datatype %#x",
                               (unsigned)op, (unsigned)type);
    if (err == MPI_ERR_TYPE)
        return MPIR_Err_create(MPI_ERR_TYPE, "Invalid datatype %#x", (unsigned)type);
    if (err)
        return MPIR_Err_create(MPI_ERR_OP, "Invalid operation %#x for datatype %s", (unsigned)op,
                               MPIR_Datatype_get(type)->name);
    return MPI_SUCCESS;
}

int MPIR_Op_commutes(MPI_Op op)
{
    user_op_t *u = user_op(op);
    return u ? u->commute : 1; /* every predefined reduction commutes */
}

void MPIR_Reduce_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Aint count)
{
    user_op_t *u = user_op(op);
    if (!u) {
        MPIR_Op_apply(op, MPIR_Datatype_f90_named(type), in, inout, count);
        return;
    }
    MPI_Datatype t = type; /* the functions take a non-const pointer */
    if (u->fn_c) {
        MPI_Count n = count;
        u->fn_c((void *)in, inout, &n, &t);
        return;
    }
    /* An int-count function gets the elements in pieces of at most INT_MAX. */
    MPI_Aint extent = MPIR_Datatype_get(type)->extent;
    for (MPI_Aint done = 0; done < count;) {
        int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        u->fn((char *)in + done * extent, (char *)inout + done * extent, &n, &t);
        done += n;
    }
}

static int op_create(const char *fname, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    int err = MPI_SUCCESS, idx = 0;
    if ((!fn && !fn_c) || !op)
        err = MPIR_Err_create(MPI_ERR_ARG, "user_fn or op is NULL");
    while (!err && idx < MAX_USER_OPS && user_ops[idx])
        idx++;
    if (!err && idx == MAX_USER_OPS)
        err = MPIR_Err_create(MPI_ERR_OTHER, "out of operation handles (%d at most)", MAX_USER_OPS);
    if (!err && !(user_ops[idx] = malloc(sizeof(user_op_t))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating an operation");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    if (user_ops_used < idx + 1)
        user_ops_used = idx + 1;
    *user_ops[idx] = (user_op_t){.fn = fn, .fn_c = fn_c, .commute = commute != 0, .ref = 1};
    *op = (MPI_Op)(MPIR_HANDLE_KIND_OP | (USER_BASE + idx));
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    MPIR_CHECK_INIT("MPI_Op_create");
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    MPIR_CHECK_INIT("MPI_Op_create_c");
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    MPIR_CHECK_INIT("MPI_Op_free");
    user_op_t *u = op ? live_op(*op) : NULL;
    if (!u)
        return MPIR_Err_return(NULL, "MPI_Op_free",
                               MPIR_Err_create(MPI_ERR_OP,
                                               "%#x is not an operation made by MPI_Op_create",
                                               op ? (unsigned)*op : 0u));
    /* A nonblocking or persistent collective that names it keeps it until it is freed. */
    u->freed = 1;
    op_drop(*op, u);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    MPIR_CHECK_INIT("MPI_Op_commutative");
    int err = MPI_SUCCESS;
    if (!commute)
        err = MPIR_Err_create(MPI_ERR_ARG, "commute is NULL");
    else if (!live_op(op) && !(op >= MPI_MAX && op <= MPI_NO_OP)) /* predefined: consecutive */
        err = MPIR_Err_create(MPI_ERR_OP, "Invalid operation %#x", (unsigned)op);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Op_commutative", err);
    *commute = MPIR_Op_commutes(op);
    return MPI_SUCCESS;
}

void MPIR_Op_finalize(void)
{
    for (int i = 0; i < user_ops_used; i++) {
        if (user_ops[i]) { /* writing every slot would fault in the table's pages */
            free(user_ops[i]);
            user_ops[i] = NULL;
        }
    }
    user_ops_used = 0;
}
