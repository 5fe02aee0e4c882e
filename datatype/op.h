/* op.h: kernels of the predefined reduction operations (MPI_SUM ...), used by
 * MPI_Reduce / MPI_Allreduce and any later accumulate.
 *
 * Which (op, type) pairs are defined follows the table of MPI-3.1/4.0 section
 * "Predefined Reduction Operations":
 *
 *   MPI_MAX, MPI_MIN        C and Fortran integer, floating point, multi-language types
 *   MPI_SUM, MPI_PROD       C and Fortran integer, floating point, complex, multi-language
 *   MPI_LAND, MPI_LOR,
 *   MPI_LXOR                C integer, logical (MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL)
 *   MPI_BAND, MPI_BOR,
 *   MPI_BXOR                C and Fortran integer, byte, multi-language types
 *   MPI_MAXLOC, MPI_MINLOC  the pair types MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT, MPI_2INTEGER,
 *                           MPI_2REAL, MPI_2DOUBLE_PRECISION
 *   MPI_REPLACE, MPI_NO_OP  every predefined type except MPI_PACKED, MPI_LB, MPI_UB
 *
 * C integer: MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, the (unsigned) short, int,
 * long and long long types and MPI_INT8_T .. MPI_UINT64_T.  Fortran integer: MPI_INTEGER,
 * MPI_INTEGER1 .. 16.  Multi-language: MPI_AINT, MPI_OFFSET, MPI_COUNT.  Floating point:
 * MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4 .. 16.
 * Complex: the MPI_C_*_COMPLEX and MPI_CXX_*_COMPLEX types, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
 * MPI_COMPLEX8 .. 32.  MPI_CHARACTER, like MPI_WCHAR, takes no reduction.  The 16-byte
 * Fortran kinds take their reductions only where the compiler has the C types below.
 *
 * Two extensions, shared with MPICH and Open MPI: MPI_CHAR counts as a C
 * integer, and the multi-language types take the logical operations too
 * (MPICH's coll/allred test applies them; both libraries accept them).  MPI_WCHAR (a character type) has no reduction, as in the standard
 * and in both of those libraries; it takes MPI_REPLACE and MPI_NO_OP only.
 * MPI_PACKED takes no operation at all, nor do MPI-1's MPI_LB and MPI_UB (no data).
 *
 * Integer arithmetic wraps modulo 2^bits, for signed types too (the kernels
 * compute in the unsigned type, so overflow is never undefined behaviour).
 * Floating MAX/MIN are (a > b ? a : b): with a NaN the result is one operand.
 * Complex PROD uses the textbook formula (as gcc's -fcx-limited-range), not
 * Annex G's recovery of infinities, so that the loop vectorises.
 */
#ifndef FERRY_OP_H_INCLUDED
#define FERRY_OP_H_INCLUDED

#include "mpi.h"

/* The C types of Fortran's 16-byte kinds: MPI_INTEGER16 (__int128), MPI_REAL16 (_Float128, IEEE
 * binary128) and MPI_COMPLEX32 (two of them).  Where the compiler lacks one, the type is 16
 * bytes of data that no reduction but MPI_REPLACE and MPI_NO_OP takes. */
#ifdef __SIZEOF_INT128__
#define MPIR_HAVE_INT128 1
__extension__ typedef __int128 MPIR_int128_t;
#else
typedef struct {
    _Alignas(16) unsigned char bytes[16];
} MPIR_int128_t;
#endif
#ifdef __FLT128_MAX__
#define MPIR_HAVE_FLOAT128 1
typedef _Float128 MPIR_float128_t;
#else
typedef struct {
    _Alignas(16) unsigned char bytes[16];
} MPIR_float128_t;
#endif
typedef struct {
    MPIR_float128_t re, im;
} MPIR_complex128_t;

/* Is `op` defined on `type`?  Returns MPI_SUCCESS; MPI_ERR_TYPE when `type` is
 * not a predefined datatype handle (checked first; derived types must be
 * reduced through their basic type by the caller); MPI_ERR_OP when `op` is not
 * a predefined op handle (MPI_OP_NULL included) or is not defined on `type`. */
int MPIR_Op_check(MPI_Op op, MPI_Datatype type);

/* inout[i] = in[i] op inout[i] for i in [0, count).  MAXLOC / MINLOC compare
 * the values and keep the lower index on a tie.  MPI_REPLACE copies `in` to
 * `inout`; MPI_NO_OP leaves `inout` alone.
 * Preconditions: MPIR_Op_check(op, type) == MPI_SUCCESS (an undefined pair
 * fails an assertion); both buffers aligned for the type; `in` and `inout` do
 * not overlap (the kernels are compiled as restrict loops; only MPI_REPLACE
 * and MPI_NO_OP accept overlapping buffers). */
void MPIR_Op_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Aint count);

#endif /* FERRY_OP_H_INCLUDED */
