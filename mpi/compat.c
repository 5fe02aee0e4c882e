/* compat.c: MPI-1 names that MPI-3 removed but programs still call (MPI_Type_hvector ...),
 * handle conversion to and from Fortran integers, and MPI_Get_library_version. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "mpiimpl.h"
#include "fortran/fortran.h"

/* ---- MPI-1 names: the MPI-2 function of the same meaning ---- */

#pragma weak MPI_Type_hvector = PMPI_Type_hvector
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                     newtype);
}

#pragma weak MPI_Type_struct = PMPI_Type_struct
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}

#pragma weak MPI_Address = PMPI_Address
int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}

#pragma weak MPI_Type_extent = PMPI_Type_extent
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}

#pragma weak MPI_Type_lb = PMPI_Type_lb
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}

#pragma weak MPI_Type_ub = PMPI_Type_ub
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb;
    /* The extent lands in displacement, so a NULL one is MPI_Type_get_extent's error. */
    int err = PMPI_Type_get_extent(datatype, &lb, displacement);
    if (!err)
        *displacement += lb;
    return err;
}

#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}

#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

/* ---- Fortran handles: C handles are ints already, so they convert as
 * themselves (MPI-4.1 sec. 19.3.4). ---- */

#define MPIR_HANDLE_CONVERSIONS(NAME, TYPE)                                                        \
    MPI_Fint PMPI_##NAME##_c2f(TYPE h)                                                             \
    {                                                                                              \
        return (MPI_Fint)h;                                                                        \
    }                                                                                              \
    TYPE PMPI_##NAME##_f2c(MPI_Fint h)                                                             \
    {                                                                                              \
        return (TYPE)h;                                                                            \
    }                                                                                              \
    MPI_Fint MPI_##NAME##_c2f(TYPE h) __attribute__((weak, alias("PMPI_" #NAME "_c2f")));          \
    TYPE MPI_##NAME##_f2c(MPI_Fint h) __attribute__((weak, alias("PMPI_" #NAME "_f2c")));

MPIR_HANDLE_CONVERSIONS(Comm, MPI_Comm)
MPIR_HANDLE_CONVERSIONS(Type, MPI_Datatype)
MPIR_HANDLE_CONVERSIONS(Group, MPI_Group)
MPIR_HANDLE_CONVERSIONS(Request, MPI_Request)
MPIR_HANDLE_CONVERSIONS(Op, MPI_Op)
MPIR_HANDLE_CONVERSIONS(Info, MPI_Info)
MPIR_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
MPIR_HANDLE_CONVERSIONS(Message, MPI_Message)
MPIR_HANDLE_CONVERSIONS(Win, MPI_Win)
MPIR_HANDLE_CONVERSIONS(File, MPI_File)
MPIR_HANDLE_CONVERSIONS(Session, MPI_Session)

/* The Fortran programs' ignore constants are the addresses of mpif.h's common blocks
 * (f_sentinels.c); these pointers are initialized by the dynamic linker with the copy that the
 * program's Fortran code uses, so the sentinels are declared here and defined in another file
 * (mpi/fortran/fortran.h says why).  The two statuses have the same layout, so mpi_f08's
 * constants are the same addresses. */
MPI_Fint *const MPI_F_STATUS_IGNORE = ferry_status_ignore_;
MPI_Fint *const MPI_F_STATUSES_IGNORE = ferry_statuses_ignore_;
MPI_F08_status *const MPI_F08_STATUS_IGNORE = (MPI_F08_status *)ferry_status_ignore_;
MPI_F08_status *const MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)ferry_statuses_ignore_;

/* The four conversions between C's status and Fortran's (the INTEGER array and mpi_f08's
 * MPI_F08_status, which has its layout), each direction one body, named in its errors by the
 * call.  Converting an ignore constant, C's or Fortran's, is erroneous (MPI-4.1 sec. 19.3.5): an
 * error, not a read of the sentinel's zeros. */
static int c_status_ok(const MPI_Status *c)
{
    return c && c != MPI_STATUS_IGNORE && c != MPI_STATUSES_IGNORE;
}

static int f_status_ok(const void *f)
{
    return f && !ferry_f_status_ignored(f);
}

static int status_arg_error(const char *fname)
{
    return MPIR_Err_return(NULL, fname,
                           MPIR_Err_create(MPI_ERR_ARG, "a status is NULL or an ignore constant"));
}

/* The three public fields, then the byte count as its low and high 32 bits, then the cancelled
 * flag. */
static int status_to_f(const char *fname, const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!c_status_ok(c_status) || !f_status_ok(f_status))
        return status_arg_error(fname);
    uint64_t count = (uint64_t)c_status->count_bytes_;
    f_status[MPI_F_SOURCE] = c_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = c_status->MPI_TAG;
    f_status[MPI_F_ERROR] = c_status->MPI_ERROR;
    f_status[3] = (MPI_Fint)(uint32_t)count;
    f_status[4] = (MPI_Fint)(uint32_t)(count >> 32);
    f_status[5] = c_status->cancelled_;
    return MPI_SUCCESS;
}

static int status_from_f(const char *fname, const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!f_status_ok(f_status) || !c_status_ok(c_status))
        return status_arg_error(fname);
    c_status->MPI_SOURCE = f_status[MPI_F_SOURCE];
    c_status->MPI_TAG = f_status[MPI_F_TAG];
    c_status->MPI_ERROR = f_status[MPI_F_ERROR];
    c_status->count_bytes_ =
        (MPI_Count)((uint64_t)(uint32_t)f_status[3] | (uint64_t)(uint32_t)f_status[4] << 32);
    c_status->cancelled_ = f_status[5];
    return MPI_SUCCESS;
}

_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F08_status is the INTEGER status");

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return status_to_f("MPI_Status_c2f", c_status, f_status);
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return status_from_f("MPI_Status_f2c", f_status, c_status);
}

#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return status_to_f("MPI_Status_c2f08", c_status, (MPI_Fint *)f08_status);
}

#pragma weak MPI_Status_f082c = PMPI_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return status_from_f("MPI_Status_f082c", (const MPI_Fint *)f08_status, c_status);
}

/* MPI_Status_f2f08 and f082f: the same bytes either way. */
static int copy_status(const char *fname, const void *from, void *to)
{
    if (!f_status_ok(from) || !f_status_ok(to))
        return status_arg_error(fname);
    memcpy(to, from, sizeof(MPI_F08_status));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    return copy_status("MPI_Status_f2f08", f_status, f08_status);
}

#pragma weak MPI_Status_f082f = PMPI_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    return copy_status("MPI_Status_f082f", f08_status, f_status);
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPIR_Err_return(NULL, "MPI_Get_library_version",
                               MPIR_Err_create(MPI_ERR_ARG, "version or resultlen is NULL"));
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "Ferry %s (MPI %d.%d point-to-point; see doc/api.md for what is refused)",
             FERRY_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

/* ---- Small environment calls whose answer is fixed by what Ferry is ---- */

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* for profiling tools that wrap it; the library itself has no profiling */
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    MPIR_CHECK_INIT("MPI_Is_thread_main");
    if (!flag)
        return MPIR_Err_return(NULL, "MPI_Is_thread_main",
                               MPIR_Err_create(MPI_ERR_ARG, "flag is NULL"));
    *flag = MPIR_Is_thread_main();
    return MPI_SUCCESS;
}

/* No process is ever spawned, so there is no parent (MPI-4.1 sec. 11.8.2). */
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    MPIR_CHECK_INIT("MPI_Comm_get_parent");
    if (!parent)
        return MPIR_Err_return(NULL, "MPI_Comm_get_parent",
                               MPIR_Err_create(MPI_ERR_ARG, "parent is NULL"));
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* No communicator carries a topology (they are refused), so every one has
 * none. */
/* A balanced factorization of nnodes over the dimensions left 0 in dims,
 * in non-increasing order (MPI-4.1 sec. 8.5.2): the largest prime factors
 * go, one at a time, to the currently smallest free dimension. */
#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    MPIR_CHECK_INIT("MPI_Dims_create");
    int err = MPI_SUCCESS, fixed = 1, nfree = 0;
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid nnodes %d or ndims %d", nnodes, ndims);
    for (int i = 0; !err && i < ndims; i++) {
        if (dims[i] < 0)
            err = MPIR_Err_create(MPI_ERR_DIMS, "dims[%d] is negative (%d)", i, dims[i]);
        else if (dims[i] > 0)
            fixed *= dims[i];
        else
            nfree++;
    }
    if (!err && (nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes)))
        err = MPIR_Err_create(MPI_ERR_DIMS, "%d nodes cannot be split with the given dims", nnodes);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Dims_create", err);
    if (nfree == 0)
        return MPI_SUCCESS;
    int rest = nnodes / fixed, factors[64], nf = 0;
    for (int p = 2; rest > 1; p++) {
        while (rest % p == 0) {
            factors[nf++] = p;
            rest /= p;
        }
        if ((long)p * p > rest && rest > 1) {
            factors[nf++] = rest;
            rest = 1;
        }
    }
    int d[64];
    for (int i = 0; i < nfree; i++)
        d[i] = 1;
    for (int f = nf - 1; f >= 0; f--) { /* largest factor first */
        int lo = 0;
        for (int i = 1; i < nfree; i++)
            if (d[i] < d[lo])
                lo = i;
        d[lo] *= factors[f];
    }
    for (int i = 0; i < nfree; i++) /* non-increasing */
        for (int j = i + 1; j < nfree; j++)
            if (d[j] > d[i]) {
                int t = d[i];
                d[i] = d[j];
                d[j] = t;
            }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = d[k++];
    return MPI_SUCCESS;
}

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    MPIR_CHECK_INIT("MPI_Alloc_mem");
    (void)info;
    void *p = size >= 0 ? malloc(size > 0 ? (size_t)size : 1) : NULL;
    if (!p || !baseptr)
        return MPIR_Err_return(
            NULL, "MPI_Alloc_mem",
            MPIR_Err_create(MPI_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size));
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    MPIR_CHECK_INIT("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
