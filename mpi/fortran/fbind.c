/* fbind.c: the Fortran bindings maint/fortran-bindings cannot generate (its HAND list): calls
 * without arguments in Fortran, DOUBLE PRECISION results, arrays of statuses, 1-based indexes,
 * attribute values and Fortran callbacks (keyvals, generalized requests), the info calls and
 * Session_get_nth_pset, whose outputs have Fortran rules; and the string helpers of fortran.h.
 * Each pmpi_x_ calls PMPI_X; mpi_x_ is a weak alias, as in the generated file. */
#include <string.h>
#include "fortran.h"
#include "mpiimpl.h"

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

char *ferry_f_info_string_in(const char *f, size_t len)
{
    while (len > 0 && f[0] == ' ') {
        f++;
        len--;
    }
    return ferry_f_string_in(f, len);
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

/* ---- MPI_SIZEOF: the specifics of the module's generic, one per type and kind ----
 * X comes as gfortran's descriptor of an assumed-rank argument and is not read: the specific
 * the compiler chose says the size (a REAL(10) is C's long double, with its padding). */

#define FERRY_F_SIZEOF(name, bytes)                                                          \
    void name(void *x, MPI_Fint *size, MPI_Fint *ierr)                                       \
    {                                                                                        \
        (void)x;                                                                             \
        *size = (MPI_Fint)(bytes);                                                           \
        *ierr = MPI_SUCCESS;                                                                 \
    }
FERRY_F_SIZEOF(mpi_sizeof_integer1_, 1)
FERRY_F_SIZEOF(mpi_sizeof_integer2_, 2)
FERRY_F_SIZEOF(mpi_sizeof_integer4_, 4)
FERRY_F_SIZEOF(mpi_sizeof_integer8_, 8)
FERRY_F_SIZEOF(mpi_sizeof_integer16_, 16)
FERRY_F_SIZEOF(mpi_sizeof_real4_, 4)
FERRY_F_SIZEOF(mpi_sizeof_real8_, 8)
FERRY_F_SIZEOF(mpi_sizeof_real10_, sizeof(long double))
FERRY_F_SIZEOF(mpi_sizeof_real16_, 16)
FERRY_F_SIZEOF(mpi_sizeof_complex4_, 8)
FERRY_F_SIZEOF(mpi_sizeof_complex8_, 16)
FERRY_F_SIZEOF(mpi_sizeof_complex10_, 2 * sizeof(long double))
FERRY_F_SIZEOF(mpi_sizeof_complex16_, 32)
FERRY_F_SIZEOF(mpi_sizeof_logical1_, 1)
FERRY_F_SIZEOF(mpi_sizeof_logical2_, 2)
FERRY_F_SIZEOF(mpi_sizeof_logical4_, 4)
FERRY_F_SIZEOF(mpi_sizeof_logical8_, 8)

/* ---- completion: arrays of statuses and 1-based indexes ---- */

/* C statuses for the Fortran array f of n statuses: MPI_STATUSES_IGNORE, c (when n is small) or
 * a malloc'd array; NULL when memory ran out. */
enum { STATUSES_ON_STACK = 16 };
static MPI_Status *statuses_in(MPI_Fint *f, int n, MPI_Status *c)
{
    if (ferry_f_status_ignored(f))
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

/* Testall and MPI-4.1's Request_get_status_all: the statuses when *flag. */
typedef int (*all_fn)(int, MPI_Request[], int *, MPI_Status[]);
static void all(all_fn fn, MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                MPI_Fint *statuses, MPI_Fint *ierr)
{
    MPI_Status on_stack[STATUSES_ON_STACK], *c = statuses_in(statuses, *count, on_stack);
    if (!c) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = fn(*count, requests, flag, c);
    statuses_out(c, on_stack, statuses, *flag ? *count : 0);
}

/* The MPI-4.1 calls take their requests const: as the others' types for all() and some(). */
static int get_status_all(int n, MPI_Request r[], int *flag, MPI_Status s[])
{
    return PMPI_Request_get_status_all(n, r, flag, s);
}

static int get_status_some(int n, MPI_Request r[], int *outcount, int indices[], MPI_Status s[])
{
    return PMPI_Request_get_status_some(n, r, outcount, indices, s);
}

void pmpi_testall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                   MPI_Fint *ierr)
{
    all(PMPI_Testall, count, requests, flag, statuses, ierr);
}
#pragma weak mpi_testall_ = pmpi_testall_

void pmpi_request_get_status_all_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                                  MPI_Fint *statuses, MPI_Fint *ierr)
{
    all(get_status_all, count, requests, flag, statuses, ierr);
}
#pragma weak mpi_request_get_status_all_ = pmpi_request_get_status_all_

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

void pmpi_request_get_status_any_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                  MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c_status, *p_status = ferry_f_status_in(status, &c_status);
    *ierr = PMPI_Request_get_status_any(*count, requests, index, flag, p_status);
    ferry_f_status_out(p_status, status);
    index_out(index);
}
#pragma weak mpi_request_get_status_any_ = pmpi_request_get_status_any_

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

void pmpi_request_get_status_some_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    some(get_status_some, incount, requests, outcount, indices, statuses, ierr);
}
#pragma weak mpi_request_get_status_some_ = pmpi_request_get_status_some_

/* ---- attributes: integer values ---- */

/* mpi/attr.c keeps the form a value was set in, for C's get (MPI-4.1 sec. 19.3.7): C reading a
 * value set here gets a pointer to it; Fortran reading what C set gets the address. */
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                         MPI_Fint *ierr)
{
    *ierr = MPIR_Attr_get_fortran("MPI_Comm_get_attr", MPIR_ATTR_COMM, *comm, *keyval, value, flag);
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_

void pmpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                         MPI_Fint *ierr)
{
    *ierr = MPIR_Attr_get_fortran("MPI_Type_get_attr", MPIR_ATTR_TYPE, *type, *keyval, value, flag);
}
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_

void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
    *ierr = MPIR_Attr_set_fortran("MPI_Comm_set_attr", MPIR_ATTR_COMM, *comm, *keyval, *value,
                                  MPIR_ATTR_AINT);
}
#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_

void pmpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
    *ierr = MPIR_Attr_set_fortran("MPI_Type_set_attr", MPIR_ATTR_TYPE, *type, *keyval, *value,
                                  MPIR_ATTR_AINT);
}
#pragma weak mpi_type_set_attr_ = pmpi_type_set_attr_

/* MPI-1's INTEGER values: stored sign-extended; a wider value comes back cut to its low bits
 * (MPI-4.1 sec. 19.3.7). */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierr)
{
    *ierr = MPIR_Attr_set_fortran("MPI_Attr_put", MPIR_ATTR_COMM, *comm, *keyval, *value,
                                  MPIR_ATTR_INT);
}
#pragma weak mpi_attr_put_ = pmpi_attr_put_

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
                    MPI_Fint *ierr)
{
    MPI_Aint v;
    *ierr = MPIR_Attr_get_fortran("MPI_Attr_get", MPIR_ATTR_COMM, *comm, *keyval, &v, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = (MPI_Fint)v;
}
#pragma weak mpi_attr_get_ = pmpi_attr_get_

/* ---- keyvals: Fortran copy and delete callbacks ---- */

/* Fortran's callbacks take every argument by reference and attribute values as
 * INTEGER(KIND=MPI_ADDRESS_KIND) (MPI_COMM_CREATE_KEYVAL, MPI_TYPE_CREATE_KEYVAL) or, MPI-1's
 * (MPI_KEYVAL_CREATE), as INTEGER with an INTEGER extra state, so C calls them through these
 * trampolines; the keyval's extra_state is a record of the two and the program's extra state.
 * The record stays until the process ends (a few bytes per keyval: C frees a keyval only once no
 * attribute uses it, and does not say when). Communicator and datatype callbacks have one form
 * here: both handles are ints. */
typedef void f_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                       MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state,
                         MPI_Fint *ierr);
typedef void f_int_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *in,
                           MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_int_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *value,
                             MPI_Fint *extra_state, MPI_Fint *ierr);
struct f_keyval {
    f_copy_fn *copy; /* address-sized values */
    f_delete_fn *del;
    MPI_Aint extra_state;
    f_int_copy_fn *int_copy; /* MPI-1's INTEGER values */
    f_int_delete_fn *int_del;
    MPI_Fint int_extra_state;
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

/* MPI-1's: the value's low bits in, the INTEGER out sign-extended (as MPI_ATTR_PUT stores it). */
static int int_copy_trampoline(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_keyval *k = extra;
    MPI_Fint f_flag = 0, ierr = MPI_SUCCESS;
    MPI_Fint v_in = (MPI_Fint)(MPI_Aint)in, v_out = 0;
    k->int_copy(&old, &keyval, &k->int_extra_state, &v_in, &v_out, &f_flag, &ierr);
    *flag = f_flag != 0;
    if (*flag)
        *(void **)out = (void *)(MPI_Aint)v_out;
    return ierr;
}

static int int_delete_trampoline(int obj, int keyval, void *value, void *extra)
{
    struct f_keyval *k = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    MPI_Fint v = (MPI_Fint)(MPI_Aint)value;
    k->int_del(&obj, &keyval, &v, &k->int_extra_state, &ierr);
    return ierr;
}

/* The C keyval constructors have this type: communicator and datatype handles are ints. */
typedef int create_keyval_fn(MPI_Comm_copy_attr_function *, MPI_Comm_delete_attr_function *, int *,
                             void *);
/* Makes the keyval with record (copied) as the extra state of the trampolines. */
static void create_keyval(create_keyval_fn *create, MPI_Comm_copy_attr_function *copy,
                          MPI_Comm_delete_attr_function *del, struct f_keyval record,
                          MPI_Fint *keyval, MPI_Fint *ierr)
{
    struct f_keyval *k = malloc(sizeof *k);
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *k = record;
    *ierr = create(copy, del, keyval, k);
}

void pmpi_comm_create_keyval_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,
                              MPI_Aint *extra_state, MPI_Fint *ierr)
{
    struct f_keyval r = {.copy = copy, .del = del, .extra_state = *extra_state};
    create_keyval(PMPI_Comm_create_keyval, copy_trampoline, delete_trampoline, r, keyval, ierr);
}
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_

void pmpi_type_create_keyval_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,
                              MPI_Aint *extra_state, MPI_Fint *ierr)
{
    struct f_keyval r = {.copy = copy, .del = del, .extra_state = *extra_state};
    create_keyval(PMPI_Type_create_keyval, copy_trampoline, delete_trampoline, r, keyval, ierr);
}
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_

void pmpi_keyval_create_(f_int_copy_fn *copy, f_int_delete_fn *del, MPI_Fint *keyval,
                         MPI_Fint *extra_state, MPI_Fint *ierr)
{
    struct f_keyval r = {.int_copy = copy, .int_del = del, .int_extra_state = *extra_state};
    create_keyval(PMPI_Keyval_create, int_copy_trampoline, int_delete_trampoline, r, keyval, ierr);
}
#pragma weak mpi_keyval_create_ = pmpi_keyval_create_

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

/* MPI-1's, for MPI_KEYVAL_CREATE: INTEGER values.  The null ones touch no value: the same code. */
#pragma weak mpi_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_null_delete_fn_ = mpi_comm_null_delete_fn_
void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *in,
                 MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}

/* ---- generalized requests: Fortran query, free and cancel callbacks ---- */

/* As the keyvals' callbacks: by reference, the extra state INTEGER(KIND=MPI_ADDRESS_KIND), the
 * status a Fortran one, COMPLETE a LOGICAL.  The extra state they get is the program's
 * EXTRA_STATE variable itself, as MPICH and Open MPI pass it (MPICH's greqf test counts on a
 * change made by the free callback); the record goes with the free callback, which the request
 * calls once (Fortran cannot pass a null one). */
typedef void f_query_fn(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_free_fn(MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void f_cancel_fn(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierr);
struct f_greq {
    f_query_fn *query;
    f_free_fn *free;
    f_cancel_fn *cancel;
    MPI_Aint *extra_state;
};

static int greq_query_trampoline(void *extra, MPI_Status *status)
{
    struct f_greq *g = extra;
    MPI_Fint f_status[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
    PMPI_Status_c2f(status, f_status);
    g->query(g->extra_state, f_status, &ierr);
    PMPI_Status_f2c(f_status, status);
    return ierr;
}

static int greq_free_trampoline(void *extra)
{
    struct f_greq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra_state, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel_trampoline(void *extra, int complete)
{
    struct f_greq *g = extra;
    MPI_Fint f_complete = complete != 0, ierr = MPI_SUCCESS;
    g->cancel(g->extra_state, &f_complete, &ierr);
    return ierr;
}

void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                          MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_greq *g = malloc(sizeof *g);
    if (!g) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *g = (struct f_greq){
        .query = query, .free = free_fn, .cancel = cancel, .extra_state = extra_state};
    *ierr = PMPI_Grequest_start(greq_query_trampoline, greq_free_trampoline, greq_cancel_trampoline,
                                g, request);
    if (*ierr != MPI_SUCCESS)
        free(g);
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_

/* ---- info: Fortran's strings ---- */

/* MPI_INFO_CREATE_ENV(INFO, IERROR): Fortran has no argc and argv to give. */
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = PMPI_Info_create_env(0, NULL, info);
}
#pragma weak mpi_info_create_env_ = pmpi_info_create_env_

/* VALUE is left as it is when the key is absent. */
void pmpi_info_get_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value,
                    MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char *s_key = ferry_f_info_string_in(key, key_len);
    char *s_value = ferry_f_string_buf(value_len);
    if (!s_key || !s_value)
        *ierr = MPI_ERR_NO_MEM;
    else
        *ierr = PMPI_Info_get(*info, s_key, *valuelen, s_value, flag);
    if (s_key && s_value && *ierr == MPI_SUCCESS && *flag)
        ferry_f_string_out(s_value, value, value_len);
    free(s_key);
    free(s_value);
}
#pragma weak mpi_info_get_ = pmpi_info_get_

/* Fortran's BUFLEN counts characters, with no terminator: in, how many to write (0: none);
 * out, the value's length.  The value is cut at BUFLEN and at VALUE's length, then padded with
 * blanks; VALUE is left as it is when the key is absent or BUFLEN is 0. */
void pmpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value,
                           MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char *s_key = ferry_f_info_string_in(key, key_len);
    char *s_value = calloc(MPI_MAX_INFO_VAL + 1, 1); /* any value fits */
    /* A negative BUFLEN: C's call says what is wrong. */
    int c_buflen = *buflen < 0 ? *buflen : MPI_MAX_INFO_VAL + 1;
    if (!s_key || !s_value)
        *ierr = MPI_ERR_NO_MEM;
    else
        *ierr = PMPI_Info_get_string(*info, s_key, &c_buflen, s_value, flag);
    if (s_key && s_value && *ierr == MPI_SUCCESS && *flag) {
        if (*buflen > 0) {
            if (*buflen <= MPI_MAX_INFO_VAL)
                s_value[*buflen] = '\0';
            ferry_f_string_out(s_value, value, value_len);
        }
        *buflen = c_buflen - 1; /* C's counts the terminator */
    }
    free(s_key);
    free(s_value);
}
#pragma weak mpi_info_get_string_ = pmpi_info_get_string_

/* ---- sessions: Fortran's strings ---- */

/* As BUFLEN above, PSET_LEN counts characters, with no terminator (MPI-4.1 sec. 11.3.2 counts
 * the terminator in C only): in, how many to write; out, the name's length.  PSET_LEN 0 leaves
 * PSET_NAME as it is ("not changed"), so a program may ask the length with a name that has no
 * storage yet (ompi-tests-public's sessions_ex3 passes an unallocated one); else the name is
 * cut at PSET_LEN and at PSET_NAME's length, then padded with blanks. */
void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n,
                                MPI_Fint *pset_len, char *pset_name, MPI_Fint *ierr,
                                size_t pset_name_len)
{
    char s_name[MPI_MAX_PSET_NAME_LEN + 1]; /* any name fits */
    /* A negative PSET_LEN: C's call says what is wrong. */
    int c_len = *pset_len < 0 ? *pset_len : (int)sizeof s_name;
    *ierr = PMPI_Session_get_nth_pset(*session, *info, *n, &c_len, s_name);
    if (*ierr != MPI_SUCCESS)
        return;
    if (*pset_len > 0) {
        if (*pset_len < (int)sizeof s_name)
            s_name[*pset_len] = '\0';
        ferry_f_string_out(s_name, pset_name, pset_name_len);
    }
    *pset_len = c_len - 1; /* C's counts the terminator */
}
#pragma weak mpi_session_get_nth_pset_ = pmpi_session_get_nth_pset_

/* ---- statuses: TYPE(MPI_Status) and the INTEGER array ---- */

/* MPI_STATUS_F082F and MPI_STATUS_F2F08 of "use mpi" (MPI-4.1 sec. 19.3.5; the mpi_f08 module
 * copies in Fortran): TYPE(MPI_Status) is bind(C) with the INTEGER status's layout
 * (MPI_F08_status in mpi.h), so the conversion is a copy. */
void pmpi_status_f082f_(const MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierr)
{
    *ierr = PMPI_Status_f082f((const MPI_F08_status *)f08_status, f_status);
}
#pragma weak mpi_status_f082f_ = pmpi_status_f082f_

void pmpi_status_f2f08_(const MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierr)
{
    *ierr = PMPI_Status_f2f08(f_status, (MPI_F08_status *)f08_status);
}
#pragma weak mpi_status_f2f08_ = pmpi_status_f2f08_
