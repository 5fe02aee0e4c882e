/* compat.c: MPI-1 names that MPI-3 removed but programs still call (MPI_Type_hvector ...),
 * handle conversion to and from Fortran integers, and MPI_Get_library_version. */
#include <stdio.h>
#include <string.h>
#include "mpiimpl.h"

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
    MPI_Aint lb, extent;
    int err = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (!err)
        *displacement = lb + extent;
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
