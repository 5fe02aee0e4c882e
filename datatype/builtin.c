/* builtin.c: the table of predefined datatypes with their standard names, sizes, alignments
 * and external32 sizes. */
#include <complex.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include "datatype.h"
#include "op.h"

/* external32 sizes are the standard's table (MPI-3.1 13.5.2), not the C sizes:
 * MPI_LONG is 4 bytes and MPI_WCHAR 2 there, whatever the platform uses. */
#define BT(h, T, e32)                                                                              \
    [h & MPIR_DT_INDEX_MASK] = {.handle = h,                                                       \
                                .kind = MPIR_DT_BUILTIN,                                           \
                                .committed = 1,                                                    \
                                .name = #h,                                                        \
                                .size = sizeof(T),                                                 \
                                .ub = sizeof(T),                                                   \
                                .extent = sizeof(T),                                               \
                                .true_ub = sizeof(T),                                              \
                                .align = alignof(T),                                               \
                                .is_contig = 1,                                                    \
                                .n_elements = 1,                                                   \
                                .ext32_size = e32,                                                 \
                                .depth = 1,                                                        \
                                .ext32_basic = e32}

/* The pair types are laid out as the structs the standard describes ({T1; int} in C, {T1; T1}
 * for Fortran's MPI_2REAL ...); their size is the bytes of the two fields, their extent includes
 * the padding. */
#define PAIR(T1, T2)                                                                               \
    struct {                                                                                       \
        T1 a;                                                                                      \
        T2 b;                                                                                      \
    }
#define PAIR_TYPE(h, hname, T1, first, T2, second, e32)                                            \
    [h & MPIR_DT_INDEX_MASK] = {.handle = h,                                                       \
                                .kind = MPIR_DT_BUILTIN,                                           \
                                .committed = 1,                                                    \
                                .name = hname,                                                     \
                                .size = sizeof(T1) + sizeof(T2),                                   \
                                .ub = sizeof(PAIR(T1, T2)),                                        \
                                .extent = sizeof(PAIR(T1, T2)),                                    \
                                .true_ub = offsetof(PAIR(T1, T2), b) + sizeof(T2),                 \
                                .align = alignof(PAIR(T1, T2)),                                    \
                                .is_contig = offsetof(PAIR(T1, T2), b) == sizeof(T1),              \
                                .n_elements = 2,                                                   \
                                .ext32_size = e32,                                                 \
                                .depth = 1,                                                        \
                                .pair_first = first,                                               \
                                .pair_second = second,                                             \
                                .pair_off2 = offsetof(PAIR(T1, T2), b)}
/* C's value-index pairs {T1; int}, e32 the value's external32 size (the int adds 4), and
 * Fortran's {T; T}, e32 the size of both.  The name is spelled here, before h expands. */
#define PT(h, T1, first, e32) PAIR_TYPE(h, #h, T1, first, int, MPI_INT, e32 + 4)
#define FPT(h, T, first, e32) PAIR_TYPE(h, #h, T, first, T, first, e32)

/* MPI-1's MPI_LB and MPI_UB: no data, bounds [0, 0), and a marker at 0 (sticky_lb or
 * sticky_ub), which the constructors' bounds (type_create.c) carry to the entry's displacement
 * as they do resized types' markers.  No basic element, so reductions refuse them (op.c has no
 * row) and external32 converts nothing. */
#define MARKER(h, which)                                                                           \
    [h & MPIR_DT_INDEX_MASK] = {.handle = h,                                                       \
                                .kind = MPIR_DT_BUILTIN,                                           \
                                .committed = 1,                                                    \
                                .name = #h,                                                        \
                                .sticky_##which = 1,                                               \
                                .align = 1,                                                        \
                                .is_contig = 1,                                                    \
                                .depth = 1}

MPIR_Datatype MPIR_Datatype_builtins[MPIR_DT_BUILTIN_COUNT] = {
    BT(MPI_CHAR, char, 1),
    BT(MPI_SIGNED_CHAR, signed char, 1),
    BT(MPI_UNSIGNED_CHAR, unsigned char, 1),
    BT(MPI_BYTE, unsigned char, 1),
    BT(MPI_WCHAR, wchar_t, 2),
    BT(MPI_SHORT, short, 2),
    BT(MPI_UNSIGNED_SHORT, unsigned short, 2),
    BT(MPI_INT, int, 4),
    BT(MPI_UNSIGNED, unsigned, 4),
    BT(MPI_LONG, long, 4),
    BT(MPI_UNSIGNED_LONG, unsigned long, 4),
    BT(MPI_LONG_LONG_INT, long long, 8),
    BT(MPI_UNSIGNED_LONG_LONG, unsigned long long, 8),
    BT(MPI_FLOAT, float, 4),
    BT(MPI_DOUBLE, double, 8),
    BT(MPI_LONG_DOUBLE, long double, 16),
    BT(MPI_C_BOOL, bool, 1),
    BT(MPI_INT8_T, int8_t, 1),
    BT(MPI_INT16_T, int16_t, 2),
    BT(MPI_INT32_T, int32_t, 4),
    BT(MPI_INT64_T, int64_t, 8),
    BT(MPI_UINT8_T, uint8_t, 1),
    BT(MPI_UINT16_T, uint16_t, 2),
    BT(MPI_UINT32_T, uint32_t, 4),
    BT(MPI_UINT64_T, uint64_t, 8),
    BT(MPI_AINT, MPI_Aint, 8),
    BT(MPI_OFFSET, MPI_Offset, 8),
    BT(MPI_COUNT, MPI_Count, 8),
    BT(MPI_C_FLOAT_COMPLEX, float _Complex, 8),
    BT(MPI_C_DOUBLE_COMPLEX, double _Complex, 16),
    BT(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, 32),
    BT(MPI_PACKED, unsigned char, 1),
    PT(MPI_FLOAT_INT, float, MPI_FLOAT, 4),
    PT(MPI_DOUBLE_INT, double, MPI_DOUBLE, 8),
    PT(MPI_LONG_INT, long, MPI_LONG, 4),
    PT(MPI_2INT, int, MPI_INT, 4),
    PT(MPI_SHORT_INT, short, MPI_SHORT, 2),
    PT(MPI_LONG_DOUBLE_INT, long double, MPI_LONG_DOUBLE, 16),
    BT(MPI_CXX_BOOL, bool, 1),
    BT(MPI_CXX_FLOAT_COMPLEX, float _Complex, 8),
    BT(MPI_CXX_DOUBLE_COMPLEX, double _Complex, 16),
    BT(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, 32),
    MARKER(MPI_LB, lb),
    MARKER(MPI_UB, ub),
    BT(MPI_INTEGER, int32_t, 4),
    BT(MPI_REAL, float, 4),
    BT(MPI_DOUBLE_PRECISION, double, 8),
    BT(MPI_COMPLEX, float _Complex, 8),
    BT(MPI_DOUBLE_COMPLEX, double _Complex, 16),
    BT(MPI_LOGICAL, int32_t, 4),
    BT(MPI_CHARACTER, char, 1),
    BT(MPI_INTEGER1, int8_t, 1),
    BT(MPI_INTEGER2, int16_t, 2),
    BT(MPI_INTEGER4, int32_t, 4),
    BT(MPI_INTEGER8, int64_t, 8),
    BT(MPI_REAL4, float, 4),
    BT(MPI_REAL8, double, 8),
    BT(MPI_COMPLEX8, float _Complex, 8),
    BT(MPI_COMPLEX16, double _Complex, 16),
    FPT(MPI_2INTEGER, int32_t, MPI_INTEGER, 8),
    FPT(MPI_2REAL, float, MPI_REAL, 8),
    FPT(MPI_2DOUBLE_PRECISION, double, MPI_DOUBLE_PRECISION, 16),
    BT(MPI_INTEGER16, MPIR_int128_t, 16),
    BT(MPI_REAL16, MPIR_float128_t, 16),
    BT(MPI_COMPLEX32, MPIR_complex128_t, 32),
};

MPIR_Datatype *MPIR_Datatype_builtin(MPI_Datatype type)
{
    if (!MPIR_Datatype_is_builtin(type))
        return NULL;
    return &MPIR_Datatype_builtins[type & MPIR_DT_INDEX_MASK];
}
