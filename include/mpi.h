/* mpi.h: the public interface of Ferry's mini-MPI (the tier-A subset of MPI). */
#ifndef MPI_H_INCLUDED
#define MPI_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only the subset of MPI-1 point-to-point, environment and two reductions is
 * implemented, so we do not claim a later standard version. */
#define MPI_VERSION 1
#define MPI_SUBVERSION 0
#define FERRY_VERSION "0.1"

/* Handles are ints with the object kind in the top bits (as in MPICH), so a
 * handle of the wrong kind is caught by argument checking. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    /* implementation fields: bytes received and whether it was cancelled */
    MPI_Count count_bytes_;
    int cancelled_;
} MPI_Status;

#define MPIR_HANDLE_KIND_COMM 0x44000000
#define MPIR_HANDLE_KIND_DATATYPE 0x4c000000
#define MPIR_HANDLE_KIND_REQUEST 0x2c000000
#define MPIR_HANDLE_KIND_OP 0x58000000
#define MPIR_HANDLE_KIND_ERRHANDLER 0x54000000

#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)(MPIR_HANDLE_KIND_COMM | 0))
#define MPI_COMM_SELF ((MPI_Comm)(MPIR_HANDLE_KIND_COMM | 1))

#define MPI_REQUEST_NULL ((MPI_Request)MPIR_HANDLE_KIND_REQUEST) /* live requests have index >= 1 */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)

/* Predefined datatypes: index into the builtin table (datatype/builtin.c). */
#define MPIR_DT(i) ((MPI_Datatype)(MPIR_HANDLE_KIND_DATATYPE | (i)))
#define MPI_CHAR MPIR_DT(1)
#define MPI_SIGNED_CHAR MPIR_DT(2)
#define MPI_UNSIGNED_CHAR MPIR_DT(3)
#define MPI_BYTE MPIR_DT(4)
#define MPI_WCHAR MPIR_DT(5)
#define MPI_SHORT MPIR_DT(6)
#define MPI_UNSIGNED_SHORT MPIR_DT(7)
#define MPI_INT MPIR_DT(8)
#define MPI_UNSIGNED MPIR_DT(9)
#define MPI_LONG MPIR_DT(10)
#define MPI_UNSIGNED_LONG MPIR_DT(11)
#define MPI_LONG_LONG_INT MPIR_DT(12)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG MPIR_DT(13)
#define MPI_FLOAT MPIR_DT(14)
#define MPI_DOUBLE MPIR_DT(15)
#define MPI_LONG_DOUBLE MPIR_DT(16)
#define MPI_C_BOOL MPIR_DT(17)
#define MPI_INT8_T MPIR_DT(18)
#define MPI_INT16_T MPIR_DT(19)
#define MPI_INT32_T MPIR_DT(20)
#define MPI_INT64_T MPIR_DT(21)
#define MPI_UINT8_T MPIR_DT(22)
#define MPI_UINT16_T MPIR_DT(23)
#define MPI_UINT32_T MPIR_DT(24)
#define MPI_UINT64_T MPIR_DT(25)
#define MPI_AINT MPIR_DT(26)
#define MPI_OFFSET MPIR_DT(27)
#define MPI_COUNT MPIR_DT(28)
#define MPI_C_FLOAT_COMPLEX MPIR_DT(29)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX MPIR_DT(30)
#define MPI_C_LONG_DOUBLE_COMPLEX MPIR_DT(31)
#define MPI_PACKED MPIR_DT(32)
#define MPI_FLOAT_INT MPIR_DT(33)
#define MPI_DOUBLE_INT MPIR_DT(34)
#define MPI_LONG_INT MPIR_DT(35)
#define MPI_2INT MPIR_DT(36)
#define MPI_SHORT_INT MPIR_DT(37)
#define MPI_LONG_DOUBLE_INT MPIR_DT(38)
#define MPIR_DT_BUILTIN_COUNT 39

/* Predefined reduction operations. */
#define MPIR_OPH(i) ((MPI_Op)(MPIR_HANDLE_KIND_OP | (i)))
#define MPI_MAX MPIR_OPH(1)
#define MPI_MIN MPIR_OPH(2)
#define MPI_SUM MPIR_OPH(3)
#define MPI_PROD MPIR_OPH(4)
#define MPI_LAND MPIR_OPH(5)
#define MPI_BAND MPIR_OPH(6)
#define MPI_LOR MPIR_OPH(7)
#define MPI_BOR MPIR_OPH(8)
#define MPI_LXOR MPIR_OPH(9)
#define MPI_BXOR MPIR_OPH(10)
#define MPI_MINLOC MPIR_OPH(11)
#define MPI_MAXLOC MPIR_OPH(12)
#define MPI_REPLACE MPIR_OPH(13)
#define MPI_NO_OP MPIR_OPH(14)

#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)(MPIR_HANDLE_KIND_ERRHANDLER | 0))
#define MPI_ERRORS_RETURN ((MPI_Errhandler)(MPIR_HANDLE_KIND_ERRHANDLER | 1))

#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)

#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128

/* Attribute keys (predefined on MPI_COMM_WORLD). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_APPNUM 0x6440000b

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Error classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_LASTCODE 0x3fffffff

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Query_thread(int *provided);

int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Error_string(int errorcode, char *string, int *resultlen);

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses);
int MPI_Waitany(int count, MPI_Request *array_of_requests, int *index, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request *array_of_requests, int *flag,
                MPI_Status *array_of_statuses);
int MPI_Request_free(MPI_Request *request);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Type_size(MPI_Datatype datatype, int *size);

int MPI_Barrier(MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);

/* ---- Derived datatypes and packing (datatype/, segment/, mpi/type.c, mpi/pack.c) ---- */

/* Combiners (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13

/* Array orders and distributions (subarray, darray). */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                               MPI_Count *true_extent);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                      MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size);

#ifdef __cplusplus
}
#endif

#endif /* MPI_H_INCLUDED */
