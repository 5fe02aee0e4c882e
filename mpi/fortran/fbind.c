/* fbind.c: the Fortran bindings maint/fortran-bindings cannot generate (its HAND list): calls
 * without arguments in Fortran, DOUBLE PRECISION results, arrays of statuses, 1-based indexes,
 * attribute values as INTEGER(KIND=MPI_ADDRESS_KIND); and the string helpers of fortran.h.
 * Each pmpi_x_ calls PMPI_X; mpi_x_ is a weak alias, as in the generated file. */
#include <string.h>
#include "fortran.h"

char *ferry_f_string_in(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = '\0';
    }
    return c;
}

char *ferry_f_string_buf(size_t len)
{
    /* MPI_MAX_INFO_VAL is the longest MPI_MAX_ length: a call that writes up to one of them
     * whatever the Fortran length is cannot overrun. */
    return calloc(len + MPI_MAX_INFO_VAL + 1, 1);
}

void ferry_f_string_out(const char *c, char *f, size_t len)
{
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

MPI_Aint *ferry_f_aints_in(const MPI_Fint *f, int n)
{
    MPI_Aint *a = malloc((n > 0 ? (size_t)n : 1) * sizeof *a);
    for (int i = 0; a && i < n; i++)
        a[i] = f[i];
    return a;
}

void ferry_f_aint_out(MPI_Aint a, MPI_Fint *f, MPI_Fint *ierr)
{
    *f = (MPI_Fint)a;
    if (*ierr == MPI_SUCCESS && *f != a)
        *ierr = MPI_ERR_ARG;
}

/* ---- environment ---- */

void pmpi_init_(MPI_Fint *ierr)
{
    *ierr = PMPI_Init(NULL, NULL);
}
#pragma weak mpi_init_ = pmpi_init_

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    *ierr = PMPI_Init_thread(NULL, NULL, *required, provided);
}
#pragma weak mpi_init_thread_ = pmpi_init_thread_

double pmpi_wtime_(void)
{
    return PMPI_Wtime();
}
#pragma weak mpi_wtime_ = pmpi_wtime_

double pmpi_wtick_(void)
{
    return PMPI_Wtick();
}
#pragma weak mpi_wtick_ = pmpi_wtick_

/* MPI_PCONTROL(LEVEL) has no IERROR. */
void pmpi_pcontrol_(MPI_Fint *level)
{
    PMPI_Pcontrol(*level);
}
#pragma weak mpi_pcontrol_ = pmpi_pcontrol_

/* The buffer's address has no Fortran form: BUFFER_ADDR is left alone. */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
    void *addr;
    *ierr = PMPI_Buffer_detach(&addr, size);
}
#pragma weak mpi_buffer_detach_ = pmpi_buffer_detach_

/* ---- completion: arrays of statuses and 1-based indexes ---- */

/* C statuses for the Fortran array f of n statuses: MPI_STATUSES_IGNORE, c (when n is small) or
 * a malloc'd array; NULL when memory ran out. */
enum { STATUSES_ON_STACK = 16 };
static MPI_Status *statuses_in(MPI_Fint *f, int n, MPI_Status *c)
{
    if (f == ferry_statuses_ignore_ || f == ferry_status_ignore_)
        return MPI_STATUSES_IGNORE;
    if (n <= STATUSES_ON_STACK)
        return c;
    return malloc((size_t)n * sizeof(MPI_Status));
}

/* Copies statuses c[index[i]] (c[i] when index is NULL) for i < n into the Fortran array at the
 * same positions, then frees c if statuses_in allocated it. */
static void statuses_out(MPI_Status *c, MPI_Status *on_stack, MPI_Fint *f, int n)
{
    if (c == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        PMPI_Status_c2f(&c[i], f + (size_t)i * MPI_F_STATUS_SIZE);
    if (c != on_stack)
        free(c);
}

/* Fortran counts requests from 1. */
static void index_out(MPI_Fint *index)
{
    if (*index != MPI_UNDEFINED)
        (*index)++;
}

void pmpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status on_stack[STATUSES_ON_STACK], *c = statuses_in(statuses, *count, on_stack);
    if (!c) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = PMPI_Waitall(*count, requests, c);
    statuses_out(c, on_stack, statuses, *count);
}
#pragma weak mpi_waitall_ = pmpi_waitall_

void pmpi_testall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                   MPI_Fint *ierr)
{
    MPI_Status on_stack[STATUSES_ON_STACK], *c = statuses_in(statuses, *count, on_stack);
    if (!c) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = PMPI_Testall(*count, requests, flag, c);
    statuses_out(c, on_stack, statuses, *flag ? *count : 0);
}
#pragma weak mpi_testall_ = pmpi_testall_

void pmpi_waitany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                   MPI_Fint *ierr)
{
    MPI_Status c_status, *p_status = ferry_f_status_in(status, &c_status);
    *ierr = PMPI_Waitany(*count, requests, index, p_status);
    ferry_f_status_out(p_status, status);
    index_out(index);
}
#pragma weak mpi_waitany_ = pmpi_waitany_

void pmpi_testany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                   MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c_status, *p_status = ferry_f_status_in(status, &c_status);
    *ierr = PMPI_Testany(*count, requests, index, flag, p_status);
    ferry_f_status_out(p_status, status);
    index_out(index);
}
#pragma weak mpi_testany_ = pmpi_testany_

/* Waitsome and Testsome: outcount statuses and indexes. */
typedef int (*some_fn)(int, MPI_Request[], int *, int[], MPI_Status[]);
static void some(some_fn fn, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                 MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status on_stack[STATUSES_ON_STACK], *c = statuses_in(statuses, *incount, on_stack);
    if (!c) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = fn(*incount, requests, outcount, indices, c);
    int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    statuses_out(c, on_stack, statuses, n);
    for (int i = 0; i < n; i++)
        index_out(&indices[i]);
}

void pmpi_waitsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                    MPI_Fint *statuses, MPI_Fint *ierr)
{
    some(PMPI_Waitsome, incount, requests, outcount, indices, statuses, ierr);
}
#pragma weak mpi_waitsome_ = pmpi_waitsome_

void pmpi_testsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                    MPI_Fint *statuses, MPI_Fint *ierr)
{
    some(PMPI_Testsome, incount, requests, outcount, indices, statuses, ierr);
}
#pragma weak mpi_testsome_ = pmpi_testsome_

/* ---- attributes: INTEGER(KIND=MPI_ADDRESS_KIND) values ---- */

/* C stores a Fortran value as the pointer itself; the predefined attributes of MPI_COMM_WORLD
 * (MPI_TAG_UB ...) are pointers to ints in C, and their values in Fortran. */
static int predefined_keyval(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM ||
           keyval == MPI_LASTUSEDCODE;
}

typedef int (*get_attr_fn)(int, int, void *, int *);
static void get_attr(get_attr_fn fn, MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value,
                     MPI_Fint *flag, MPI_Fint *ierr)
{
    void *v = NULL;
    *ierr = fn(*obj, *keyval, &v, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = predefined_keyval(*keyval) ? *(int *)v : (MPI_Aint)v;
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                         MPI_Fint *ierr)
{
    get_attr(PMPI_Comm_get_attr, comm, keyval, value, flag, ierr);
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_

void pmpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                         MPI_Fint *ierr)
{
    get_attr(PMPI_Type_get_attr, type, keyval, value, flag, ierr);
}
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_

void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
    *ierr = PMPI_Comm_set_attr(*comm, *keyval, (void *)*value);
}
#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_

void pmpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
    *ierr = PMPI_Type_set_attr(*type, *keyval, (void *)*value);
}
#pragma weak mpi_type_set_attr_ = pmpi_type_set_attr_

/* ---- keyvals: Fortran copy and delete callbacks ---- */

/* Fortran's callbacks take every argument by reference and attribute values as
 * INTEGER(KIND=MPI_ADDRESS_KIND), so C calls them through these trampolines; the keyval's
 * extra_state is a record of the two and the program's extra state.  The record stays until the
 * process ends (a few bytes per keyval: C frees a keyval only once no attribute uses it, and
 * does not say when). Communicator and datatype callbacks have one form here: both handles are
 * ints. */
typedef void f_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                       MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state,
                         MPI_Fint *ierr);
struct f_keyval {
    f_copy_fn *copy;
    f_delete_fn *del;
    MPI_Aint extra_state;
};

static int copy_trampoline(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_keyval *k = extra;
    MPI_Fint f_flag = 0, ierr = MPI_SUCCESS;
    MPI_Aint v_in = (MPI_Aint)in, v_out = 0;
    k->copy(&old, &keyval, &k->extra_state, &v_in, &v_out, &f_flag, &ierr);
    *flag = f_flag != 0;
    if (*flag)
        *(void **)out = (void *)v_out;
    return ierr;
}

static int delete_trampoline(int obj, int keyval, void *value, void *extra)
{
    struct f_keyval *k = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    MPI_Aint v = (MPI_Aint)value;
    k->del(&obj, &keyval, &v, &k->extra_state, &ierr);
    return ierr;
}

/* Both C keyval constructors have this type: communicator and datatype handles are ints. */
typedef int create_keyval_fn(MPI_Comm_copy_attr_function *, MPI_Comm_delete_attr_function *, int *,
                             void *);
static void create_keyval(create_keyval_fn *create, f_copy_fn *copy, f_delete_fn *del,
                          MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
    struct f_keyval *k = malloc(sizeof *k);
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *k = (struct f_keyval){.copy = copy, .del = del, .extra_state = *extra_state};
    *ierr = create(copy_trampoline, delete_trampoline, keyval, k);
}

void pmpi_comm_create_keyval_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,
                              MPI_Aint *extra_state, MPI_Fint *ierr)
{
    create_keyval(PMPI_Comm_create_keyval, copy, del, keyval, extra_state, ierr);
}
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_

void pmpi_type_create_keyval_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,
                              MPI_Aint *extra_state, MPI_Fint *ierr)
{
    create_keyval(PMPI_Type_create_keyval, copy, del, keyval, extra_state, ierr);
}
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_

/* The predefined callbacks, as Fortran procedures (mpif.h declares them EXTERNAL). */
void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *flag = 0;
    *ierr = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                      MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value,
                              MPI_Aint *extra_state, MPI_Fint *ierr)
{
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_type_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_type_dup_fn_ = mpi_comm_dup_fn_
#pragma weak mpi_type_null_delete_fn_ = mpi_comm_null_delete_fn_
