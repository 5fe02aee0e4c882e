/* builtin.c: the table of predefined datatypes with their standard names and sizes. */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include "datatype.h"

/* The pair types are laid out as the C structs the standard describes; their
 * size is the bytes of the two fields, their extent includes the padding. */
#define PAIR(T1, T2) struct { T1 a; T2 b; }
#define PAIR_SIZE(T1, T2) ((MPI_Aint)(sizeof(T1) + sizeof(T2)))

#define BT(h, T) {h, #h, sizeof(T), sizeof(T), 0, 1, 0, 0}
#define PT(h, T1, T2)                                                                          \
    {h, #h, PAIR_SIZE(T1, T2), sizeof(PAIR(T1, T2)), 0,                                        \
     PAIR_SIZE(T1, T2) == sizeof(PAIR(T1, T2)), sizeof(T1), offsetof(PAIR(T1, T2), b)}

static MPIR_Datatype builtins[MPIR_DT_BUILTIN_COUNT] = {
    [1] = BT(MPI_CHAR, char),
    [2] = BT(MPI_SIGNED_CHAR, signed char),
    [3] = BT(MPI_UNSIGNED_CHAR, unsigned char),
    [4] = BT(MPI_BYTE, unsigned char),
    [5] = BT(MPI_WCHAR, wchar_t),
    [6] = BT(MPI_SHORT, short),
    [7] = BT(MPI_UNSIGNED_SHORT, unsigned short),
    [8] = BT(MPI_INT, int),
    [9] = BT(MPI_UNSIGNED, unsigned),
    [10] = BT(MPI_LONG, long),
    [11] = BT(MPI_UNSIGNED_LONG, unsigned long),
    [12] = BT(MPI_LONG_LONG_INT, long long),
    [13] = BT(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    [14] = BT(MPI_FLOAT, float),
    [15] = BT(MPI_DOUBLE, double),
    [16] = BT(MPI_LONG_DOUBLE, long double),
    [17] = BT(MPI_C_BOOL, bool),
    [18] = BT(MPI_INT8_T, int8_t),
    [19] = BT(MPI_INT16_T, int16_t),
    [20] = BT(MPI_INT32_T, int32_t),
    [21] = BT(MPI_INT64_T, int64_t),
    [22] = BT(MPI_UINT8_T, uint8_t),
    [23] = BT(MPI_UINT16_T, uint16_t),
    [24] = BT(MPI_UINT32_T, uint32_t),
    [25] = BT(MPI_UINT64_T, uint64_t),
    [26] = BT(MPI_AINT, MPI_Aint),
    [27] = BT(MPI_OFFSET, MPI_Offset),
    [28] = BT(MPI_COUNT, MPI_Count),
    [29] = BT(MPI_C_FLOAT_COMPLEX, float _Complex),
    [30] = BT(MPI_C_DOUBLE_COMPLEX, double _Complex),
    [31] = BT(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    [32] = BT(MPI_PACKED, unsigned char),
    [33] = PT(MPI_FLOAT_INT, float, int),
    [34] = PT(MPI_DOUBLE_INT, double, int),
    [35] = PT(MPI_LONG_INT, long, int),
    [36] = PT(MPI_2INT, int, int),
    [37] = PT(MPI_SHORT_INT, short, int),
    [38] = PT(MPI_LONG_DOUBLE_INT, long double, int),
};

MPIR_Datatype *MPIR_Datatype_get(MPI_Datatype type)
{
    if (!MPIR_Datatype_is_builtin(type))
        return NULL;
    return &builtins[type & 0x03ffffff];
}
